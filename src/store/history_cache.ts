/**
 * The messages of plaintext sessions this instance has read, so that a turn
 * or a preview reads from the database only the messages that came after
 * (migration 007, `switchyard_history`). Only a cache: a read names the last
 * message held, by `seq` and `id`, and the database answers with the whole
 * history when that message is not there. A plaintext session's messages are
 * never changed once written and their `seq`s commit in order, so the messages
 * held and the ones read after them are the session's history, whichever
 * instance wrote them. Bounded by the size of the text held, least recently
 * read first out.
 */
import type { HistoryItem, HistoryRead } from "./run_admission.ts";

/** What a read may skip: the messages held for a session, up to `seq` (0: none). */
export interface HistoryMark {
  seq: number;
  id: string | null;
  items: readonly HistoryItem[];
  size: number;
}

const NOTHING_HELD: HistoryMark = { seq: 0, id: null, items: [], size: 0 };

/** About 16 MB of message text. */
const DEFAULT_BUDGET = 16 * 1024 * 1024;

/** A message's weight: its text, plus what holding any message costs. */
function weight(item: HistoryItem): number {
  const text = item.content.plaintext;
  return 64 + (typeof text === "string" ? text.length : 256);
}

export class HistoryCache {
  #held = new Map<string, HistoryMark>();
  #size = 0;

  constructor(readonly budget = DEFAULT_BUDGET) {}

  /** The messages held for `sessionId`, to name in the next read. */
  mark(sessionId: string): HistoryMark {
    return this.#held.get(sessionId) ?? NOTHING_HELD;
  }

  /**
   * The session's history from a read that named `mark`; with `keep` (a
   * plaintext session), held for the next read.
   */
  history(
    sessionId: string,
    mark: HistoryMark,
    read: HistoryRead,
    keep: boolean,
  ): readonly HistoryItem[] {
    const found = read.after > 0 && read.after === mark.seq;
    const base = found ? mark : NOTHING_HELD;
    const fresh = read.rows.map(([seq, role, content, constrained, _, runId]): HistoryItem => ({
      seq,
      run_id: runId,
      role,
      content,
      constrained,
    }));
    const items = fresh.length === 0 ? base.items : base.items.concat(fresh);
    const last = read.rows.at(-1);
    // The mark's message is gone (another database behind the same URL): nothing held stands.
    if (mark.seq > 0 && !found) this.#drop(sessionId);
    if (keep && items.length > 0) {
      this.#keep(sessionId, {
        seq: items[items.length - 1].seq,
        id: last === undefined ? base.id : last[4],
        items,
        size: fresh.reduce((sum, item) => sum + weight(item), base.size),
      });
    }
    return items;
  }

  #drop(sessionId: string): void {
    const held = this.#held.get(sessionId);
    if (held === undefined) return;
    this.#held.delete(sessionId);
    this.#size -= held.size;
  }

  #keep(sessionId: string, next: HistoryMark): void {
    // A read that raced a longer one keeps the longer.
    if ((this.#held.get(sessionId)?.seq ?? 0) > next.seq) return;
    this.#drop(sessionId);
    if (next.size > this.budget) return;
    this.#held.set(sessionId, next);
    this.#size += next.size;
    for (const [oldest, mark] of this.#held) {
      if (this.#size <= this.budget) break;
      this.#held.delete(oldest);
      this.#size -= mark.size;
    }
  }
}
