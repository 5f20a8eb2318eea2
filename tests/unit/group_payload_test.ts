import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { TraceEventType } from "../../src/store/traces.ts";
import { groupPayload, traceRows } from "../../src/store/turn_writes.ts";

/** What traces.ts reads back from a grouped payload: each entry, a series unfolded. */
function unfolded(
  grouped: ReturnType<typeof groupPayload>,
): Record<string, unknown>[] {
  return grouped.each.flatMap((own) => {
    const { $series, $from, $to, ...rest } = own;
    if (typeof $series !== "string") return [{ ...grouped.plaintext, ...own }];
    const [from, to] = [$from as number, $to as number];
    const step = to < from ? -1 : 1;
    return Array.from(
      { length: Math.abs(to - from) + 1 },
      (_, i) => ({
        ...grouped.plaintext,
        ...rest,
        [$series]: String(from + i * step),
      }),
    );
  });
}

const message = (label: string, included = true, reason = "within budget") => ({
  type: "context_selection",
  path: null,
  kind: "message",
  label,
  included,
  reason,
});

describe("a run of trace payloads grouped into one row", () => {
  test("a deep history's selection takes one entry per counting run, at any depth", () => {
    const payloads = [
      ...Array.from({ length: 300 }, (_, i) => message(String(399 - i))),
      ...Array.from(
        { length: 100 },
        (_, i) => message(String(99 - i), false, "over budget"),
      ),
    ];
    const grouped = groupPayload(payloads);
    assert.deepEqual(grouped.plaintext, {
      type: "context_selection",
      path: null,
      kind: "message",
    });
    assert.deepEqual(grouped.each, [
      {
        included: true,
        reason: "within budget",
        $series: "label",
        $from: 399,
        $to: 100,
      },
      {
        included: false,
        reason: "over budget",
        $series: "label",
        $from: 99,
        $to: 0,
      },
    ]);
    assert.deepEqual(unfolded(grouped), payloads);
  });

  test("counting up, and a run broken by a gap, a repeat or another field", () => {
    const payloads = [
      message("7"),
      message("8"),
      message("9"),
      message("11"), // a gap: a new run starts
      message("12"),
      message("13"),
      message("13"), // a repeat
      message("14", false), // another field changes too
      message("15", false),
      message("16", false),
    ];
    const grouped = groupPayload(payloads);
    assert.deepEqual(
      grouped.each.map((e) => [e.$from ?? e.label, e.$to ?? null]),
      [
        [7, 9],
        [11, 13],
        ["13", null],
        [14, 16],
      ],
    );
    assert.deepEqual(unfolded(grouped), payloads);
  });

  test("only whole numbers written plainly count; short runs and other shapes stay as they are", () => {
    const cases: Record<string, unknown>[][] = [
      [message("1"), message("2")], // two: no shorter as a series
      [message("01"), message("02"), message("03")], // leading zeros would not read back
      [message("-1"), message("0"), message("1")],
      [message("1.5"), message("2.5"), message("3.5")],
      [message("1e3"), message("1001"), message("1002")],
      [message("9999999999"), message("10000000000"), message("10000000001")], // past int4
      [{ n: 1 }, { n: 2 }, { n: 3 }], // numbers, not text: nothing to fold
      [{ $from: "1" }, { $from: "2" }, { $from: "3" }], // a field that would read as ours
      [{ label: "1", extra: 1 }, { label: "2" }, { label: "3" }], // fields differ
      [{ label: "1" }, { label: "2", extra: 1 }, { label: "3", extra: 1 }],
      [{ label: "1", a: [1] }, { label: "2", a: [1] }, { label: "3", a: [1] }], // nested
    ];
    for (const payloads of cases) {
      const grouped = groupPayload(payloads);
      assert.ok(
        grouped.each.every((e) => !("$series" in e)),
        JSON.stringify(payloads),
      );
      assert.deepEqual(unfolded(grouped), payloads);
    }
    const three = groupPayload([message("1"), message("2"), message("3")]);
    assert.deepEqual(three.each, [
      { $series: "label", $from: 1, $to: 3 },
    ]);
  });

  test("any sequence of payloads reads back exactly, and only runs of three or more fold", () => {
    // A fixed-seed generator: runs up and down, gaps, repeats, fields that come and go.
    let seed = 20261125;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const payloads: Record<string, unknown>[] = [];
      let label = next(20);
      for (let i = 0, length = 1 + next(25); i < length; i++) {
        label = Math.max(0, label + [1, -1, 1, -1, 0, 2, 5][next(7)]);
        const payload: Record<string, unknown> = {
          type: "context_selection",
          label: String(label),
        };
        if (next(4) === 0) payload.included = next(2) === 0;
        if (next(6) === 0) {
          payload.reason = ["over budget", "within budget"][next(2)];
        }
        if (next(15) === 0) payload.$to = "x";
        if (next(15) === 0) payload.label = `0${label}`;
        payloads.push(payload);
      }
      const grouped = groupPayload(payloads);
      assert.deepEqual(unfolded(grouped), payloads, JSON.stringify(payloads));
      for (const e of grouped.each) {
        if (typeof e.$series !== "string") continue;
        assert.ok(
          Math.abs((e.$to as number) - (e.$from as number)) >= 2,
          JSON.stringify(e),
        );
      }
    }
  });
});

describe("a turn's trace events as rows", () => {
  const base = {
    sessionId: "s1",
    traceId: "t1",
    taskType: "chat",
    provider: "openai",
    model: "gpt-4o",
    now: new Date("2026-01-01T00:00:00.000Z"),
  };
  const event = (
    eventType: TraceEventType,
    plaintext: Record<string, unknown>,
    more = {},
  ) => ({
    ...base,
    eventType,
    payload: { plaintext },
    ...more,
  });

  test("a turn's events are one row: its first event's columns, the others' own in `$event`", () => {
    const rows = traceRows([
      event("classification", { intent: "chat" }, { matchedRule: null }),
      event("routing_decision", { model: "gpt-4o" }, { matchedRule: "fast" }),
      event("context_selection", { label: "3" }),
      event("context_selection", { label: "2" }),
      event("context_selection", { label: "1" }),
      event("cost", { cost: "0.1" }, {
        now: new Date("2026-01-01T00:00:01.000Z"),
      }),
      event("message", { role: "assistant", seq: 0 }, {
        messageIndex: 1,
        provider: null,
      }),
    ]);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row.event_type, "classification");
    assert.deepEqual(row.matched_rule, { v: null });
    assert.equal(row.message_index, 1);
    assert.equal(
      row.message_entry,
      4,
      "the message's entry, after the folded selection",
    );
    assert.deepEqual(row.payload, {
      plaintext: {},
      each: [
        { intent: "chat" },
        {
          model: "gpt-4o",
          $event: {
            event_type: "routing_decision",
            matched_rule: { v: "fast" },
          },
        },
        {
          $series: "label",
          $from: 3,
          $to: 1,
          $event: { event_type: "context_selection", matched_rule: null },
        },
        {
          cost: "0.1",
          $event: {
            event_type: "cost",
            matched_rule: null,
            created_at: "2026-01-01T00:00:01.000Z",
          },
        },
        {
          role: "assistant",
          seq: 0,
          $event: { event_type: "message", provider: null, matched_rule: null },
        },
      ],
    });
  });

  test("a second message, another session or turn, a sealed payload or one with a field named like ours starts a row", () => {
    const at = (eventType: TraceEventType, more = {}) => event(eventType, { n: "x" }, more);
    const rows = traceRows([
      at("message", { messageIndex: 0 }),
      at("cost"),
      at("message", { messageIndex: 1 }),
      at("cost", { sessionId: "s2" }),
      at("cost", { sessionId: "s2", traceId: "t2" }),
      { ...at("message"), payload: { encrypted: { ciphertext: "x" } } },
      at("cost"),
      event("tool_call", { $series: "n" }),
      at("cost"),
      at("cost"),
    ]);
    // Each row: its first event's type, how many entries it holds, and the message it describes.
    const shape = (r: (typeof rows)[number]) =>
      `${r.event_type} ${(r.payload.each as unknown[] | undefined)?.length ?? 1} ` +
      `${r.message_index ?? "-"}@${r.message_entry ?? "-"}`;
    assert.deepEqual(rows.map(shape), [
      "message 2 0@0",
      "message 1 1@-",
      "cost 1 -@-",
      "cost 1 -@-",
      "message 1 -@-",
      "cost 1 -@-",
      "tool_call 1 -@-",
      "cost 2 -@-",
    ]);
  });
});
