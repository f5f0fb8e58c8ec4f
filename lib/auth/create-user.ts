import { isAPIError } from "better-auth/api";
import { hashPassword } from "better-auth/crypto";
import { AppError } from "../server/app-error";
import type { CreateUser } from "../server/operators/operator-members";
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
      // better-auth answers FAILED_TO_CREATE_USER when its database write threw (a lock or statement
      // timeout, a pool with no free connection), and keeps the cause to its log: that is a store
      // failure, so the retryable 503, not a 400 that tells the admin their input was wrong.
      if (body?.code === "FAILED_TO_CREATE_USER") {
        throw new AppError("store_unavailable", "the account could not be stored; retry the same request", { retryAfterSeconds: 1 });
      }
      throw new AppError("invalid_input", body?.message ?? "the account cannot be created");
    }
  };
}

/**
 * Hashes a password as creating an account does (better-auth's scrypt) and throws the hash away:
 * adding an account the admin cannot see then takes as long as creating one.
 */
export const hashLikeSignUp = async (password: string): Promise<void> => {
  await hashPassword(password);
};
