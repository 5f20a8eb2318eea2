import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileRoutes } from "../../src/http/router.ts";

const match = compileRoutes([
  { method: "GET", path: "/status", handler: "status" },
  { method: "GET", path: "/api/v1/sessions/:session_id", handler: "get" },
  { method: "PUT", path: "/api/v1/sessions/:session_id", handler: "put" },
  { method: "POST", path: "/api/v1/sessions/:session_id/execute", handler: "execute" },
]);

describe("router", () => {
  test("finds the handler and decodes parameters", () => {
    assert.deepEqual(match("GET", "/api/v1/sessions/a%20b"), {
      kind: "found",
      handler: "get",
      params: { session_id: "a b" },
    });
    assert.deepEqual(match("POST", "/api/v1/sessions/x/execute"), {
      kind: "found",
      handler: "execute",
      params: { session_id: "x" },
    });
  });

  test("tells a wrong method apart from an unknown path, listing the allowed methods", () => {
    assert.deepEqual(match("DELETE", "/api/v1/sessions/x"), {
      kind: "method_not_allowed",
      allow: ["GET", "PUT"],
    });
    assert.deepEqual(match("GET", "/api/v1/sessions/x/execute"), {
      kind: "method_not_allowed",
      allow: ["POST"],
    });
    assert.deepEqual(match("GET", "/api/v1/status"), { kind: "not_found" });
    assert.deepEqual(match("GET", "/api/v1/sessions"), { kind: "not_found" });
    assert.deepEqual(match("GET", "/api/v1/sessions/%E0%A4%A"), { kind: "not_found" });
  });

  test("ignores a trailing slash and doubled slashes", () => {
    assert.equal(match("GET", "/status/").kind, "found");
    assert.equal(match("GET", "//status").kind, "found");
  });
});
