import { ProjectParams, RunIdSchema } from "./params";

export const ProjectRunParams = ProjectParams.extend({ runId: RunIdSchema });
