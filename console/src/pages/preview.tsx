import { useEffect, useState } from "preact/hooks";
import { api, describeError, type Schemas } from "../api.ts";
import { money } from "../format.ts";
import { SessionPicker } from "../components/session_picker.tsx";

type Preview = Schemas["PreviewResponse"];

const INTENTS: Schemas["TaskIntent"][] = [
  "chat",
  "plan",
  "edit",
  "review",
  "summarize",
  "prompt",
  "skill",
];

const EXAMPLE_POLICY = {
  version: 1,
  source: "console",
  classification: {
    default_intent: "chat",
    rules: [{ intent: "review", keywords: ["review"] }],
  },
  routing: {
    default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] },
    rules: [{ name: "reviews", intent: "review", model: "openai/gpt-4o" }],
  },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};

const EXAMPLE_ATTACHMENTS = { files: [], instructions: [] };

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

function parseJson(label: string, text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: `${label} is not valid JSON: ${(e as Error).message}` };
  }
}

function Result({ result, before }: { result: Preview; before: Preview | null }) {
  const { classification: c, routing: r, estimated_cost: cost } = result;
  const costChanged = before !== null &&
    (before.estimated_cost.min !== cost.min || before.estimated_cost.max !== cost.max);
  return (
    <section class="decision" aria-labelledby="preview-result">
      <h2 id="preview-result">Decision</h2>
      <dl class="facts">
        <dt>Classification</dt>
        <dd>
          <strong>{c.intent}</strong> · {c.source}
          {c.confidence && ` · confidence ${c.confidence}`}
          <div class="reason">{c.reason}</div>
        </dd>
        <dt>Routing</dt>
        <dd>
          <strong class="chosen-model">{r.provider}/{r.model}</strong>
          {r.matched_rule !== null && ` by rule '${r.matched_rule}'`}
          {r.override_used && " · explicit override"}
          {r.fallback_used && " · fallback used"}
          <div class="reason">{r.reason}</div>
        </dd>
        <dt>Cost range</dt>
        <dd class="cost-range">
          {money(cost.min, cost.currency)} – {money(cost.max, cost.currency)}
          {costChanged && (
            <span class="changed">
              {` (was ${before!.estimated_cost.min} – ${before!.estimated_cost.max})`}
            </span>
          )}
        </dd>
        <dt>Permissions</dt>
        <dd>
          {result.required_permissions.length === 0
            ? "none named"
            : result.required_permissions.map((p) => `${p.permission}: ${p.mode}`).join(", ")}
        </dd>
      </dl>
      <div class="context-columns">
        <div>
          <h4>Context included ({result.included_context.length})</h4>
          <ul class="context">{result.included_context.map((c) => <li key={c}>{c}</li>)}</ul>
        </div>
        <div>
          <h4>Context excluded ({result.excluded_context.length})</h4>
          <ul class="context">{result.excluded_context.map((c) => <li key={c}>{c}</li>)}</ul>
        </div>
      </div>
    </section>
  );
}

function JsonField(
  { label, rows, value, onInput }: {
    label: string;
    rows: number;
    value: string;
    onInput: (text: string) => void;
  },
) {
  return (
    <label>
      {label}
      <textarea
        class="code"
        rows={rows}
        spellcheck={false}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
    </label>
  );
}

/** Edit a turn body and see the routing decision and cost range, without calling a model. */
export function PreviewPage({ sessionId }: { sessionId?: string }) {
  const [text, setText] = useState("Summarise the latest changes.");
  const [command, setCommand] = useState<Schemas["TaskIntent"] | "">("");
  const [explicitModel, setExplicitModel] = useState("");
  const [policy, setPolicy] = useState(pretty(EXAMPLE_POLICY));
  const [attachments, setAttachments] = useState(pretty(EXAMPLE_ATTACHMENTS));
  const [result, setResult] = useState<Preview | null>(null);
  const [before, setBefore] = useState<Preview | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const run = async () => {
    if (!sessionId) return;
    const p = parseJson("The policy", policy);
    const a = parseJson("The attachments", attachments);
    if (p.error || a.error) return setError((p.error ?? a.error)!);
    setBusy(true);
    try {
      const answer = await api("post", "/api/v1/sessions/{session_id}/preview", {
        params: { session_id: sessionId },
        withProviderKeys: true,
        body: {
          input: { text, command: command || null, explicit_model: explicitModel.trim() || null },
          policy: p.value as Schemas["Policy"],
          attachments: a.value as Schemas["Attachments"],
        },
      });
      setBefore(result);
      setResult(answer);
      setError("");
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  // Every edit previews again once typing pauses.
  useEffect(() => {
    const timer = setTimeout(run, 400);
    return () => clearTimeout(timer);
  }, [sessionId, text, command, explicitModel, policy, attachments]);

  return (
    <>
      <h1>Preview playground</h1>
      <p class="hint">
        Routing as <code>POST …/preview</code>{" "}
        decides it: no model is called, nothing is spent or stored. Provider keys typed on the
        Models page are sent along.
      </p>
      <div class="preview-layout">
        <form
          class="preview-form"
          onSubmit={(e) => {
            e.preventDefault();
            run();
          }}
        >
          <SessionPicker section="preview" sessionId={sessionId} />
          <label>
            Prompt
            <textarea rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <div class="row">
            <label>
              Command (forces the intent)
              <select
                value={command}
                onChange={(e) => setCommand(e.currentTarget.value as Schemas["TaskIntent"] | "")}
              >
                <option value="">none: classify the prompt</option>
                {INTENTS.map((i) => <option key={i} value={i}>{i}</option>)}
              </select>
            </label>
            <label>
              Explicit model (provider/model)
              <input
                value={explicitModel}
                placeholder="none: route by the policy"
                onInput={(e) => setExplicitModel(e.currentTarget.value)}
              />
            </label>
          </div>
          <JsonField label="Policy (JSON)" rows={14} value={policy} onInput={setPolicy} />
          <JsonField
            label="Attachments (JSON)"
            rows={5}
            value={attachments}
            onInput={setAttachments}
          />
          <button type="submit" disabled={!sessionId || busy}>
            {busy ? "Previewing…" : "Preview"}
          </button>
        </form>
        <div class="preview-result">
          {!sessionId && <p>Choose a session: previews run against its history.</p>}
          {error && <p role="alert" class="error">{error}</p>}
          {result && <Result result={result} before={before} />}
        </div>
      </div>
    </>
  );
}
