import type { ArgsChange } from "@/lib/dashboard/args-diff";
import { diffArgs } from "@/lib/dashboard/args-diff";
import { TableWrap } from "./TableWrap";

const show = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));

/** Two argument sets side by side, and the fields that differ between them. */
export function ArgsDiff({ before, after, beforeLabel, afterLabel, testId }: { before: unknown; after: unknown; beforeLabel: string; afterLabel: string; testId?: string }) {
  const changes: ArgsChange[] = diffArgs(before, after);
  return (
    <div className="stack" style={{ gap: 6 }} data-testid={testId}>
      <div className="args-pair">
        <div>
          <div className="muted">{beforeLabel}</div>
          <pre tabIndex={0} data-testid={testId ? `${testId}-before` : undefined}>{JSON.stringify(before, null, 2) ?? "null"}</pre>
        </div>
        <div>
          <div className="muted">{afterLabel}</div>
          <pre tabIndex={0} data-testid={testId ? `${testId}-after` : undefined}>{JSON.stringify(after, null, 2) ?? "null"}</pre>
        </div>
      </div>
      {changes.length === 0 ? (
        <p className="muted" style={{ margin: 0 }}>
          The arguments are the same.
        </p>
      ) : (
        <TableWrap label="Arguments that differ">
          <table className="data args-diff">
            <caption className="muted" style={{ textAlign: "left" }}>
              {changes.length === 1 ? "1 field differs" : `${changes.length} fields differ`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">{beforeLabel}</th>
                <th scope="col">{afterLabel}</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c) => (
                <tr key={c.path} data-kind={c.kind}>
                  <th scope="row">
                    <code>{c.path}</code>
                  </th>
                  <td className="diff-before">{c.kind === "added" ? <span className="muted">not set</span> : <code>{show(c.before)}</code>}</td>
                  <td className="diff-after">{c.kind === "removed" ? <span className="muted">not set</span> : <code>{show(c.after)}</code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}
