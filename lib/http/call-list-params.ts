import { z } from "zod";
import { ProjectParams } from "./params";

export const ProjectRunParams = ProjectParams.extend({ runId: z.string().min(1).max(200) });
