import { headers } from "next/headers";
import { arrivedOverHttps } from "@/lib/http/client-address";

const DECISIONS: [string, string][] = [
  ["execute", "you hold the lease: run the tool, then complete"],
  ["replay", "done before: here is the stored outcome"],
  ["in_progress", "another attempt is running it now"],
  ["verify", "an attempt vanished: check downstream, then complete"],
  ["refused", "a duplicate the tool's policy refuses"],
  ["conflict", "same key, different arguments"],
  ["approval_required", "a resend needs a human"],
  ["blocked", "the run is looping"],
];

// Per request: the curl example names the origin this page was served from.
export const dynamic = "force-dynamic";

/** The origin the browser addressed: its Host header under the scheme the request arrived with (a trusted proxy's https included). */
async function servedFrom(): Promise<string> {
  const h = await headers();
  const host = h.get("host") ?? "localhost:3000";
  return `${arrivedOverHttps(h) ? "https" : "http"}://${host}`;
}

export default async function Home() {
  const origin = await servedFrom();
  return (
    <main>
      <h1>Idemgate</h1>
      <nav aria-label="Start" className="home-links">
        <a href="/sign-in">Operator sign-in</a>
        <a href="/dashboard">Open the dashboard</a>
        <a href="/api/v1/openapi.json">API contract (OpenAPI)</a>
      </nav>
      <p>
        The idempotency gate for AI-agent tool calls. Agents ask before running a side-effecting tool; the gate derives
        the key from the run&apos;s structure — run, step, tool, business scope — never from the model&apos;s wording, so a
        re-planned, paraphrased call looks exactly like the first one.
      </p>
      <h2>Decisions</h2>
      <div className="decisions">
        {DECISIONS.map(([name, meaning]) => (
          <div key={name} style={{ display: "contents" }}>
            <code>{name}</code>
            <span className="muted">{meaning}</span>
          </div>
        ))}
      </div>
      <h2>API</h2>
      <p>
        The contract is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Authenticate with a
        project API key: <code>Authorization: Bearer ig_…</code>. The demo key is printed on first start and saved to{" "}
        <code>data/demo-key.txt</code>.
      </p>
      <pre data-testid="curl-example" tabIndex={0}>{`curl -s ${origin}/api/v1/calls/begin \\
  -H "authorization: Bearer $(cat data/demo-key.txt)" \\
  -H 'content-type: application/json' \\
  -d '{"tool":"charge_card","runId":"run_1","stepId":"charge","args":{"amount":42}}'`}</pre>
    </main>
  );
}
