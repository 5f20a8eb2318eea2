/**
 * The compatible surfaces beside the native API: the same turn asked through
 * `POST /v1/chat/completions` and `POST /v1/responses` (model `switchyard`,
 * the stored `default` policy, the session named by `X-Router-Session-Id`)
 * and through `POST …/execute`, interleaved at concurrency 1 and under 32
 * clients, with Portkey sent the very same Chat Completions body. The
 * targets: a compatible turn costs at most 1.1× a native one, a Responses
 * turn at most 1.1× a chat-completions one.
 */
import { spread } from "../measure.ts";
import { TURN_BODY } from "../turn_http.ts";
import { type Bench, progress, type Results } from "./context.ts";
import { loadClient } from "./load_client.ts";
import { SLICES, throughputInTurns } from "./load.ts";
import { ms, printTable, ratio, whole } from "./report.ts";
import {
  chatTarget,
  directTarget,
  portkeyTarget,
  sendWire,
  type Target,
  type Wire,
} from "./targets.ts";
import type { ServiceClient } from "../turn_http.ts";

/** The Chat Completions body every target of this section is sent. */
export const COMPAT_BODY = JSON.stringify({
  model: "switchyard",
  messages: [{ role: "user", content: TURN_BODY.input.text }],
});

async function storeDefaultPolicy(s: ServiceClient): Promise<void> {
  const response = await fetch(`${s.url}/api/v1/policies/default`, {
    method: "PUT",
    headers: s.headers,
    body: JSON.stringify(TURN_BODY.policy),
  });
  if (!response.ok) {
    throw new Error(`storing the policy: ${response.status} ${await response.text()}`);
  }
}

/** `count` fresh sessions of the service's user. */
async function sessions(s: ServiceClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < count) {
    const batch = Math.min(25, count - ids.length);
    ids.push(...await Promise.all(Array.from({ length: batch }, () => s.newSession())));
  }
  return ids;
}

/**
 * The Responses API body: the same user text, `store: false` as Codex sends it
 * (recorded in its session, retrievable by no one).
 */
export const RESPONSES_BODY = JSON.stringify({
  model: "switchyard",
  input: TURN_BODY.input.text,
  store: false,
});

/** A compatible surface: each conversation is a session named by header. */
function compatTarget(
  name: string,
  s: ServiceClient,
  surface: "chat" | "responses" = "chat",
): Target {
  const base = chatTarget(name, s.pid, s.url, s.headers, COMPAT_BODY);
  const named = (id: string) =>
    chatTarget(name, s.pid, s.url, { ...s.headers, "x-router-session-id": id }, COMPAT_BODY);
  const responsesWire = (id: string): Wire => ({
    url: `${s.url}/v1/responses`,
    headers: { ...s.headers, "x-router-session-id": id },
    body: RESPONSES_BODY,
    expect: { status: "completed" },
  });
  if (surface === "responses") {
    return {
      ...base,
      conversations: (count) => sessions(s, count),
      wire: responsesWire,
      buffered: (id) => sendWire(responsesWire(id)),
      streamed: () => Promise.reject(new Error("the Responses row measures buffered turns only")),
    };
  }
  return {
    ...base,
    conversations: (count) => sessions(s, count),
    wire: (id) => named(id).wire(id),
    buffered: (id) => named(id).buffered(id),
    streamed: (id) => named(id).streamed(id),
  };
}

export async function compatSection(
  b: Bench,
  r: Results,
  peer: { name: string; pid: number; url: string },
): Promise<void> {
  for (const s of b.services) await storeDefaultPolicy(s.client);
  const direct = directTarget(b.provider.pid, b.provider.url, COMPAT_BODY);
  const portkey = portkeyTarget(peer.name, peer.pid, peer.url, b.provider.url, COMPAT_BODY);
  const sets = b.services.map((s) => ({
    store: s.store,
    native: s.target,
    chat: compatTarget(`Switchyard /v1/chat/completions, ${s.store}`, s.client),
    responses: compatTarget(`Switchyard /v1/responses, ${s.store}`, s.client, "responses"),
  }));
  const ours = sets.flatMap((p) => [p.native, p.chat, p.responses]);
  const targets = [direct, portkey, ...ours];
  const client = loadClient(b.options.clients[0]);
  progress(
    `compatible (${client.name} client): latency, ${b.options.latency.blocks} blocks per target …`,
  );
  await b.provider.setPace({ delayMs: 0 });
  const runs = await client.interleaved(targets, b.options.latency);
  const floor = spread(runs.get(direct)!.times);
  const added = (t: Target) => {
    const own = spread(runs.get(t)!.times);
    return { p50: own.p50 - floor.p50, p99: own.p99 - floor.p99 };
  };
  const theirs = added(portkey);
  const clients = 32;
  await b.provider.setPace({ delayMs: 20 });
  progress(
    `compatible (${client.name} client): throughput, targets in turns, ${clients} clients …`,
  );
  const loads = await throughputInTurns(
    [portkey, ...ours],
    clients,
    b.options.throughputSeconds,
    client.loop,
  );
  await b.provider.setPace({ delayMs: 0 });
  const rows = [portkey, ...ours].map((t) => {
    const a = added(t);
    const load = loads.get(t)!;
    const set = sets.find((p) => p.chat === t || p.responses === t);
    const versus = (other: Target | undefined) =>
      other === undefined
        ? ["—", "—"]
        : [ratio(a.p50, added(other).p50), ratio(loads.get(other)!.perSecond, load.perSecond)];
    const [nativeP50, nativeRate] = versus(set?.native);
    const [chatP50, chatRate] = versus(set?.responses === t ? set.chat : undefined);
    return [
      t.name,
      ms(a.p50),
      ms(a.p99),
      t === portkey ? "—" : ratio(a.p50, theirs.p50),
      nativeP50,
      chatP50,
      whole(load.perSecond),
      ms(load.cpuMsPerRequest),
      t === portkey ? "—" : ratio(load.perSecond, loads.get(portkey)!.perSecond),
      nativeRate,
      chatRate,
    ];
  });
  for (const t of ours) {
    r.compat.set(t.name, { added: added(t), perSecond: loads.get(t)!.perSecond });
  }
  printTable(
    `6. The compatible surfaces beside the native API: a persisted turn through POST /v1/chat/completions and through POST /v1/responses (model "switchyard", the stored default policy, the session named by X-Router-Session-Id; Responses with store: false, as Codex sends it) and through POST …/execute, on the same store; Portkey is sent the same Chat Completions body. Added latency at concurrency 1 (interleaved blocks; minus the Chat Completions body sent to the fake provider directly), throughput at ${clients} clients with the provider answering in 20 ms (${SLICES} slices each, the targets taking turns); load generator: ${client.label}. Targets: compatible ≤ 1.1× native, and Responses ≤ 1.1× chat completions, in added p50 and in turns/s (the other/this)`,
    [
      "target",
      "added p50 ms",
      "added p99 ms",
      "added p50 ours/Portkey",
      "added p50 this/native",
      "added p50 this/chat completions",
      "requests/s",
      "CPU ms/request",
      "requests/s ours/Portkey",
      "requests/s native/this",
      "requests/s chat completions/this",
    ],
    rows,
  );
}
