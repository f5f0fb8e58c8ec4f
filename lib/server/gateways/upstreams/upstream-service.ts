import type { CreateUpstream, UpdateUpstream } from "../../../contract/upstreams";
import type { UpstreamRepository, UpstreamRow } from "../../../store/prisma/upstream-repository";
import { AppError } from "../../app-error";
import { newId } from "../../ids";
import { type Actor, auditEntry } from "../../operators/operator-audit";
import { type AssertAllowed, assertRegistrable } from "../../outbound/registration-check";
import type { SecretBox } from "./secret-box";
import type { StdioCommand, StdioCommandCatalog } from "./stdio-commands";

/** What a gateway needs to reach an upstream: the stored row plus its headers, secret included. */
export interface ResolvedUpstream {
  row: UpstreamRow;
  /** Every header to send, the decrypted secret among them; never log or return these. */
  headers: Record<string, string>;
  /** A stdio upstream's command as the server's configuration lists it under the row's name; null when it does not. */
  stdio: StdioCommand | null;
}

/**
 * Admins' upstream registry (create, list, change, delete; every write audited in its
 * transaction) and the gateways' lookup by name. Secrets go in and are never given back out,
 * except as request headers to the gateways that forward to the upstream.
 */
export class UpstreamService {
  constructor(
    private readonly repository: UpstreamRepository,
    private readonly box: SecretBox,
    private readonly stdioCommands: StdioCommandCatalog,
    /** The outbound allowlist's URL check: an upstream's URL must pass it when it is saved (and again on every call). */
    private readonly assertAllowed: AssertAllowed,
    private readonly clock: () => number = Date.now,
  ) {}

  list(projectId: string): Promise<UpstreamRow[]> {
    return this.repository.list(projectId);
  }

  async get(projectId: string, id: string): Promise<UpstreamRow> {
    const row = await this.repository.get(projectId, id);
    if (!row) throw new AppError("not_found", `no upstream ${id} in this project`);
    return row;
  }

  async create(projectId: string, input: CreateUpstream, actor: Actor): Promise<UpstreamRow> {
    if ("command" in input) this.requireStdioCommand(input.command);
    if ("url" in input && input.url) await assertRegistrable(this.assertAllowed, projectId, input.url, "url");
    const now = this.clock();
    const id = newId("up", now);
    const row: UpstreamRow = {
      id,
      projectId,
      name: input.name,
      kind: input.kind,
      transport: input.kind === "mcp" ? input.transport : null,
      url: "url" in input ? input.url : null,
      command: "command" in input ? input.command : null,
      args: "args" in input ? input.args : [],
      headers: input.headers ?? {},
      secretHeader: input.secretHeader ?? null,
      secretEnc: input.secret ? this.box.seal(input.secret, id) : null,
      idempotencyHeader: "idempotencyHeader" in input ? (input.idempotencyHeader?.toLowerCase() ?? null) : null,
      maxStoredBytes: "maxStoredBytes" in input ? (input.maxStoredBytes ?? null) : null,
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    const audit = auditEntry(actor, projectId, "upstream.created", { type: "upstream", id }, describe(row), now);
    if (!(await this.repository.create(row, audit))) throw new AppError("already_exists", `an upstream named ${input.name} already exists in this project`);
    return row;
  }

  async update(projectId: string, id: string, input: UpdateUpstream, actor: Actor): Promise<UpstreamRow> {
    const current = await this.get(projectId, id);
    if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) {
      throw new AppError("version_conflict", `upstream ${id} is at version ${current.version}, not ${input.expectedVersion}`);
    }
    if (current.transport === "stdio" && input.url !== undefined) throw invalid("url", "a stdio upstream has a command, not a URL");
    if (current.transport !== "stdio" && (input.command !== undefined || input.args !== undefined)) throw invalid("command", "only a stdio upstream has a command");
    if (input.command !== undefined) this.requireStdioCommand(input.command);
    if (current.kind !== "http" && input.idempotencyHeader != null) throw invalid("idempotencyHeader", "only an http upstream has an idempotency header");
    if (current.kind !== "http" && input.maxStoredBytes != null) throw invalid("maxStoredBytes", "only an http upstream has a stored-response limit");
    if (input.url) await assertRegistrable(this.assertAllowed, projectId, input.url, "url");
    const now = this.clock();
    const change = {
      url: input.url,
      command: input.command,
      args: input.args,
      headers: input.headers,
      secretHeader: input.secretHeader,
      secretEnc: input.secret === undefined ? undefined : input.secret === null ? null : this.box.seal(input.secret, id),
      idempotencyHeader: input.idempotencyHeader === undefined ? undefined : (input.idempotencyHeader?.toLowerCase() ?? null),
      maxStoredBytes: input.maxStoredBytes,
    };
    const changed = Object.keys(input).filter((field) => field !== "expectedVersion" && field !== "secret");
    const detail = { fields: changed, secret: input.secret === undefined ? "unchanged" : input.secret === null ? "removed" : "replaced" };
    const audit = auditEntry(actor, projectId, "upstream.updated", { type: "upstream", id }, detail, now);
    const updated = await this.repository.update(projectId, id, current.version, change, now, audit);
    if (!updated) throw new AppError("version_conflict", `upstream ${id} changed meanwhile: read it again`);
    return updated;
  }

  async delete(projectId: string, id: string, actor: Actor): Promise<UpstreamRow> {
    const current = await this.get(projectId, id);
    const now = this.clock();
    const audit = auditEntry(actor, projectId, "upstream.deleted", { type: "upstream", id }, { name: current.name }, now);
    if (!(await this.repository.delete(projectId, id, audit))) throw new AppError("not_found", `no upstream ${id} in this project`);
    return current;
  }

  /** The stdio commands a project admin may pick from (names only: the command lines are the server's). */
  stdioCommandNames(): string[] {
    return this.stdioCommands.names();
  }

  private requireStdioCommand(name: string): void {
    const refusal = this.stdioCommands.refusal(name);
    if (refusal) throw invalid("command", refusal);
  }

  /** The gateways' view: the upstream by name with its request headers, secret decrypted. */
  async resolve(projectId: string, name: string, kind: UpstreamRow["kind"]): Promise<ResolvedUpstream> {
    const row = await this.repository.byName(projectId, name);
    if (!row || row.kind !== kind) throw new AppError("not_found", `no ${kind} upstream named ${name} in this project`);
    const headers = { ...row.headers };
    if (row.secretEnc) {
      const secret = this.box.open(row.secretEnc, row.id);
      const header = (row.secretHeader ?? "authorization").toLowerCase();
      headers[header] = header === "authorization" ? `Bearer ${secret}` : secret;
    }
    return { row, headers, stdio: row.transport === "stdio" ? this.stdioCommands.get(row.command) : null };
  }
}

function invalid(field: string, message: string): AppError {
  return new AppError("invalid_input", message, { issues: [{ path: [field], message, code: "custom" }] });
}

/** The audit detail of a new upstream: where it points, never the secret. */
function describe(row: UpstreamRow): Record<string, unknown> {
  return { name: row.name, kind: row.kind, transport: row.transport, url: row.url, command: row.command, headerNames: Object.keys(row.headers), hasSecret: row.secretEnc !== null };
}
