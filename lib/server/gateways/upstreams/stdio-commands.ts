import { z } from "zod";
import { UPSTREAM_NAME } from "../../../contract/upstreams";

/**
 * The commands this server may spawn for stdio upstreams. Spawning a process is the server's
 * owner's decision, never a project's: the list comes from the server's configuration
 * (IDEMGATE_STDIO_COMMANDS), and a project admin registering a stdio upstream only picks one of
 * its names. The gateway spawns what the configuration says under that name when it connects, so
 * a stored row (or a row written before this rule) can never make the server run anything else.
 */
export const StdioCommandSchema = z
  .object({
    command: z.string().min(1).max(1_000),
    args: z.array(z.string().max(2_000)).max(100).default([]),
    /** Added to the SDK's minimal default environment (PATH, HOME, …); the server's own variables are never passed. */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(8_000)).optional(),
    cwd: z.string().min(1).max(1_000).optional(),
  })
  .strict();
export type StdioCommand = z.infer<typeof StdioCommandSchema>;

export const StdioCommandsSchema = z.record(z.string().regex(UPSTREAM_NAME, "a command's name: lowercase letters, digits, `-` and `_`"), StdioCommandSchema);

/** IDEMGATE_STDIO_COMMANDS: a JSON object `{ "<name>": { "command": …, "args": [ … ], "env": { … }, "cwd": … } }`. */
export function parseStdioCommands(value: string | undefined): Record<string, StdioCommand> {
  if (!value || value.trim() === "") return {};
  return StdioCommandsSchema.parse(JSON.parse(value));
}

export class StdioCommandCatalog {
  constructor(private readonly entries: Readonly<Record<string, StdioCommand>>) {}

  names(): string[] {
    return Object.keys(this.entries).sort();
  }

  /** The configured command by name; null when the configuration does not list it. */
  get(name: string | null): StdioCommand | null {
    return name !== null && Object.hasOwn(this.entries, name) ? this.entries[name]! : null;
  }

  /** Why a name cannot be registered, or null when it can. */
  refusal(name: string): string | null {
    if (this.get(name)) return null;
    const listed = this.names();
    return listed.length === 0
      ? "this server lists no stdio commands (its owner sets them in IDEMGATE_STDIO_COMMANDS); register a Streamable HTTP upstream instead"
      : `"${name.slice(0, 100)}" is not a stdio command this server lists; pick one of: ${listed.join(", ")}`;
  }
}
