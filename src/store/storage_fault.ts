import { failure, ServiceError } from "../core/errors.ts";
import { DEADLINE_CODE } from "./statement_deadline.ts";

/**
 * Which driver errors mean "the database is not there right now" rather than
 * "this statement is wrong": they are answered 502 `storage_error` (the code
 * interface.md gives storage), never 500, and the next request simply tries
 * again on a fresh connection.
 */

/**
 * postgres.js's own connection codes, the socket errors it passes through, and
 * a statement the server did not answer in time (statement_deadline.ts).
 */
const CONNECTION_CODES = new Set([
  DEADLINE_CODE,
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server going away or refusing for a while: class 08
 * (connection exception), 53 (insufficient resources, e.g. too many
 * connections), 57P01-57P03 (admin or crash shutdown, cannot connect now),
 * 57014 (a statement cancelled, e.g. by statement_timeout), and 40001/40P01
 * (serialization failure, deadlock), which a retry may pass.
 */
function isTransientSqlState(code: string): boolean {
  return /^(08|53)/.test(code) || /^57P0[123]$/.test(code) ||
    ["57014", "40001", "40P01"].includes(code);
}

export function isStorageFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (CONNECTION_CODES.has(code) || isTransientSqlState(code));
}

/**
 * PostgreSQL's disk_full (53100: "could not extend file", "could not write to
 * file … No space left on device"), and the host's ENOSPC where a file system
 * call reports it as such.
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "53100" || code === "ENOSPC";
}

/** The storage_error a full disk answers: what failed, and that freeing space is what helps. */
export const DISK_FULL_MESSAGE =
  "storage full: the store is out of disk space, try again once space is freed";

/** SQLSTATEs of a statement that lost to a concurrent one: deadlock, serialization failure. */
const CONFLICT_SQLSTATES = new Set(["40P01", "40001"]);

/** The storage_error a deadlock or serialization failure answers once no retry passed. */
export const CONFLICT_MESSAGE =
  "storage conflict: a concurrent statement won a deadlock or serialization failure, try again";

/**
 * A deadlock or serialization failure: answered `storage_error` like any
 * fault, but told apart from an outage. The server rolled the statement's
 * transaction back, so nothing of it committed and a statement that was its
 * own transaction may go again (conflict_retry.ts); after a lost connection or
 * a statement past its deadline, whether it committed is unknown.
 */
export class StorageConflict extends ServiceError {
  constructor() {
    super(failure("storage_error", CONFLICT_MESSAGE));
  }
}

/** Whether `error` is a deadlock or serialization failure, raw from a driver or as rethrown below. */
export function isStorageConflict(error: unknown): boolean {
  if (error instanceof StorageConflict) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && CONFLICT_SQLSTATES.has(code);
}

/**
 * Rethrows a storage fault as `storage_error` (what failed, never the query or
 * its parameters): a conflict as a `StorageConflict`, so the batch writers can
 * try it again.
 */
export function rethrowStorageFault(error: unknown): never {
  if (isDiskFull(error)) throw ServiceError.of("storage_error", DISK_FULL_MESSAGE);
  if (isStorageConflict(error)) throw new StorageConflict();
  if (isStorageFault(error)) {
    throw ServiceError.of("storage_error", "storage unavailable: try again shortly");
  }
  throw error;
}
