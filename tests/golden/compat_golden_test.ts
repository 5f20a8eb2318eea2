/**
 * Byte-identical decisions across surfaces (fixtures/compat_golden/*.json):
 * each case holds a named policy, an OpenAI Chat Completions request and the
 * native turn body a client would send for the same turn. The native preview
 * and the compatible turn (its trace's classification and routing) must both
 * give the bytes of the case's `expected`. `UPDATE_GOLDEN=1` rewrites
 * `expected` from the native preview, after checking that the compatible turn
 * agrees with it; read the diff. The suite runs under Deno and Bun against the
 * same files.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { call } from "../support/app.ts";
import { KEYS, recordedDecision } from "./recorded_decision.ts";
import { engineHarness } from "../support/engine_app.ts";
import { equivalentBody } from "../../src/surfaces/equivalent_body.ts";
import { openAiChatRequest } from "../../src/surfaces/openai_request.ts";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
const DIR = fileURLToPath(
  new URL("../../fixtures/compat_golden/", import.meta.url),
);

interface CompatCase {
  name: string;
  description: string;
  policy: Record<string, unknown>;
  /** The OpenAI body; its `model` names the case's policy as `switchyard/<name>`. */
  openai: Record<string, unknown>;
  /**
   * The equivalent native turn body (decisions.md §12), its `policy` left out (the case's
   * policy goes in): what `equivalentBody` makes of the OpenAI request.
   */
  native: Record<string, unknown>;
  expected?: { classification: unknown; routing: unknown };
}

const files = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort();
const cases = files.map((f) => ({
  file: `${DIR}${f}`,
  golden: JSON.parse(readFileSync(`${DIR}${f}`, "utf8")) as CompatCase,
}));

const h = engineHarness();

/** The decision as the native preview gives it: classification and routing, bytes in key order. */
async function nativeDecision(c: CompatCase): Promise<string> {
  const session = await h.session();
  const r = await call(h.app, "POST", `/api/v1/sessions/${session}/preview`, {
    token: h.alice.token,
    body: { ...c.native, policy: c.policy },
    headers: KEYS,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return JSON.stringify({
    classification: r.body.classification,
    routing: r.body.routing,
  });
}

/** The decision the compatible turn made, read back from its trace in the preview's shape. */
function compatDecision(c: CompatCase, native: string): Promise<string> {
  const order = Object.keys(JSON.parse(native).classification);
  return recordedDecision(h, c, order, "/v1/chat/completions", (openai) => openai);
}

describe("compatible and native decisions agree (fixtures/compat_golden)", () => {
  test("there are cases", () => assert.ok(cases.length >= 5));
  for (const { file, golden } of cases) {
    test(`${golden.name}: ${golden.description}`, async () => {
      const translated = openAiChatRequest({
        model: "switchyard",
        ...golden.openai,
      });
      const explicit = typeof golden.openai.model === "string" ? golden.openai.model : null;
      const body = equivalentBody(translated.messages, explicit);
      // A new case may leave `native` out for the update to write; a written one is checked.
      if (UPDATE && golden.native === undefined) {
        golden.native = body as unknown as Record<string, unknown>;
      }
      assert.deepEqual(
        body,
        golden.native,
        "the case's native body is not the equivalent one",
      );
      const native = await nativeDecision(golden);
      const compat = await compatDecision(golden, native);
      assert.equal(
        compat,
        native,
        "the compatible turn decided otherwise than the native preview",
      );
      if (UPDATE) {
        golden.expected = JSON.parse(native);
        writeFileSync(file, JSON.stringify(golden, null, 2) + "\n");
        return;
      }
      assert.equal(native, JSON.stringify(golden.expected));
      // Determinism: the same request again gives the same bytes.
      assert.equal(await compatDecision(golden, native), compat);
    });
  }
});
