/**
 * The sockets of our PostgreSQL connections (store/postgres_socket.ts): a
 * connection postgres.js can no longer send on is noticed at once instead of
 * hanging until its connect timeout. The failure is made
 * on purpose: a query is sent and its socket reset before the write goes out,
 * as a server crashing under load does.
 */
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import process from "node:process";
import { describe, test } from "node:test";
import postgres from "postgres";
import { type SocketTarget, watchedSockets } from "../../src/store/postgres_socket.ts";

const adminUrl = process.env.DATABASE_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A one-connection pool on `factory`'s sockets, and the sockets it got. */
function pool(factory: (target: SocketTarget) => Socket) {
  const sockets: Socket[] = [];
  const sql = postgres(adminUrl!, {
    max: 1,
    connect_timeout: 5,
    backoff: () => 0,
    onnotice: () => {},
    // The `socket` option is documented (README, "Custom socket"), not declared in its types.
    ...{
      socket: (target: SocketTarget) => {
        const socket = factory(target);
        sockets.push(socket);
        return socket;
      },
    },
  } as postgres.Options<Record<string, never>>);
  return { sql, sockets };
}

/**
 * Sends a query and, before its write goes out, delivers what a reset from the
 * server delivers (an error, then the close), as a crash under load does; the
 * events are emitted in the same turn of the event loop so that every runtime
 * sees them before the write.
 */
async function poison(p: ReturnType<typeof pool>): Promise<void> {
  await p.sql`SELECT 1`;
  const cut = p.sql`SELECT 2`.catch(() => {});
  // The query is handed to its connection a microtask later; its write waits for the next turn.
  for (let i = 0; i < 3; i++) await null;
  const socket = p.sockets[p.sockets.length - 1];
  socket.emit("error", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
  socket.emit("close", true);
  socket.destroy();
  await cut;
}

/** Whether the next query answers within `ms`. */
async function answersWithin(sql: postgres.Sql, ms: number): Promise<boolean> {
  const answered = sql`SELECT 3 AS x`.then(() => true, () => true);
  return await Promise.race([answered, sleep(ms).then(() => false)]);
}

if (adminUrl) {
  describe("postgres.js sockets", () => {
    test("a connection whose socket closed with a write waiting hangs on its next attempt (the failure the watch is for)", async () => {
      // Should this fail, postgres.js no longer has the defect: the watch can go.
      const p = pool(watchedSockets(() => {}));
      try {
        await poison(p);
        assert.equal(await answersWithin(p.sql, 1_000), false);
      } finally {
        await p.sql.end({ timeout: 0 });
      }
    });

    test("such a connection is reported silent well before the connect timeout; a sound one never", async () => {
      let silent = 0;
      const p = pool(watchedSockets(() => silent++));
      try {
        for (let i = 0; i < 20; i++) await p.sql`SELECT ${i}::int AS i`;
        await sleep(200);
        assert.equal(silent, 0, "a sound connection reported silent");
        await poison(p);
        const since = performance.now();
        void answersWithin(p.sql, 5_000);
        // Well before the connect timeout (5 s), the only other end of such an attempt.
        while (silent === 0 && performance.now() - since < 2_500) await sleep(10);
        assert.equal(silent, 1, "not reported within half the connect timeout");
      } finally {
        await p.sql.end({ timeout: 0 });
      }
    });
  });
}
