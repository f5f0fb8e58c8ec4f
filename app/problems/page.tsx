import type { Metadata } from "next";
import { PROBLEM_DOCS } from "@/lib/http/problem-docs";

export const metadata: Metadata = { title: "Idemgate problem types" };

/** The index of the problem types (RFC 9457) the Idempotency-Key middleware and the /gw gateway answer with. */
export default function ProblemIndex() {
  return (
    <main>
      <h1>Problem types</h1>
      <p>
        The HTTP tools (the Idempotency-Key middleware and the <code>/gw</code> gateway) answer errors as{" "}
        <code>application/problem+json</code>; each body&apos;s <code>type</code> links to its page here.
      </p>
      <ul>
        {PROBLEM_DOCS.map((doc) => (
          <li key={doc.slug}>
            <a href={`/problems/${doc.slug}`}>{doc.title}</a> ({doc.status})
          </li>
        ))}
      </ul>
    </main>
  );
}
