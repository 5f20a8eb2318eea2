/**
 * What the PostgreSQL driver does about a server that went away, as data:
 * how long it waits between reconnect attempts (the most the service adds to
 * a server's return), and which refusals it waits through (a server starting
 * up, never one shutting down).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  RECONNECT_MAX_S,
  reconnectDelayS,
  refusedWhileStartingUp,
} from "../../src/store/postgres_driver.ts";
import { isStorageFault } from "../../src/store/storage_fault.ts";

describe("PostgreSQL reconnects", () => {
  test("the wait between attempts grows by 25 ms a failure and never passes 0.1 s", () => {
    const waits = Array.from({ length: 8 }, (_, retries) => reconnectDelayS(retries));
    assert.deepEqual(waits.map((s) => Math.round(s * 1000)), [0, 25, 50, 75, 100, 100, 100, 100]);
    assert.equal(reconnectDelayS(1_000_000), RECONNECT_MAX_S);
    // The service is back within this of the server's return, far inside a second.
    assert.ok(RECONNECT_MAX_S <= 0.1);
  });

  test("a server still starting up is waited for; one shutting down, or any other refusal, is not", () => {
    const refusal = (code: string, message: string) => Object.assign(new Error(message), { code });
    assert.equal(
      refusedWhileStartingUp(refusal("57P03", "the database system is starting up")),
      true,
    );
    assert.equal(
      refusedWhileStartingUp(
        refusal("57P03", "the database system is not yet accepting connections"),
      ),
      true,
    );
    assert.equal(
      refusedWhileStartingUp(refusal("57P03", "the database system is shutting down")),
      false,
    );
    assert.equal(refusedWhileStartingUp(refusal("ECONNREFUSED", "connect ECONNREFUSED")), false);
    assert.equal(refusedWhileStartingUp(refusal("57P01", "terminating connection")), false);
    assert.equal(refusedWhileStartingUp(null), false);
    // Past the wait, the refusal is a storage fault like any other (storage_error).
    assert.equal(isStorageFault(refusal("57P03", "the database system is starting up")), true);
  });
});
