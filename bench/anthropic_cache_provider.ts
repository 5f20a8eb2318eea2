/**
 * An Anthropic Messages server that caches prompts the way Anthropic
 * documents it, for the prompt-caching bench and its test: a request's prompt
 * is the sequence of its blocks (tools, then system blocks, then each
 * message's content blocks); a block marked `cache_control` is a breakpoint
 * (at most four). At each breakpoint the server looks for the longest prefix
 * an earlier request wrote, at the breakpoint itself or at any of the 20
 * block boundaries before it, and reads it; the prompt up to the last
 * breakpoint that is not read is written (a prefix shorter than the model's
 * minimum cacheable length is not cached). Usage is reported as Anthropic
 * reports it: `input_tokens` (neither read nor written),
 * `cache_read_input_tokens`, `cache_creation_input_tokens`, `output_tokens`.
 *
 * Tokens are counted as ceil(characters / 4) of each block's content, so the
 * figures are deterministic. Every answer is the next tool call of the
 * scripted session (`answerFor`), or a closing text when the script is done.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Anthropic's lookback: cache hits are looked for up to this many blocks before a breakpoint. */
const LOOKBACK_BLOCKS = 20;
const MAX_BREAKPOINTS = 4;
/** Anthropic's minimum cacheable prompt for Sonnet and Opus models. */
const MIN_CACHEABLE_TOKENS = 1024;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export interface CachingProvider {
  url: string;
  /** The usage of every answer, in order. */
  usages: CacheUsage[];
  /** Every request body received, parsed. */
  bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

interface Block {
  /** The block's content without its mark, with where it sits (tools, system, a role). */
  key: string;
  tokens: number;
  marked: boolean;
}

const tokensOf = (text: string) => Math.ceil([...text].length / 4);

function withoutMark(block: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _, ...rest } = block;
  return rest;
}

function blocksOf(body: Record<string, unknown>): Block[] {
  const blocks: Block[] = [];
  const push = (where: string, block: Record<string, unknown>, text: string) =>
    blocks.push({
      key: `${where}:${JSON.stringify(withoutMark(block))}`,
      tokens: tokensOf(text),
      marked: block.cache_control !== undefined,
    });
  for (const tool of (body.tools ?? []) as Record<string, unknown>[]) {
    push("tool", tool, JSON.stringify(withoutMark(tool)));
  }
  const system = body.system;
  if (typeof system === "string") push("system", { type: "text", text: system }, system);
  else {
    for (const b of (system ?? []) as Record<string, unknown>[]) push("system", b, String(b.text));
  }
  for (const message of body.messages as { role: string; content: unknown }[]) {
    const content = typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content as Record<string, unknown>[];
    for (const b of content) {
      const text = b.type === "text"
        ? String(b.text)
        : b.type === "tool_result"
        ? (typeof b.content === "string" ? b.content : JSON.stringify(b.content))
        : JSON.stringify({ name: b.name, input: b.input });
      push(message.role, b, text);
    }
  }
  return blocks;
}

/**
 * The cache of one server: prefix digest → the prompt tokens up to it. A
 * prefix's digest chains its blocks' keys, so equal digests are equal prefixes.
 */
export function cacheUsage(
  cache: Map<string, number>,
  body: Record<string, unknown>,
  outputTokens: number,
): CacheUsage | { error: string } {
  const blocks = blocksOf(body);
  const marks = blocks.flatMap((b, i) => (b.marked ? [i] : []));
  if (marks.length > MAX_BREAKPOINTS) {
    return { error: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided.` };
  }
  const digests: string[] = [];
  const upTo: number[] = [];
  let digest = "";
  let tokens = 0;
  for (const b of blocks) {
    digest = createHash("sha256").update(digest).update(b.key).digest("hex");
    tokens += b.tokens;
    digests.push(digest);
    upTo.push(tokens);
  }
  // The longest prefix an earlier request wrote, at a breakpoint or up to 20 blocks before one.
  let read = 0;
  for (const mark of marks) {
    for (let i = mark; i >= Math.max(0, mark - LOOKBACK_BLOCKS); i--) {
      const hit = cache.get(digests[i]);
      if (hit !== undefined) {
        read = Math.max(read, hit);
        break;
      }
    }
  }
  let written = read;
  for (const mark of marks) {
    if (upTo[mark] < MIN_CACHEABLE_TOKENS) continue;
    cache.set(digests[mark], upTo[mark]);
    written = Math.max(written, upTo[mark]);
  }
  return {
    input_tokens: tokens - written,
    cache_creation_input_tokens: written - read,
    cache_read_input_tokens: read,
    output_tokens: outputTokens,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    req.on("data", (p: Uint8Array) => parts.push(p));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/** What the model answers to the request numbered `n` (from 0): a tool call, or text. */
export type Answer =
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "text"; text: string };

export async function startCachingProvider(
  answerFor: (n: number) => Answer,
): Promise<CachingProvider> {
  const cache = new Map<string, number>();
  const usages: CacheUsage[] = [];
  const bodies: Record<string, unknown>[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const n = bodies.length;
    bodies.push(body);
    const answer = answerFor(n);
    const output = answer.type === "text"
      ? tokensOf(answer.text)
      : tokensOf(JSON.stringify({ name: answer.name, input: answer.input }));
    const usage = cacheUsage(cache, body, output);
    if ("error" in usage) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: usage.error },
      }));
      return;
    }
    usages.push(usage);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: `msg_bench_${n}`,
      type: "message",
      role: "assistant",
      model: String(body.model),
      content: [answer],
      stop_reason: answer.type === "tool_use" ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage,
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    usages,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
