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

/**
 * A run, step, scope, tool-call or agent id as keys see it: NFC (the gate normalises it before a
 * key is derived, so both spellings are one call), without control or zero-width characters: an id
 * that looks like another in the dashboard while it keys another record.
 */
export const IdentifierSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((id) => !hasInvisibleCharacters(id), "control and zero-width characters are not allowed in an id")
  .normalize("NFC");

/** A name people read (an API key's, an alert channel's or rule's, a member's): NFC, nothing invisible. */
export function displayNameSchema(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((name) => !hasInvisibleCharacters(name), "control and zero-width characters are not allowed in a name")
    .normalize("NFC");
}
