import { z } from "zod";

export const CallIdParams = z.object({ callId: z.string().min(1).max(200) });
