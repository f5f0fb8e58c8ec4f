import { z } from "zod";
import { hasInvisibleCharacters } from "../core/identity";

/**
 * A tool name as keys and policies see it: NFC, so `café` typed either way is one tool; no
 * control or zero-width characters, which would make a look-alike name that skips the policy.
 */
export const ToolNameSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((tool) => !hasInvisibleCharacters(tool), "control and zero-width characters are not allowed in a tool name")
  .normalize("NFC");
