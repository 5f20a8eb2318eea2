/**
 * The small pieces that keep metrics bounded and cheap: label normalisers,
 * the statement kind of a query, pre-resolved children, and the no-op
 * telemetry that creates nothing.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { statementKind } from "../../src/telemetry/db_probe.ts";
import { memo2, methodLabel, nameLabel } from "../../src/telemetry/label_cache.ts";
import { createTelemetry, NO_TELEMETRY } from "../../src/telemetry/telemetry.ts";
import { tracesUrl } from "../../src/telemetry/tracing.ts";

describe("metric labels", () => {
  test("methods outside the standard set count as other", () => {
    assert.deepEqual(
      ["GET", "POST", "DELETE", "OPTIONS", "PROPFIND", "get", ""].map(methodLabel),
      ["GET", "POST", "DELETE", "OPTIONS", "other", "other", "other"],
    );
  });

  test("a name label keeps short lower-case names and folds anything else into other", () => {
    assert.deepEqual(
      ["requests", "per_user_2", "Per User", "x".repeat(33), "../etc", "", "9lives"].map(nameLabel),
      ["requests", "per_user_2", "other", "other", "other", "other", "other"],
    );
  });

  test("a statement's kind is its first keyword, in either case, after whitespace", () => {
    const cases: [string, string][] = [
      ["SELECT 1", "select"],
      ["\n    INSERT INTO t VALUES ($1)", "insert"],
      ["update t SET a = 1", "update"],
      ["DELETE FROM t", "delete"],
      ["WITH x AS (SELECT 1) SELECT * FROM x", "with"],
      ["LISTEN supersede", "other"],
      ["", "other"],
    ];
    for (const [sql, kind] of cases) assert.equal(statementKind(sql), kind, sql);
  });

  test("a label combination is resolved once and the same child handed back", () => {
    let made = 0;
    const child = memo2((a: string, b: number) => ({ a, b, n: ++made }));
    assert.equal(child("x", 1), child("x", 1));
    assert.notEqual(child("x", 1), child("x", 2));
    assert.notEqual(child("x", 1), child("y", 1));
    assert.equal(made, 3);
  });
});

describe("telemetry switches", () => {
  test("with metrics off and no endpoint, nothing is created and /metrics has nothing", async () => {
    const telemetry = await createTelemetry({ metrics: false });
    assert.equal(telemetry, NO_TELEMETRY);
    assert.equal(telemetry.metricsText(), null);
    const request = new Request("http://x/status");
    assert.equal(telemetry.request(request), telemetry.request(request), "one shared probe");
    assert.equal(telemetry.turn("t", false), telemetry.turn("u", true), "one shared turn probe");
  });

  test("with metrics on, every family is exported before anything happens", async () => {
    const text = await (await createTelemetry({ metrics: true })).metricsText();
    assert.match(text ?? "", /^# TYPE switchyard_http_requests_total counter$/m);
    assert.match(text ?? "", /^# TYPE switchyard_provider_call_duration_seconds histogram$/m);
  });

  test("spans go to <endpoint>/v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT is read", () => {
    assert.equal(tracesUrl("http://c:4318"), "http://c:4318/v1/traces");
    assert.equal(tracesUrl("http://c:4318/"), "http://c:4318/v1/traces");
    assert.equal(tracesUrl("https://c/otlp/"), "https://c/otlp/v1/traces");
  });
});
