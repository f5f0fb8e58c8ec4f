import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PROBLEM_DOCS, problemDoc } from "@/lib/http/problem-docs";

// One page per problem type the HTTP tools answer with: the `type` of their problem+json bodies.
export function generateStaticParams() {
  return PROBLEM_DOCS.map(({ slug }) => ({ slug }));
}

export const dynamicParams = false;

export async function generateMetadata({ params }: { params: Promise<{ slug: string }> }): Promise<Metadata> {
  const doc = problemDoc((await params).slug);
  return { title: doc ? `${doc.title} · Idemgate problem types` : "Idemgate problem types" };
}

export default async function ProblemPage({ params }: { params: Promise<{ slug: string }> }) {
  const doc = problemDoc((await params).slug);
  if (!doc) notFound();
  return (
    <main>
      <p>
        <a href="/problems">Idemgate problem types</a>
      </p>
      <h1>{doc.title}</h1>
      <dl>
        <dt>Type</dt>
        <dd>
          <code>{`/problems/${doc.slug}`}</code>
        </dd>
        <dt>Status</dt>
        <dd>{doc.status}</dd>
      </dl>
      <h2>What happened</h2>
      <p>{doc.meaning}</p>
      <h2>What to do</h2>
      <p>{doc.action}</p>
    </main>
  );
}
