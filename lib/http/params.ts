import { z } from "zod";
import { IdentifierSchema, ToolNameSchema } from "../contract/tool-name";

export const CallIdParams = z.object({ callId: z.string().min(1).max(200) });

export const ProjectParams = z.object({ projectId: z.string().min(1).max(200) });

/** `tool` is a tool name or `*`, the project's default layer. */
export const ProjectToolParams = ProjectParams.extend({ tool: ToolNameSchema });

export const RevisionParams = ProjectToolParams.extend({ version: z.coerce.number().int().min(1) });

export const UpstreamParams = ProjectParams.extend({ upstreamId: z.string().min(1).max(200) });

/**
 * A run id in a path: the very rule a begin's `runId` follows (contract/tool-name.ts), so no route
 * acts on (or looks up) a run id that no begin could have made. Every route taking a run id uses this.
 */
export const RunIdSchema = IdentifierSchema;
export const RunIdParams = z.object({ runId: RunIdSchema });
export const RunCallParams = RunIdParams.extend({ callId: z.string().min(1).max(200) });
export const ProjectRunCallParams = ProjectParams.extend({ runId: RunIdSchema, callId: z.string().min(1).max(200) });
export const PreviewIdParams = z.object({ previewId: z.string().min(1).max(200) });
export const ProjectPreviewParams = ProjectParams.extend({ previewId: z.string().min(1).max(200) });
