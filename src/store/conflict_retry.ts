/**
 * A statement that is its own transaction and lost a deadlock or a
 * serialization failure (storage_fault.ts `isStorageConflict`) was rolled back
 * whole, so it goes again, a few times, after a short wait. Only the
 * batch writers' lone statements use it (run_admission.ts claims,
 * turn_writer.ts turn ends): a statement inside a caller's transaction cannot
 * go again alone, the transaction being aborted.
 *
 * The waits have no jitter. In a deadlock PostgreSQL aborts one side only,
 * and the other goes on holding its locks until it commits: the retry waits
 * for those locks in the queue, in order, whatever its delay. The delays
 * only keep a retry from meeting the same statements again at once; three
 * of them (70 ms in all) stay well under what a turn takes.
 */
import { isStorageConflict } from "./storage_fault.ts";

/** The wait before each further attempt: three retries after the first attempt. */
export const CONFLICT_RETRY_DELAYS_MS: readonly number[] = [10, 20, 40];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `attempt` again while it fails with a conflict, at most once per delay; any
 * other failure, and the conflict after the last retry, is thrown as it came.
 */
export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  delays: readonly number[] = CONFLICT_RETRY_DELAYS_MS,
): Promise<T> {
  for (let tried = 0;; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= delays.length || !isStorageConflict(error)) throw error;
      await sleep(delays[tried]);
    }
  }
}
