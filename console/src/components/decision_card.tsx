import {
  type Choice,
  type ContextLine,
  fallbacksTaken,
  type TurnDecision,
} from "../../../clients/typescript/src/decision.ts";
import { count, modelRef, money, when } from "../format.ts";

function routeKind(c: Choice): string {
  if (c.overrideUsed) return "explicit model override";
  if (c.routingRule !== null) return `rule '${c.routingRule}'`;
  return "no rule matched (default route)";
}

function ContextList({ title, lines }: { title: string; lines: ContextLine[] }) {
  return (
    <div>
      <h4>{title} ({lines.length})</h4>
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

/** "Why this model": one turn's classification, routing, fallbacks, context and spend. */
export function DecisionCard({ turn }: { turn: TurnDecision }) {
  const chosen = turn.choices.at(-1);
  const fallbacks = fallbacksTaken(turn);
  const spent = turn.spends.at(-1);
  return (
    <section class="decision" aria-label={`Decision for turn ${turn.traceId}`}>
      <h3>
        Why {chosen ? modelRef(chosen.provider, chosen.model) : "this turn"}
        <span class="muted">{when(turn.startedAt)}</span>
      </h3>
      {turn.sealed > 0 && (
        <p class="sealed-note">
          {turn.sealed}{" "}
          sealed event{turn.sealed === 1 ? "" : "s"}: details below come from their readable columns
          only.
        </p>
      )}
      {chosen && (
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
              : "no model call recorded"}
          </dd>
        </dl>
      )}
      {turn.choices.slice(0, -1).map((c, i) => (
        <p class="earlier" key={i}>
          Tried first: <strong>{modelRef(c.provider, c.model)}</strong> by {routeKind(c)}
          {c.excluded.length > 0 &&
            `; left out ${c.excluded.map((l) => `${l.label} (${l.reason})`).join(", ")}`}
        </p>
      ))}
      {chosen && (
        <div class="context-columns">
          <ContextList title="Context included" lines={chosen.included} />
          <ContextList title="Context excluded" lines={chosen.excluded} />
        </div>
      )}
      {turn.toolCalls.length > 0 && (
        <p>
          Tool calls: {turn.toolCalls.map((t) => `${t.name} (${t.status})`).join(", ")}
        </p>
      )}
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
