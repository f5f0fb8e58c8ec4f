// GET /sign-in — anyone: the operator sign-in form; signed in already, a redirect to the dashboard (your project).
import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { services } from "@/lib/server/composition-root";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in · Idemgate" };
// Per request, never at build time: the build must not open the database.
export const dynamic = "force-dynamic";

export default async function SignInPage() {
  const requestHeaders = await headers();
  const operators = services().operators;
  const session = await operators.auth.api.getSession({ headers: requestHeaders });
  if (!session) {
    return (
      <main>
        <h1>Operator sign-in</h1>
        <p className="muted">Operators approve resends, evict records and manage keys. Accounts are created by an admin.</p>
        <SignInForm />
      </main>
    );
  }
  // Signed in already: straight to the dashboard, which opens the operator's project.
  redirect("/dashboard");
}
