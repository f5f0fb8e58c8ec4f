// GET, POST /test-fixtures/http-tools/{in-process|http}/v1/refunds — tests only (IDEMGATE_TEST_FIXTURES set, else 404): the Idempotency-Key middleware in a Next.js route handler.
import { httpToolsFixture } from "@/lib/http/fixtures/http-tools-fixture";

export const POST = httpToolsFixture({ route: "/v1/refunds" });
export const GET = POST;
