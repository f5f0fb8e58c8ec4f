import { describe, expect, it } from "vitest";
import { readJsonBody } from "../../../lib/http/read-json-body";
import { AppError } from "../../../lib/server/app-error";

const post = (text: string) => new Request("http://gate.test/api", { method: "POST", headers: { "content-type": "application/json" }, body: text });

describe("readJsonBody (every route's body reader, agent and operator)", () => {
  it("refuses a body nested beyond the bound with a 400 that says which bound and where", async () => {
    const error = await readJsonBody(post(`{"note":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "invalid_json" });
    expect((error as AppError).message).toMatch(/nested deeper than 100 levels at note\.0\.0/);
    expect((error as AppError).details.issues?.[0]).toMatchObject({ code: "too_deep" });
  });

  it("reads a body within the bounds", async () => {
    expect(await readJsonBody(post(`{"a":[[[1]]]}`))).toEqual({ a: [[[1]]] });
  });
});
