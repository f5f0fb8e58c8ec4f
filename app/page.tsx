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

export default function Home() {
  return (
    <main>
      <h1>Idemgate</h1>
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
      <pre>{`curl -s localhost:3000/api/v1/calls/begin \\
  -H "authorization: Bearer $(cat data/demo-key.txt)" \\
  -H 'content-type: application/json' \\
  -d '{"tool":"charge_card","runId":"run_1","stepId":"charge","args":{"amount":42}}'`}</pre>
    </main>
  );
}
