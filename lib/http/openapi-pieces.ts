import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { ErrorResponseSchema } from "../contract/v1";

/** The small pieces every OpenAPI registration file builds its paths from. */
export type Schema = Parameters<OpenAPIRegistry["register"]>[1];

export const json = (schema: Schema, description: string) => ({ description, content: { "application/json": { schema } } });

export const jsonBody = (schema: Schema) => ({ body: { content: { "application/json": { schema } } } });

export const errorResponse = (description: string) => json(ErrorResponseSchema, description);
