import { isAPIError } from "better-auth/api";
import { AppError } from "../server/app-error";
import type { CreateUser } from "../server/operator-members";
import type { Auth } from "./auth";

/**
 * Accounts are created on the server only (an admin, or the first-admin bootstrap): better-auth
 * validates and scrypt-hashes the password. Its errors become ours.
 */
export function userCreator(auth: Auth): CreateUser {
  return async ({ email, password, name }) => {
    try {
      const { user } = await auth.api.signUpEmail({ body: { email, password, name } });
      return user.id;
    } catch (error) {
      if (!isAPIError(error)) throw error;
      const body = (error as { body?: { code?: string; message?: string } }).body;
      if (body?.code?.includes("ALREADY_EXISTS")) throw new AppError("already_exists", `an account for ${email} exists`);
      throw new AppError("invalid_input", body?.message ?? "the account cannot be created");
    }
  };
}
