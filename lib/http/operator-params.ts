import { z } from "zod";
import { ProjectParams } from "./params";

const id = z.string().min(1).max(200);

export const RequestIdParams = z.object({ requestId: id });
export const ProjectRequestParams = ProjectParams.extend({ requestId: id });
export const ProjectCallParams = ProjectParams.extend({ callId: id });
export const ProjectKeyParams = ProjectParams.extend({ keyId: id });
export const ProjectUserParams = ProjectParams.extend({ userId: id });
