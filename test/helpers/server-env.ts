/**
 * Test clients send bursts (hundreds of begins at once) without the SDK's retry of a 503; on a
 * loaded machine a burst can queue longer for a pooled Postgres connection than production's
 * 3 s acquire timeout. Tests of that timeout set it themselves.
 */
export const TEST_ENV: Record<string, string> = { IDEMGATE_PG_CONNECT_TIMEOUT_MS: "30000" };
