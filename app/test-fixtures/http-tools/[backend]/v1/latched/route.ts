// POST /test-fixtures/http-tools/{in-process|http}/v1/latched — tests only (IDEMGATE_TEST_FIXTURES set, else 404): the middleware latching onto a concurrent duplicate.
import { httpToolsFixture } from "@/lib/http/fixtures/http-tools-fixture";

export const POST = httpToolsFixture({ route: "/v1/latched", latchMs: 15_000 });
