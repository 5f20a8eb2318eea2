/**
 * The client's side of a statement deadline. The server cancels a statement
 * that runs longer than `statement_timeout` by itself, but a server that has
 * stopped answering (a stalled host, a path that drops packets) never says so,
 * and postgres.js would wait on its connection for ever. So every statement is
 * also given up on by the client, a little after the server would have
 * cancelled it, and the caller decides what becomes of the connection.
 */

/** What `storage_fault.ts` recognises as a statement given up at its deadline. */
export const DEADLINE_CODE = "STATEMENT_DEADLINE";

/** A statement the server did not answer in time. Carries no query text or parameters. */
export class StatementDeadline extends Error {
  override readonly name = "StatementDeadline";
  readonly code = DEADLINE_CODE;
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/**
 * How long the client waits: the server's deadline plus the time for its
 * cancellation to arrive (a quarter of the deadline, at most half a second),
 * so a server that is alive answers first and keeps its connection.
 */
export function clientDeadlineMs(statementTimeoutMs: number): number {
  return statementTimeoutMs + Math.min(statementTimeoutMs / 4, 500);
}

/**
 * `pending`, unless `ms` pass first: then `expired` runs (to discard the
 * connection) and the answer is a `StatementDeadline`. One timer per statement.
 */
export function withinDeadline<T>(
  pending: PromiseLike<T>,
  ms: number,
  expired: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new StatementDeadline(ms));
      expired();
    }, ms);
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * A deadline that is armed only while the client waits on statements it does
 * not send itself (a transaction's BEGIN, COMMIT or ROLLBACK): `tripped`
 * rejects with a `StatementDeadline` when an armed period lasts `ms`.
 */
export interface Watchdog {
  arm(): void;
  disarm(): void;
  readonly tripped: Promise<never>;
}

export function watchdog(ms: number, expired: () => void): Watchdog {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let trip!: (error: StatementDeadline) => void;
  const tripped = new Promise<never>((_, reject) => trip = reject);
  return {
    arm() {
      clearTimeout(timer);
      timer = setTimeout(() => {
        trip(new StatementDeadline(ms));
        expired();
      }, ms);
    },
    disarm: () => clearTimeout(timer),
    tripped,
  };
}
