/**
 * Group commit: an instance's one writer of turn ends. Every turn that
 * finishes while the writer's previous write is in flight waits for the next
 * one, and that write carries all of them in one transaction of multi-row
 * statements (migration 009, `switchyard_write_turns`). A turn is answered
 * when its transaction commits, so nothing acknowledged is lost in a crash.
 * Nothing waits for a timer: a turn that finds the writer free is written at
 * once, alone, and under load the batches grow by themselves with the time a
 * write takes. One commit (one WAL flush) then serves many turns. The writer
 * shares its instance's lane with the claims (store_lane.ts): a batch also
 * waits for a claim batch in flight.
 *
 * A batch that fails is rolled back as a whole, and its turns are written
 * again one by one, so one turn's bad record fails that turn alone. Savepoints
 * per turn would do the same without the second attempt, but each would be a
 * subtransaction with an id of its own on every turn, and past 64 of them a
 * transaction's snapshot overflows for every other session of the server: a
 * cost on every batch to spare a rare failure. A batch that loses a deadlock
 * or serialization failure (another transaction locking the same sessions in
 * another order) was rolled back whole as well: its turns go again one by
 * one, and a turn alone that loses one is tried again a few times
 * (conflict_retry.ts). Any other storage fault (the database gone, a
 * statement past its deadline) is not retried: whether the batch committed
 * is then unknown, and every turn of it gets the fault, as it would have
 * alone.
 */
import { ServiceError } from "../core/errors.ts";
import { settleCalls } from "./budgets.ts";
import { retryOnConflict } from "./conflict_retry.ts";
import type { Queryable } from "./db.ts";
import { isStorageConflict } from "./storage_fault.ts";
import { type StoreLane, storeLane } from "./store_lane.ts";
import {
  type RunMove,
  turnDocument,
  type TurnExtras,
  type TurnRecords,
  turnWriteStatement,
  type TurnWritten,
} from "./turn_writes.ts";

export interface TurnWriter {
  /** Writes a turn's records and its transition; resolves once they are committed. */
  write(move: RunMove | null, records: TurnRecords): Promise<TurnWritten>;
}

interface Pending {
  /** The turn's document as JSON text, made when the turn hands it in. */
  text: string;
  /** What the same statement writes beside it: conversations answered, calls settled. */
  extras: TurnExtras;
  resolve(written: TurnWritten): void;
  reject(error: unknown): void;
}

/** A batch stops growing at this many turns or this much JSON, whichever comes first. */
export const MAX_BATCH_TURNS = 128;
export const MAX_BATCH_CHARS = 4 * 1024 * 1024;

type Answer = { moved: boolean; message_seqs: number[] };

/**
 * A turn that goes alone takes the single write (migration 004, as 010 left
 * it): the group write of one turn costs the server about twice its CPU.
 */
async function writeAll(db: Queryable, batch: readonly Pending[]): Promise<Answer[]> {
  const statement = turnWriteStatement(batch.length === 1, {
    conversations: batch.flatMap((p) => p.extras.conversations),
    settlements: batch.flatMap((p) => p.extras.settlements),
    responses: batch.flatMap((p) => p.extras.responses ?? []),
  });
  if (batch.length === 1) {
    const rows = await db.query<{ w: Answer }>(statement.text, [batch[0].text, ...statement.extra]);
    return [rows[0].w];
  }
  const rows = await db.query<{ w: Answer[] }>(statement.text, [
    `[${batch.map((p) => p.text).join(",")}]`,
    ...statement.extra,
  ]);
  return rows[0].w;
}

const written = (a: Answer): TurnWritten => ({ moved: a.moved, messageSeqs: a.message_seqs });

/**
 * One turn alone, again while it loses a deadlock or serialization failure (a
 * few times). A turn whose write fails (its session deleted under it, a bad
 * record) keeps nothing, but its calls were made: their costs still reach the
 * budget ledger, which outlives sessions, before the turn hears of the failure.
 * A settlement is idempotent, so one the failed write did commit is harmless.
 */
const writeAlone = (db: Queryable, p: Pending) =>
  retryOnConflict(() => writeAll(db, [p])).then(
    (a) => p.resolve(written(a[0])),
    async (error: unknown) => {
      await settleCalls(db, p.extras.settlements).catch(() => {});
      p.reject(error);
    },
  );

async function writeBatch(db: Queryable, batch: readonly Pending[]): Promise<void> {
  if (batch.length === 1) return await writeAlone(db, batch[0]);
  let answers: Answer[];
  try {
    answers = await writeAll(db, batch);
  } catch (error) {
    if (error instanceof ServiceError && !isStorageConflict(error)) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) await writeAlone(db, p);
    return;
  }
  batch.forEach((p, k) => p.resolve(written(answers[k])));
}

/** The writer of the instance whose store is `db`. */
export function turnWriter(db: Queryable, lane: StoreLane = storeLane()): TurnWriter {
  const pending: Pending[] = [];
  let busy = false;
  const take = (): Pending[] => {
    let chars = 0;
    let n = 0;
    while (n < pending.length && n < MAX_BATCH_TURNS) {
      chars += pending[n].text.length;
      if (n > 0 && chars > MAX_BATCH_CHARS) break;
      n++;
    }
    return pending.splice(0, n);
  };
  const run = async () => {
    busy = true;
    try {
      // Taken when the lane is free: what ended while a claim batch was in flight goes too.
      while (pending.length > 0) await lane.run(() => writeBatch(db, take()));
    } finally {
      busy = false;
    }
  };
  return {
    write(move, records) {
      return new Promise<TurnWritten>((resolve, reject) => {
        pending.push({
          text: JSON.stringify(turnDocument(move, records)),
          extras: {
            conversations: records.conversations ?? [],
            settlements: records.settlements ?? [],
            responses: records.responses ?? [],
          },
          resolve,
          reject,
        });
        if (!busy) void run();
      });
    },
  };
}
