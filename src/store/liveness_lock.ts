/**
 * Instance liveness seen at once on PostgreSQL (migration 016): an instance
 * holds, for its whole life, a session-level advisory lock on one connection
 * of its own, its key recorded in its `instances` row. A process that dies,
 * kill -9 included, closes that connection; its backend exits and the lock is
 * gone within milliseconds, so `switchyard_instance_gone` (functions/
 * instances.sql) judges the instance gone at once instead of three seconds
 * after its last heartbeat. The heartbeat stays: it judges instances without
 * a lock (PGlite, an older version) and a host that vanished without closing
 * its connections.
 *
 * The connection can drop while the process lives. After a restarted server
 * every lock is free until its instance takes it again, and for three seconds
 * after the server's start a free lock proves nothing
 * (`switchyard_locks_settled`). After a proxy cut, other instances may take
 * this one's turns over, which the turns' fences make safe (their end writes
 * find the run moved on and persist nothing as current). The lock is taken
 * again as soon as the drop is noticed (at once when the driver reports the
 * close, else at the next check, every second), and tried every tenth of a
 * second until it is held: once the server is back, within the driver's
 * reconnect wait.
 */
import postgres from "postgres";
import { DEFAULT_STATEMENT_TIMEOUT_MS } from "../config.ts";
import type { Logger } from "../log.ts";
import { CONNECTION_OPTIONS, RECONNECT_MAX_S, sessionSettings } from "./postgres_driver.ts";
import { watchedSocketOption } from "./postgres_socket.ts";
import { clientDeadlineMs, withinDeadline } from "./statement_deadline.ts";

export const LIVENESS_CHECK_EVERY_MS = 1_000;
/** While the lock is not held, it is tried again this often (the driver's longest reconnect wait). */
export const RETAKE_EVERY_MS = RECONNECT_MAX_S * 1000;
/** How long start-up tries to take the lock before giving up. */
const ACQUIRE_WITHIN_MS = 10_000;
const ACQUIRE_RETRY_MS = 50;

export interface LivenessLock {
  /** The advisory lock's key (a bigint, in decimal), recorded in the instance's row. */
  readonly key: string;
  /** Whether this process holds the lock, as far as it knows. */
  readonly held: boolean;
  /** Releases the lock (its connection closes). */
  close(): Promise<void>;
}

/** A random positive 63-bit key: the instance's, for its life. */
export function newLivenessKey(): string {
  const [n] = crypto.getRandomValues(new BigUint64Array(1));
  return (n >> 1n).toString();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock on a connection of its own and keeps it; resolves once it is
 * held (it must be before the instance records its key), and fails when it
 * cannot be taken within ten seconds.
 */
export async function holdLivenessLock(
  databaseUrl: string,
  o: { key?: string; statementTimeoutMs?: number; logger: Logger },
): Promise<LivenessLock> {
  const key = o.key ?? newLivenessKey();
  const timeoutMs = o.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const deadlineMs = clientDeadlineMs(timeoutMs);
  let closed = false;
  /** The backend holding the lock; null while it is not held. */
  let holder: number | null = null;
  let checking: Promise<void> | null = null;

  const connect = (): postgres.Sql => {
    const pool: postgres.Sql = postgres(databaseUrl, {
      ...CONNECTION_OPTIONS,
      // A connection that can no longer send (postgres_socket.ts) is replaced at once.
      ...watchedSocketOption(() => replace(pool)),
      max: 1,
      // The connection is the lock: never closed for being idle or old (0: no timer).
      idle_timeout: 0,
      max_lifetime: 0,
      onnotice: () => {},
      debug: false,
      connection: sessionSettings("switchyard-liveness", timeoutMs),
      onclose: () => {
        if (closed || holder === null) return;
        holder = null;
        o.logger.warn("liveness lock lost: its connection closed", {});
        check();
      },
    });
    return pool;
  };
  let sql = connect();
  /** A connection that stopped answering is dropped for a fresh one. */
  const replace = (stalled: postgres.Sql) => {
    if (stalled !== sql) return;
    holder = null;
    sql = connect();
    stalled.end({ timeout: 0 }).catch(() => {});
  };
  const on = <T>(pending: Promise<T>) => {
    const pool = sql;
    return withinDeadline(pending, deadlineMs, () => replace(pool));
  };

  /** One attempt: whether the lock is held afterwards. */
  const take = async (): Promise<boolean> => {
    const [row] = await on(
      sql.unsafe<{ got: boolean; pid: number }[]>(
        "SELECT pg_try_advisory_lock($1::bigint) AS got, pg_backend_pid() AS pid",
        [key],
      ),
    );
    if (!row.got) return false;
    holder = row.pid;
    return true;
  };

  /**
   * Whether the lock is still held: the backend that took it is still ours
   * (a connection postgres.js opened again is a new backend, without it).
   * When not, takes it again.
   */
  const verify = async () => {
    if (holder !== null) {
      const [row] = await on(sql.unsafe<{ pid: number }[]>("SELECT pg_backend_pid() AS pid"));
      if (row.pid === holder) return;
      holder = null;
      o.logger.warn("liveness lock lost: its connection was opened again", {});
    }
    if (await take()) o.logger.info("liveness lock taken again", {});
  };
  function check() {
    if (closed || checking !== null) return;
    checking = verify()
      .catch(() => {}) // the database is away: the next check tries again
      .finally(() => {
        checking = null;
        // Lost: tried again soon, not at the next check (other instances may take its turns meanwhile).
        if (!closed && holder === null) retry ??= setTimeout(retake, RETAKE_EVERY_MS);
      });
  }
  let retry: ReturnType<typeof setTimeout> | null = null;
  function retake() {
    retry = null;
    check();
  }

  const started = Date.now();
  for (;;) {
    try {
      if (await take()) break;
    } catch (error) {
      if (Date.now() - started > ACQUIRE_WITHIN_MS) {
        await sql.end({ timeout: 0 });
        throw error;
      }
    }
    if (Date.now() - started > ACQUIRE_WITHIN_MS) {
      await sql.end({ timeout: 0 });
      throw new Error("the instance's liveness lock is held by another connection");
    }
    await sleep(ACQUIRE_RETRY_MS);
  }
  const timer = setInterval(check, LIVENESS_CHECK_EVERY_MS);

  return {
    key,
    get held() {
      return holder !== null;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      if (retry !== null) clearTimeout(retry);
      await checking;
      holder = null;
      await sql.end({ timeout: 5 });
    },
  };
}
