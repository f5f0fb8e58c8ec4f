import { afterEach, describe, expect, it, vi } from "vitest";

/** lib/env.ts caches what it parsed: each case loads a fresh copy under its own environment. */
async function freshEnv() {
  vi.resetModules();
  return (await import("../../lib/env")).env;
}

describe("the environment", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("refuses credentials in IDEMGATE_PUBLIC_URL, which every alert echoes in its links (#43)", async () => {
    vi.stubEnv("IDEMGATE_PUBLIC_URL", "https://ops:hunter2@gate.example.com");
    const env = await freshEnv();
    expect(() => env()).toThrow(/IDEMGATE_PUBLIC_URL[\s\S]*user:password@/);
  });

  it("takes a public URL without credentials", async () => {
    vi.stubEnv("IDEMGATE_PUBLIC_URL", "https://gate.example.com/dashboard");
    const env = await freshEnv();
    expect(env().IDEMGATE_PUBLIC_URL).toBe("https://gate.example.com/dashboard");
  });
});
