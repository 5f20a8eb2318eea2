/** `switchyard preview`, `usage`, `trace` and `models`: reading what the service decided and recorded. */
import { writeFile } from "node:fs/promises";
import type { SessionKey } from "../session_key.ts";
import type { ModelListResponse, Policy, PreviewResponse } from "../types.ts";
import type { Context } from "./context.ts";
import { openedPayload, openTrace, readTrace } from "./trace_events.ts";
import { callPerTurn, sessionTurns } from "../turns.ts";
import { cacheText, traceTable } from "./trace_table.ts";

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function previewText(p: PreviewResponse): string {
  const c = p.classification;
  const lines = [
    `model:      ${p.routing.provider}/${p.routing.model}`,
    `intent:     ${c.intent} (${c.source}${
      c.confidence ? `, ${c.confidence} confidence` : ""
    }: ${c.reason})`,
    `rule:       ${p.routing.matched_rule ?? "(none)"}`,
    `why:        ${p.routing.reason}`,
    `cost:       ${p.estimated_cost.min} – ${p.estimated_cost.max} ${p.estimated_cost.currency}`,
    `context:    ${p.included_context.join(", ") || "(nothing attached)"}`,
  ];
  if (p.excluded_context.length > 0) lines.push(`left out:   ${p.excluded_context.join(", ")}`);
  if (p.required_permissions.length > 0) {
    lines.push(
      `tools:      ${p.required_permissions.map((r) => `${r.permission}=${r.mode}`).join(", ")}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Previews in the given session, or in a scratch one deleted afterwards. */
export async function preview(
  ctx: Context,
  prompt: string,
  o: {
    session?: string;
    policy?: Policy;
    root: string;
    command?: string;
    model?: string;
    json?: boolean;
  },
): Promise<void> {
  const id = o.session ?? (await ctx.client.sessions.create({ title: "switchyard preview" })).id;
  try {
    const input: Record<string, unknown> = { text: prompt };
    if (o.command) input.command = o.command;
    if (o.model) input.explicit_model = o.model;
    const result = await ctx.client.session(id).preview({
      input: input as never,
      workspace: { root: o.root },
      ...(o.policy ? { policy: o.policy } : {}),
    });
    ctx.term.out(o.json ? json(result) : previewText(result));
  } finally {
    if (o.session === undefined) await ctx.client.session(id).delete();
  }
}

export async function usage(ctx: Context, id: string, o: { json?: boolean }): Promise<void> {
  const report = await ctx.client.session(id).usage();
  if (o.json) return ctx.term.out(json(report));
  const t = report.total;
  ctx.term.out(
    `total: ${t.input_tokens ?? "?"} in${cacheText(t)}, ${t.output_tokens ?? "?"} out, ${
      t.estimated_cost ?? "(sealed)"
    } ${t.currency}\n`,
  );
  for (const m of report.by_model) {
    const cost = m.estimated_cost === undefined ? "" : `, ${m.estimated_cost} ${m.currency}`;
    ctx.term.out(
      `  ${m.provider}/${m.model}: ${m.request_count} requests${
        m.input_tokens === undefined
          ? ""
          : `, ${m.input_tokens} in${cacheText(m)}, ${m.output_tokens} out`
      }${cost}\n`,
    );
  }
}

/**
 * A table by default, or one raw event per line as JSON with `--json`; sealed
 * payloads are opened when the key is at hand.
 */
export async function trace(
  ctx: Context,
  id: string,
  o: { limit?: number; offset?: number; key?: SessionKey; json?: boolean },
): Promise<void> {
  const [events, detail] = await Promise.all([
    readTrace(ctx.client, id, o),
    o.json ? null : ctx.client.session(id).get(),
  ]);
  if (!o.json) {
    const opened = await openTrace(events, o.key);
    // The whole trace names each model call's turn; a page alone cannot count the prompts before it.
    const whole = o.limit === undefined && (o.offset ?? 0) === 0;
    const turns = whole ? sessionTurns(opened, { callPerTurn: callPerTurn(detail) }) : [];
    return ctx.term.out(traceTable(opened, (o.offset ?? 0) + 1, turns));
  }
  for (const event of events) {
    // An opened payload is marked as such: the service only ever saw it sealed.
    const opened = await openedPayload(event, o.key);
    ctx.term.out(
      `${JSON.stringify(opened === null ? event : { ...event, payload: { opened } })}\n`,
    );
  }
}

/** The snapshot `policy test` routes on: what the service lists for these provider keys. */
export interface CatalogSnapshot {
  providers: string[];
  credential_providers: string[];
  models: ModelListResponse["models"];
  unavailable: NonNullable<ModelListResponse["unavailable"]>;
}

export async function models(
  ctx: Context,
  o: { save?: string; json?: boolean },
  keyed: string[],
): Promise<void> {
  const listed = await ctx.client.models();
  const providers = (await ctx.client.providers()).map((p) => p.id).sort();
  if (o.save) {
    const snapshot: CatalogSnapshot = {
      providers,
      credential_providers: keyed.filter((id) => providers.includes(id)).sort(),
      models: listed.models,
      unavailable: listed.unavailable ?? [],
    };
    await writeFile(o.save, json(snapshot));
    ctx.term.err(
      `saved ${listed.models.length} models of ${providers.length} providers to ${o.save}\n`,
    );
    return;
  }
  if (o.json) return ctx.term.out(json(listed));
  for (const m of listed.models) {
    const price = m.input_cost_per_million_tokens === undefined
      ? ""
      : `  $${m.input_cost_per_million_tokens}/$${m.output_cost_per_million_tokens} per M`;
    ctx.term.out(
      `${m.provider}/${m.model}  ${
        m.local ? "local" : "remote"
      }  ${m.max_context_tokens} tokens${price}\n`,
    );
  }
  for (const u of listed.unavailable ?? []) {
    ctx.term.err(`${u.provider}: unavailable (${u.reason})\n`);
  }
}
