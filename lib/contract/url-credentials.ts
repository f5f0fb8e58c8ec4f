import { hasUserinfo } from "../core/url-credentials";

/** Refusal of `user:password@` in a URL field: the issue says where the credential goes instead. */
export const noUserinfo = (where: string) =>
  [(value: string) => !hasUserinfo(value), { message: `credentials in the URL (user:password@) are refused: ${where}` }] as const;
