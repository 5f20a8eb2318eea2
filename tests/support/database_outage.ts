/**
 * What the database outage tests share: the checks that requests answer
 * storage_error, that they are answered again once the database is back, and
 * that the supersede listener hears again.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { SUPERSEDE_CHANNEL, type SupersedeSignals } from "../../src/store/supersede_signal.ts";
import type { CallResult } from "./app.ts";

/**
 * The supersede listener hears a NOTIFY sent straight to the database (not
 * through the proxy) within 10 s: postgres.js listens again on a connection of
 * its own once the server is back, and the listener's own probe replaces a
 * connection that hears nothing.
 */
export async function assertListenerHears(
  signals: SupersedeSignals,
  databaseUrl: string,
): Promise<void> {
  const direct = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const runId = crypto.randomUUID();
  let heard = false;
  const unwatch = signals.watch(runId, () => heard = true);
  try {
    const since = performance.now();
    for (let seq = 1; !heard; seq++) {
      assert.ok(
        performance.now() - since < 10_000,
        "the listener is still deaf after 10 s",
      );
      await direct`SELECT pg_notify(${SUPERSEDE_CHANNEL}, ${`${runId}:${seq}`})`;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    unwatch();
    await direct.end();
  }
}

export function assertStorageError(result: CallResult) {
  assert.equal(result.status, 502, JSON.stringify(result.body));
  assert.deepEqual(result.body, {
    error: {
      code: "storage_error",
      message: "storage unavailable: try again shortly",
    },
  });
}

/**
 * Requests until `count` in a row answer 200, within 10 s: just after the
 * database is back, a connection attempt begun during the outage may still
 * fail, once per pooled connection.
 */
export async function untilAnswered(
  request: () => Promise<CallResult>,
  count = 8,
): Promise<void> {
  const back = performance.now();
  for (let answered = 0; answered < count;) {
    const r = await request();
    answered = r.status === 200 ? answered + 1 : 0;
    assert.ok(
      performance.now() - back < 10_000,
      "still failing 10 s after the database is back",
    );
    if (r.status !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
