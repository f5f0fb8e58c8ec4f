"use client";

import { type FormEvent, useState } from "react";

// Plain fetches to better-auth's endpoints: the session cookie is set (httpOnly) by the response.
async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
}

export function SignInForm() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const res = await post("/api/auth/sign-in/email", { email: form.get("email"), password: form.get("password") });
    setBusy(false);
    if (res.ok) {
      // Straight to the operator's project (the dashboard picks it), not to an interstitial.
      window.location.assign("/dashboard");
      return;
    }
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    setError(res.status === 429 ? "Too many attempts: wait a minute." : (body?.message ?? `Sign-in failed (${res.status}).`));
  }

  return (
    <form onSubmit={submit} style={{ display: "grid", gap: 12, maxWidth: 360 }}>
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required style={{ display: "block", width: "100%", boxSizing: "border-box" }} />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required minLength={8} style={{ display: "block", width: "100%", boxSizing: "border-box" }} />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      {error ? (
        <p role="alert" style={{ color: "crimson", margin: 0 }}>
          {error}
        </p>
      ) : null}
    </form>
  );
}

export function SignOutButton() {
  return (
    <button
      type="button"
      onClick={async () => {
        await post("/api/auth/sign-out", {});
        window.location.reload();
      }}
    >
      Sign out
    </button>
  );
}
