// GET, POST /api/auth/{sign-in/email,sign-out,get-session,change-password} — browsers: operator sign-in and session (better-auth).
import { handleAuth } from "@/lib/auth/auth-handler";

export const GET = handleAuth;
export const POST = handleAuth;
