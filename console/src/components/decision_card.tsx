import {
  type Choice,
  type ContextLine,
  fallbacksTaken,
  type ToolCall,
  type TurnDecision,
} from "../../../clients/typescript/src/decision.ts";
import type { Turn } from "../../../clients/typescript/src/turns.ts";
import { count, modelRef, money, when } from "../format.ts";

function routeKind(c: Choice): string {
  if (c.overrideUsed) return "explicit model override";
  if (c.routingRule !== null) return `rule '${c.routingRule}'`;
  return "no rule matched (default route)";
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function ContextList({ title, lines }: { title: string; lines: ContextLine[] }) {
  return (
    <div>
      <h5>{title} ({lines.length})</h5>
      {lines.length === 0 ? <p class="muted">none</p> : (
        <ul class="context">
          {lines.map((l, i) => (
            <li key={i}>
              <span class="kind">{l.kind}</span> {l.label}
              {l.reason && <span class="muted">{` — ${l.reason}`}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** One model call of a turn: its classification, routing, fallbacks, spend and context. */
function ModelCall({ call, place, of }: { call: TurnDecision; place: number; of: number }) {
  const chosen = call.choices.at(-1)!;
  const fallbacks = fallbacksTaken(call);
  const spent = call.spends.at(-1);
  return (
    <section class="model-call" aria-label={`Model call ${place} of ${of}`}>
      <h4>
        {of > 1 && <span class="step">Model call {place} of {of}:</span>}
        Why {modelRef(chosen.provider, chosen.model)}
      </h4>
      <dl class="facts">
        <dt>Classification</dt>
        <dd>
          <strong>{chosen.intent ?? "—"}</strong>
          {chosen.source && ` · ${chosen.source}`}
          {chosen.confidence && ` · confidence ${chosen.confidence}`}
          {chosen.reason && <div class="reason">{chosen.reason}</div>}
        </dd>
        <dt>Routing</dt>
        <dd>
          <strong>{modelRef(chosen.provider, chosen.model)}</strong> by {routeKind(chosen)}
          {chosen.effort && ` · effort ${chosen.effort}`}
          {chosen.routingReason && <div class="reason">{chosen.routingReason}</div>}
        </dd>
        <dt>Fallbacks taken</dt>
        <dd>
          {fallbacks.length === 0 ? "none" : (
            <ol class="fallbacks">
              {fallbacks.map((f) => (
                <li key={f.model}>
                  <strong>{f.model}</strong>: {f.why}
                </li>
              ))}
            </ol>
          )}
        </dd>
        <dt>Cost</dt>
        <dd>
          {spent
            ? (
              <>
                {money(spent.cost)} · {count(spent.inputTokens)} in / {count(spent.outputTokens)}
                {" "}
                out tokens
              </>
            )
            : "no usage recorded"}
        </dd>
      </dl>
      {call.choices.slice(0, -1).map((c, i) => (
        <p class="earlier" key={i}>
          Tried first: <strong>{modelRef(c.provider, c.model)}</strong> by {routeKind(c)}
          {c.excluded.length > 0 &&
            `; left out ${c.excluded.map((l) => `${l.label} (${l.reason})`).join(", ")}`}
        </p>
      ))}
      <div class="context-columns">
        <ContextList title="Context included" lines={chosen.included} />
        <ContextList title="Context excluded" lines={chosen.excluded} />
      </div>
    </section>
  );
}

function ToolStep({ tool }: { tool: ToolCall }) {
  const args = tool.arguments === null ? null : JSON.stringify(tool.arguments);
  return (
    <p class="tool-step">
      <span class="step">Tool call</span> <code>{tool.label}</code>
      {tool.status && <span class="muted">{` — ${tool.status}`}</span>}
      {args !== null && args !== "{}" && <span class="args muted">arguments {args}</span>}
    </p>
  );
}

/** What the whole turn cost: the exact sum of its calls' prices and every call's tokens. */
function turnTotal(turn: Turn): string {
  const cost = turn.cost === null
    ? (turn.unpriced > 0 ? "not priced" : "nothing spent")
    : `${money(turn.cost)}${
      turn.unpriced > 0 ? ` + ${plural(turn.unpriced, "call")} not priced` : ""
    }`;
  return `${cost} · ${count(turn.inputTokens)} in / ${count(turn.outputTokens)} out tokens`;
}

/**
 * "Why these models": one turn as it was lived, the prompt's model calls in order with the tool
 * calls between them, and what the whole turn cost.
 */
export function TurnCard({ turn, total }: { turn: Turn; total: number }) {
  return (
    <section class="decision" aria-label={`Decision for turn ${turn.number}`}>
      <h3>
        Turn {turn.number} of {total}
        <span class="muted">
          {plural(turn.calls.length, "model call")}
          {turn.tools.length > 0 && ` · ${plural(turn.tools.length, "tool call")}`} ·{" "}
          {when(turn.startedAt)}
        </span>
      </h3>
      {turn.sealed > 0 && (
        <p class="sealed-note">
          {turn.sealed}{" "}
          sealed event{turn.sealed === 1 ? "" : "s"}: details below come from their readable columns
          only.
        </p>
      )}
      {turn.calls.length === 0 && <p class="muted">No model was chosen in this turn.</p>}
      {turn.steps.map((step, i) =>
        step.kind === "model_call"
          ? <ModelCall key={i} call={step.call} place={step.place} of={turn.calls.length} />
          : <ToolStep key={i} tool={step.tool} />
      )}
      <p class="turn-total">
        <strong>Turn total</strong> {turnTotal(turn)}
      </p>
      {turn.approvals.length > 0 && (
        <p>
          Approvals:{" "}
          {turn.approvals.map((a) => `${a.target} ${a.decision}${a.reason ? ` (${a.reason})` : ""}`)
            .join(", ")}
        </p>
      )}
    </section>
  );
}
