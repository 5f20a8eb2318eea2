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
import { replayTurns } from "../../clients/typescript/src/decision.ts";
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
const turns = replayTurns(events).filter((t) => t.choices.length > 0);
const rendered = () => turns.map((t, i) => whyText(t, i + 1, turns.length)).join("\n");

describe("switchyard why on a recorded trace", () => {
  test("every turn renders as its golden text", async () => {
    assert.equal(turns.length, 4);
    await golden("why_session.txt", rendered());
  });

  test("the text names the chosen model, every fallback, every context item and every spend", () => {
    turns.forEach((turn, i) => {
      const text = whyText(turn, i + 1, turns.length);
      const data = whyData(turn, i + 1, turns.length);
      const chosen = turn.choices.at(-1)!;
      assert.match(text, new RegExp(`^model: +${chosen.provider}/${chosen.model}$`, "m"));
      for (const f of data.fallbacks) assert.ok(text.includes(`${f.model}: ${f.why}`), f.model);
      for (const c of chosen.included) assert.ok(text.includes(`+ ${c.kind} ${c.label}`), c.label);
      for (const c of chosen.excluded) assert.ok(text.includes(`- ${c.kind} ${c.label}`), c.label);
      for (const s of turn.spends) assert.ok(text.includes(`${s.inputTokens} in`), "tokens");
      // The same bytes every time: nothing in the rendering depends on the clock or the order of a map.
      assert.equal(whyText(replayTurns(events).filter((t) => t.choices.length)[i], i + 1, 4), text);
    });
    const fallback = whyData(turns[0], 1, 4).fallbacks;
    assert.deepEqual(fallback.map((f) => f.model), ["openai/gpt-4o-mini"]);
    assert.match(fallback[0].why, /failed \(provider_unavailable\)/);
  });

  test("the trace renders as its golden table, one row per event", async () => {
    const table = traceTable(events);
    await golden("trace_session.txt", table);
    const rows = table.split("\n").filter((line) => /^\d+ /.test(line));
    assert.equal(rows.length, events.length);
    const turnHeadings = table.split("\n").filter((line) => line.startsWith("-- turn "));
    assert.equal(turnHeadings.length, new Set(events.map((e) => e.trace_id)).size);
  });
});
