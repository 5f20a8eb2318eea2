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
      path: "/api/v1/sessions/:session_id",
    });
    assert.deepEqual(match("POST", "/api/v1/sessions/x/execute"), {
      kind: "found",
      handler: "execute",
      params: { session_id: "x" },
      path: "/api/v1/sessions/:session_id/execute",
    });
  });

  test("tells a wrong method apart from an unknown path, listing the allowed methods", () => {
    assert.deepEqual(match("DELETE", "/api/v1/sessions/x"), {
      kind: "method_not_allowed",
      allow: ["GET", "PUT"],
      path: "/api/v1/sessions/:session_id",
    });
    assert.deepEqual(match("GET", "/api/v1/sessions/x/execute"), {
      kind: "method_not_allowed",
      allow: ["POST"],
      path: "/api/v1/sessions/:session_id/execute",
    });
    assert.deepEqual(match("GET", "/api/v1/status"), { kind: "not_found" });
    assert.deepEqual(match("GET", "/api/v1/sessions"), { kind: "not_found" });
    assert.deepEqual(match("GET", "/api/v1/sessions/%E0%A4%A"), { kind: "not_found" });
  });

  test("names the template a path matched, never the path itself", () => {
    const found = match("GET", "/api/v1/sessions/secret-looking-id");
    assert.equal(found.kind === "found" && found.path, "/api/v1/sessions/:session_id");
  });

  test("ignores a trailing slash and doubled slashes", () => {
    assert.equal(match("GET", "/status/").kind, "found");
    assert.equal(match("GET", "//status").kind, "found");
  });
});
