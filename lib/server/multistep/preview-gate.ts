/** The begin side of previews: a token found, checked against the call, and spent (preview-service.ts). */
export interface PreviewGate {
  redeem(projectId: string, token: string, call: { key: string; argsFingerprint: string }): Promise<void>;
}
