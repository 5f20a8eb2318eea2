/**
 * How many concurrent SSE turns the service carries without a stalled frame:
 * N clients open `POST …/execute` with `Accept: text/event-stream` at once,
 * each on its own session, while the fake provider streams every answer as
 * `CHUNKS` deltas `GAP_MS` apart. A stream stalls when two of its consecutive
 * data frames reach the client more than `STALL_MS` apart. Levels grow until
 * one stalls (or fails); the result is the largest level where none did.
 */
import { executeTurn, TURN_BODY, type TurnService } from "./turn_http.ts";
import { percentile } from "./measure.ts";

export const CHUNKS = 20;
export const GAP_MS = 100;
export const STALL_MS = 500;

export interface StreamLevel {
  streams: number;
  /** Streams whose every frame came within STALL_MS of the one before, ending `completed`. */
  held: number;
  firstFrameP99: number;
  gapP99: number;
  gapMax: number;
  seconds: number;
}

/**
 * Reads a server-sent event stream to its end, calling `onData` with each data
 * frame's payload and its arrival time (ms since `start`); comments
 * (keep-alives) are not frames.
 */
export async function readDataFrames(
  response: Response,
  start: number,
  onData: (data: string, at: number) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of response.body!) {
    const at = performance.now() - start;
    buffer += decoder.decode(bytes, { stream: true });
    const frames = buffer.split("\n\n");
    buffer = frames.pop()!;
    for (const frame of frames) {
      if (frame.startsWith("data: ")) onData(frame.slice("data: ".length), at);
    }
  }
}

/** Arrival times (ms) of the data frames of one streamed turn; throws unless it completed. */
async function streamTurn(s: TurnService, sessionId: string): Promise<number[]> {
  const start = performance.now();
  const response = await fetch(`${s.url}${s.executePath(sessionId)}`, {
    method: "POST",
    headers: { ...s.headers, accept: "text/event-stream" },
    body: JSON.stringify(TURN_BODY),
  });
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`no stream: ${response.status} ${await response.text()}`);
  }
  const times: number[] = [];
  let last = "";
  await readDataFrames(response, start, (data, at) => {
    times.push(at);
    last = data;
  });
  const end = JSON.parse(last);
  if (end.type !== "turn_end" || end.status !== "completed") {
    throw new Error(`stream ended with ${last}`);
  }
  return times;
}

async function runLevel(s: TurnService, n: number): Promise<StreamLevel> {
  const sessions: string[] = [];
  while (sessions.length < n) {
    const batch = Math.min(25, n - sessions.length);
    sessions.push(...await Promise.all(Array.from({ length: batch }, () => s.newSession())));
  }
  const start = performance.now();
  const outcomes = await Promise.allSettled(sessions.map((id) => streamTurn(s, id)));
  const seconds = (performance.now() - start) / 1000;
  const firsts: number[] = [];
  const gaps: number[] = [];
  let held = 0;
  for (const o of outcomes) {
    if (o.status === "rejected") continue;
    const times = o.value;
    firsts.push(times[0]);
    let worst = 0;
    for (let i = 1; i < times.length; i++) {
      const gap = times[i] - times[i - 1];
      gaps.push(gap);
      worst = Math.max(worst, gap);
    }
    if (worst <= STALL_MS) held++;
  }
  firsts.sort((a, b) => a - b);
  gaps.sort((a, b) => a - b);
  return {
    streams: n,
    held,
    firstFrameP99: firsts.length ? percentile(firsts, 99) : NaN,
    gapP99: gaps.length ? percentile(gaps, 99) : NaN,
    gapMax: gaps.length ? gaps[gaps.length - 1] : NaN,
    seconds,
  };
}

/** Runs the levels in order, stopping after the first level where a stream stalled or failed. */
export async function measureStreams(s: TurnService, levels: number[]): Promise<StreamLevel[]> {
  s.provider.pace.delayMs = 0;
  s.provider.pace.chunks = CHUNKS;
  s.provider.pace.chunkGapMs = GAP_MS;
  await executeTurn(s, await s.newSession()); // listings cached before the first level
  const out: StreamLevel[] = [];
  for (const n of levels) {
    const level = await runLevel(s, n);
    out.push(level);
    if (level.held < n) break;
  }
  return out;
}

export function printStreams(title: string, levels: StreamLevel[]): void {
  const f = (ms: number) => ms.toFixed(1);
  console.log(`\n${title}`);
  console.log(
    "| streams | held | first frame p99 ms | frame gap p99 ms | frame gap max ms | wall s |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|");
  for (const l of levels) {
    console.log(
      `| ${l.streams} | ${l.held} | ${f(l.firstFrameP99)} | ${f(l.gapP99)} | ${f(l.gapMax)} | ${
        l.seconds.toFixed(1)
      } |`,
    );
  }
  const best = levels.filter((l) => l.held === l.streams).at(-1);
  console.log(
    `\nLargest level held without a stalled frame: ${best?.streams ?? 0} streams ` +
      `(stall = two frames of one stream more than ${STALL_MS} ms apart; provider sends a delta every ${GAP_MS} ms)`,
  );
}
