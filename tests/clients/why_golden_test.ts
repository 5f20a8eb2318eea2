/**
 * `switchyard why` and `switchyard trace` rendered from a recorded trace (a real run of the
 * service, fixtures/traces/why_session.json, made by tests/clients/why_trace_record.ts): the text
 * must be the bytes of the golden files beside it. `UPDATE_GOLDEN=1` rewrites them; review the
 * diff. Each golden is paired with invariants that hold whatever the wording.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import process from "node:process";
import { describe, test } from "node:test";
import { fallbacksTaken } from "../../clients/typescript/src/decision.ts";
import { sessionTurns } from "../../clients/typescript/src/turns.ts";
import type { TraceEvent } from "../../clients/typescript/src/types.ts";
import { traceTable } from "../../clients/typescript/src/cli/trace_table.ts";
import { whyData, whyText } from "../../clients/typescript/src/cli/why_text.ts";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
const FIXTURES = new URL("../../fixtures/traces/", import.meta.url);

async function golden(name: string, actual: string): Promise<void> {
  const url = new URL(name, FIXTURES);
  if (UPDATE) await writeFile(url, actual);
  assert.equal(actual, await readFile(url, "utf8"), `${name} differs from the rendered text`);
}

const { events } = JSON.parse(
  await readFile(new URL("why_session.json", FIXTURES), "utf8"),
) as { events: TraceEvent[] };
const turns = sessionTurns(events);
const rendered = () => turns.map((t) => whyText(t, turns.length)).join("\n");

describe("switchyard why on a recorded trace", () => {
  test("every turn renders as its golden text", async () => {
    assert.equal(turns.length, 3);
    await golden("why_session.txt", rendered());
  });

  test("a prompt answered after a tool call is one turn: two model calls, the tool call between", () => {
    const review = turns[1];
    assert.deepEqual(review.steps.map((s) => s.kind), ["model_call", "tool_call", "model_call"]);
    assert.equal(review.traceIds.length, 2);
    const tool = review.tools[0];
    assert.equal(tool.label, "read_file docs/q3.md");
    assert.deepEqual(tool.arguments, { path: "docs/q3.md" });
    assert.equal(tool.status, "completed");
    // The turn's cost is the exact sum of its calls': 0.0000078 + 0.00036.
    assert.deepEqual(review.calls.map((c) => c.spends[0].cost), ["0.0000078", "0.00036"]);
    assert.equal(review.cost, "0.0003678");
    assert.equal(review.inputTokens, 24 + 1200);
    const text = whyText(review, turns.length);
    assert.match(text, /^turn 2 of 3 · 2 model calls · /);
    assert.match(text, /^model call 1 of 2 · trace [0-9a-f-]{36}$/m);
    assert.match(text, /^tool call: +read_file docs\/q3\.md \(completed\)$/m);
    // The second call's context names the call by what it did, not by its id.
    assert.match(text, /\+ tool_call read_file docs\/q3\.md \(required\)$/m);
    assert.ok(
      text.indexOf("model call 1 of 2") < text.indexOf("tool call:") &&
        text.indexOf("tool call:") < text.indexOf("model call 2 of 2"),
      "the tool call reads between the two model calls",
    );
    assert.match(text, /^total: +1224 in, 307 out, 0\.0003678 USD \(2 model calls\)$/m);
  });

  test("the text names the chosen model, every fallback, every context item and every spend", () => {
    turns.forEach((turn) => {
      const text = whyText(turn, turns.length);
      for (const call of turn.calls) {
        const chosen = call.choices.at(-1)!;
        assert.match(text, new RegExp(`^model: +${chosen.provider}/${chosen.model}$`, "m"));
        for (const f of fallbacksTaken(call)) assert.ok(text.includes(`${f.model}: ${f.why}`));
        for (const c of chosen.included) {
          assert.ok(text.includes(`+ ${c.kind} ${c.label}`), c.label);
        }
        for (const c of chosen.excluded) {
          assert.ok(text.includes(`- ${c.kind} ${c.label}`), c.label);
        }
        for (const s of call.spends) assert.ok(text.includes(`${s.inputTokens} in`), "tokens");
      }
      // The same bytes every time: nothing in the rendering depends on the clock or the order of a map.
      assert.equal(whyText(sessionTurns(events)[turn.number - 1], 3), text);
    });
    const data = whyData(turns[0], 3);
    assert.deepEqual(data.calls[0].fallbacks.map((f) => f.model), ["openai/gpt-4o-mini"]);
    assert.match(data.calls[0].fallbacks[0].why, /failed \(provider_unavailable\)/);
  });

  test("the trace renders as its golden table, one row per event", async () => {
    const table = traceTable(events, 1, turns);
    await golden("trace_session.txt", table);
    const rows = table.split("\n").filter((line) => /^\d+ /.test(line));
    assert.equal(rows.length, events.length);
    const headings = table.split("\n").filter((line) => line.startsWith("-- turn "));
    assert.equal(headings.length, new Set(events.map((e) => e.trace_id)).size);
    assert.match(table, /^-- turn 2 · model call 2 of 2 · trace [0-9a-f-]{36} · 2026-01-01$/m);
    assert.match(table, /tool_call +openai\/gpt-4o-mini +read_file docs\/q3\.md requested$/m);
  });
});
