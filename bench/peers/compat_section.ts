/**
 * The compatible surface beside the native API: the same turn asked through
 * `POST /v1/chat/completions` (model `switchyard`, the stored `default`
 * policy, the session named by `X-Router-Session-Id`) and through `POST
 * …/execute`, interleaved at concurrency 1 and under 32 clients, with Portkey
 * sent the very same Chat Completions body. The target: a compatible turn
 * costs at most 1.1× a native one.
 */
import { spread } from "../measure.ts";
import { TURN_BODY } from "../turn_http.ts";
import { type Bench, progress, type Results } from "./context.ts";
import { interleavedLatency } from "./latency.ts";
import { throughput } from "./load.ts";
import { ms, printTable, ratio, whole } from "./report.ts";
import { chatTarget, directTarget, portkeyTarget, type Target } from "./targets.ts";
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

/** The service's compatible surface: each conversation is a session named by header. */
function compatTarget(name: string, s: ServiceClient): Target {
  const base = chatTarget(name, s.pid, s.url, s.headers, COMPAT_BODY);
  const named = (id: string) =>
    chatTarget(name, s.pid, s.url, { ...s.headers, "x-router-session-id": id }, COMPAT_BODY);
  return {
    ...base,
    async conversations(count) {
      const ids: string[] = [];
      while (ids.length < count) {
        const batch = Math.min(25, count - ids.length);
        ids.push(...await Promise.all(Array.from({ length: batch }, () => s.newSession())));
      }
      return ids;
    },
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
  const pairs = b.services.map((s) => ({
    store: s.store,
    native: s.target,
    compat: compatTarget(`Switchyard /v1/chat/completions, ${s.store}`, s.client),
  }));
  const targets = [direct, portkey, ...pairs.flatMap((p) => [p.native, p.compat])];
  progress(`compatible: latency, ${b.options.latency.blocks} blocks per target …`);
  await b.provider.setPace({ delayMs: 0 });
  const runs = await interleavedLatency(targets, b.options.latency);
  const floor = spread(runs.get(direct)!.times);
  const added = (t: Target) => {
    const own = spread(runs.get(t)!.times);
    return { p50: own.p50 - floor.p50, p99: own.p99 - floor.p99 };
  };
  const theirs = added(portkey);
  const clients = 32;
  const loads = new Map<Target, Awaited<ReturnType<typeof throughput>>>();
  await b.provider.setPace({ delayMs: 20 });
  for (const t of [portkey, ...pairs.flatMap((p) => [p.native, p.compat])]) {
    progress(`compatible: throughput, ${t.name}, ${clients} clients …`);
    loads.set(t, await throughput(t, clients, b.options.throughputSeconds));
  }
  await b.provider.setPace({ delayMs: 0 });
  const rows = [portkey, ...pairs.flatMap((p) => [p.native, p.compat])].map((t) => {
    const a = added(t);
    const load = loads.get(t)!;
    const pair = pairs.find((p) => p.compat === t);
    const nativeAdded = pair === undefined ? null : added(pair.native);
    const nativeLoad = pair === undefined ? null : loads.get(pair.native)!;
    return [
      t.name,
      ms(a.p50),
      ms(a.p99),
      t === portkey ? "—" : ratio(a.p50, theirs.p50),
      nativeAdded === null ? "—" : ratio(a.p50, nativeAdded.p50),
      whole(load.perSecond),
      ms(load.cpuMsPerRequest),
      t === portkey ? "—" : ratio(load.perSecond, loads.get(portkey)!.perSecond),
      nativeLoad === null ? "—" : ratio(nativeLoad.perSecond, load.perSecond),
    ];
  });
  for (const p of pairs) {
    r.added.set(p.compat.name, added(p.compat));
    r.throughput.set(`${p.compat.name}@${clients}`, loads.get(p.compat)!);
  }
  printTable(
    `6. The compatible surface beside the native API: a persisted turn through POST /v1/chat/completions (model "switchyard", the stored default policy, the session named by X-Router-Session-Id) and through POST …/execute, on the same store; Portkey is sent the same Chat Completions body. Added latency at concurrency 1 (interleaved blocks; minus the body sent to the fake provider directly), throughput at ${clients} clients with the provider answering in 20 ms. Target: compatible ≤ 1.1× native in added p50 and in turns/s (native/compatible)`,
    [
      "target",
      "added p50 ms",
      "added p99 ms",
      "added p50 ours/Portkey",
      "added p50 compatible/native",
      "requests/s",
      "CPU ms/request",
      "requests/s ours/Portkey",
      "requests/s native/compatible",
    ],
    rows,
  );
}
