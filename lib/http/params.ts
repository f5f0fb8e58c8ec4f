import { z } from "zod";
import { ToolNameSchema } from "../contract/tool-name";

export const CallIdParams = z.object({ callId: z.string().min(1).max(200) });

export const ProjectParams = z.object({ projectId: z.string().min(1).max(200) });

/** `tool` is a tool name or `*`, the project's default layer. */
export const ProjectToolParams = ProjectParams.extend({ tool: ToolNameSchema });

export const RevisionParams = ProjectToolParams.extend({ version: z.coerce.number().int().min(1) });

export const UpstreamParams = ProjectParams.extend({ upstreamId: z.string().min(1).max(200) });

/**
 * A run id in a path, in NFC as the gate stored it (a lookup: ids stored by older versions with
 * characters the wire now refuses stay reachable).
 */
export const RunIdSchema = z.string().min(1).max(200).normalize("NFC");
export const RunIdParams = z.object({ runId: RunIdSchema });
export const RunCallParams = RunIdParams.extend({ callId: z.string().min(1).max(200) });
export const ProjectRunCallParams = ProjectParams.extend({ runId: RunIdSchema, callId: z.string().min(1).max(200) });
export const PreviewIdParams = z.object({ previewId: z.string().min(1).max(200) });
export const ProjectPreviewParams = ProjectParams.extend({ previewId: z.string().min(1).max(200) });
