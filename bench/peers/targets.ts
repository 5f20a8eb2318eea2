/**
 * What the peer benchmark sends requests to, behind one shape: the fake
 * provider itself (the baseline), Portkey, and the service on one store. A
 * request is one model answer: a Chat Completions call for the provider and
 * Portkey, a persisted turn (`POST …/execute`, TURN_BODY) for the service.
 */
import { postJson } from "../service_process.ts";
import { readDataFrames } from "../stream_http.ts";
import { PROVIDER_KEY, type ServiceClient, TURN_BODY } from "../turn_http.ts";
import { portkeyHeaders } from "./portkey.ts";
import { sentAtMs } from "../chat_provider.ts";

/** Arrival times (ms since the request was sent) of one streamed answer's frames. */
export interface StreamTrace {
  /** Every data frame. */
  frames: number[];
  /** The frames carrying the provider's text deltas. */
  deltas: number[];
  /**
   * Each text delta's delay on one clock: its arrival minus the time the
   * provider wrote it (the send time the delta carries).
   */
  delays: number[];
}

/**
 * One buffered request as either load generator sends it: what the answer
 * must carry to count (a JSON answer's top-level `status`, or a text in it);
 * anything else, a non-2xx status included, is a failure.
 */
export interface Wire {
  url: string;
  headers: Record<string, string>;
  body: string;
  expect: { status?: string; contains?: string };
}

export interface Target {
  name: string;
  /** The process whose CPU time and memory the tables report. */
  pid: number;
  /** Handles for `count` conversations: fresh sessions for the service, blanks for a stateless peer. */
  conversations(count: number): Promise<string[]>;
  /** The buffered request on a conversation, for a load generator in another process. */
  wire(conversation: string): Wire;
  /** One buffered answer; anything but a complete answer throws. Its `Server-Timing` header, if any. */
  buffered(conversation: string): Promise<string | null>;
  /** One streamed answer, read to its end; anything but a complete answer throws. */
  streamed(conversation: string): Promise<StreamTrace>;
}

/** A 10 s answer not done in a minute is a failure, not a data point worth waiting for. */
const STREAM_TIMEOUT_MS = 60_000;
const blanks = (count: number) => Promise.resolve(Array.from({ length: count }, () => ""));

/** Sends a wire and reads its answer to the end (the Deno load generator). */
export async function sendWire(wire: Wire): Promise<string | null> {
  const response = await fetch(wire.url, {
    method: "POST",
    headers: wire.headers,
    body: wire.body,
    signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
  });
  const text = await response.text();
  const ok = response.ok &&
    (wire.expect.contains === undefined || text.includes(wire.expect.contains)) &&
    (wire.expect.status === undefined || JSON.parse(text).status === wire.expect.status);
  if (!ok) throw new Error(`${wire.url}: ${response.status} ${text.slice(0, 300)}`);
  return response.headers.get("server-timing");
}

async function readStream(
  response: Response,
  start: number,
  isDelta: (data: string) => boolean,
): Promise<StreamTrace & { last: string }> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`no stream: ${response.status} ${await response.text()}`);
  }
  const trace = {
    frames: [] as number[],
    deltas: [] as number[],
    delays: [] as number[],
    last: "",
  };
  // `start` on the clock the provider stamps its deltas with (performance.now() is per process).
  const startShared = performance.timeOrigin + start;
  await readDataFrames(response, start, (data, at) => {
    trace.frames.push(at);
    if (isDelta(data)) {
      trace.deltas.push(at);
      const sent = sentAtMs(data);
      if (sent !== null) trace.delays.push(startShared + at - sent);
    }
    trace.last = data;
  });
  return trace;
}

/** A Chat Completions server: the fake provider directly, or Portkey in front of it. */
export function chatTarget(
  name: string,
  pid: number,
  url: string,
  headers: Record<string, string>,
  body: string,
): Target {
  const streamBody = JSON.stringify({
    ...JSON.parse(body),
    stream: true,
    stream_options: { include_usage: true },
  });
  const post = (payload: string) =>
    fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: payload,
      signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
    });
  const wire: Wire = {
    url: `${url}/v1/chat/completions`,
    headers,
    body,
    expect: { contains: '"choices"' },
  };
  return {
    name,
    pid,
    conversations: blanks,
    wire: () => wire,
    buffered: () => sendWire(wire),
    async streamed() {
      const start = performance.now();
      const trace = await readStream(
        await post(streamBody),
        start,
        (d) => d.includes("part "),
      );
      if (trace.last !== "[DONE]") {
        throw new Error(`${name} stream ended with ${trace.last}`);
      }
      return trace;
    },
  };
}

/** The fake provider read directly; `holdMs`: holding each answer that long (chat_provider.ts). */
export const directTarget = (pid: number, providerUrl: string, body: string, holdMs = 0) =>
  chatTarget(
    holdMs === 0 ? "fake provider, direct" : `fake provider, direct, held ${holdMs} ms`,
    pid,
    providerUrl,
    {
      "content-type": "application/json",
      authorization: `Bearer ${PROVIDER_KEY}`,
      ...(holdMs === 0 ? {} : { "x-bench-hold-ms": String(holdMs) }),
    },
    body,
  );

export const portkeyTarget = (
  name: string,
  pid: number,
  url: string,
  providerUrl: string,
  body: string,
) => chatTarget(name, pid, url, portkeyHeaders(providerUrl, PROVIDER_KEY), body);

/** The service on one store: each conversation is a session of its own. */
export function serviceTarget(name: string, s: ServiceClient): Target {
  const body = JSON.stringify(TURN_BODY);
  const wire = (id: string): Wire => ({
    url: `${s.url}${s.executePath(id)}`,
    headers: s.headers,
    body,
    expect: { status: "completed" },
  });
  return {
    name,
    pid: s.pid,
    async conversations(count) {
      const ids: string[] = [];
      while (ids.length < count) {
        const batch = Math.min(25, count - ids.length);
        ids.push(
          ...await Promise.all(
            Array.from({ length: batch }, () => s.newSession()),
          ),
        );
      }
      return ids;
    },
    wire,
    buffered: (id) => sendWire(wire(id)),
    async streamed(id) {
      const start = performance.now();
      const response = await fetch(`${s.url}${s.executePath(id)}`, {
        method: "POST",
        headers: { ...s.headers, accept: "text/event-stream" },
        body: JSON.stringify(TURN_BODY),
        signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
      });
      const trace = await readStream(
        response,
        start,
        (d) => d.includes('"text_delta"'),
      );
      const end = JSON.parse(trace.last || "{}");
      if (end.type !== "turn_end" || end.status !== "completed") {
        throw new Error(`${name} stream ended with ${trace.last}`);
      }
      return trace;
    },
  };
}

/** `POST …/preview` with TURN_BODY on a session of the service's own. */
export async function previewCall(
  s: ServiceClient,
): Promise<() => Promise<unknown>> {
  const id = await s.newSession();
  return () => postJson(s.url, `/api/v1/sessions/${id}/preview`, s.headers, TURN_BODY);
}
