import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HistoryCache } from "../../src/store/history_cache.ts";
import type { HistoryRead } from "../../src/store/run_admission.ts";

/**
 * `switchyard_history`'s answer: messages `from`…`to` after `after`, each text
 * `text`, a prompt and its reply to each run.
 */
function read(after: number, from: number, to: number, text = "x"): HistoryRead {
  const rows: HistoryRead["rows"] = [];
  for (let seq = from; seq <= to; seq++) {
    const role = seq % 2 === 1 ? "user" : "assistant";
    rows.push([seq, role, { plaintext: text }, false, `id-${seq}`, `run-${(seq + 1) >> 1}`]);
  }
  return { after, rows };
}

const seqs = (items: readonly { seq: number }[]) => items.map((m) => m.seq);

describe("history cache", () => {
  test("a read after the mark extends what is held; the mark names the last message", () => {
    const cache = new HistoryCache();
    const first = cache.mark("s");
    assert.deepEqual([first.seq, first.id, first.items.length], [0, null, 0]);
    assert.deepEqual(seqs(cache.history("s", first, read(0, 1, 3), true)), [1, 2, 3]);
    const second = cache.mark("s");
    assert.deepEqual([second.seq, second.id], [3, "id-3"]);
    const whole = cache.history("s", second, read(3, 4, 5), true);
    assert.deepEqual(seqs(whole), [1, 2, 3, 4, 5]);
    assert.deepEqual(whole[3], {
      seq: 4,
      run_id: "run-2",
      role: "assistant",
      content: { plaintext: "x" },
      constrained: false,
    });
    // Nothing new: the mark stands, its id too.
    const third = cache.mark("s");
    assert.deepEqual(seqs(cache.history("s", third, read(5, 1, 0), true)), [1, 2, 3, 4, 5]);
    assert.deepEqual([cache.mark("s").seq, cache.mark("s").id], [5, "id-5"]);
  });

  test("when the database did not find the mark's message, its whole answer is the history", () => {
    const cache = new HistoryCache();
    cache.history("s", cache.mark("s"), read(0, 1, 4), true);
    const replaced = cache.history("s", cache.mark("s"), read(0, 1, 2, "other"), true);
    assert.deepEqual(seqs(replaced), [1, 2]);
    assert.equal(replaced[0].content.plaintext, "other");
    assert.deepEqual([cache.mark("s").seq, cache.mark("s").id], [2, "id-2"]);
  });

  test("a session that is not kept (sealed) is read whole every time", () => {
    const cache = new HistoryCache();
    assert.deepEqual(seqs(cache.history("sealed", cache.mark("sealed"), read(0, 1, 2), false)), [
      1,
      2,
    ]);
    assert.equal(cache.mark("sealed").seq, 0);
  });

  test("of two reads that raced, the longer history stays", () => {
    const cache = new HistoryCache();
    const mark = cache.mark("s");
    cache.history("s", mark, read(0, 1, 6), true);
    assert.deepEqual(seqs(cache.history("s", mark, read(0, 1, 4), true)), [1, 2, 3, 4]);
    assert.equal(cache.mark("s").seq, 6);
  });

  test("past its budget the least recently read sessions go first; one too large is not held", () => {
    // Each message weighs 64 + its text: 100 characters make 164.
    const text = "y".repeat(100);
    const cache = new HistoryCache(164 * 6);
    for (const id of ["a", "b", "c"]) cache.history(id, cache.mark(id), read(0, 1, 2, text), true);
    // Reading "a" again makes "b" the least recently read.
    cache.history("a", cache.mark("a"), read(2, 3, 2), true);
    cache.history("d", cache.mark("d"), read(0, 1, 2, text), true);
    assert.deepEqual(["a", "b", "c", "d"].map((id) => cache.mark(id).seq), [2, 0, 2, 2]);
    cache.history("big", cache.mark("big"), read(0, 1, 7, text), true);
    assert.equal(cache.mark("big").seq, 0);
    assert.deepEqual(["a", "c", "d"].map((id) => cache.mark(id).seq), [2, 2, 2]);
  });
});
