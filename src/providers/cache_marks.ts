/**
 * Where an Anthropic request gets its `cache_control` breakpoints
 * (decisions.md §15). A request that carries marks of its own (a client on
 * the Anthropic surface) keeps them where the client put them; one without
 * gets the service's two when `placeMarks` is set: after the tools and system
 * prompt (the prefix every request of a session shares) and on the last
 * message (so the next request, which repeats this one, reads it all back).
 * Never more than the API's four.
 */
import type { CacheMark, CompletionRequest } from "./types.ts";

/** Anthropic refuses a request with more breakpoints than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

export interface CacheBreakpoints {
  /** Index of the tool whose definition carries a mark, with its mark. */
  readonly tools: ReadonlyMap<number, CacheMark>;
  readonly system?: CacheMark;
  /** Index into `request.messages`. */
  readonly messages: ReadonlyMap<number, CacheMark>;
}

const PLACED: CacheMark = {};

type Slot = { kind: "tool" | "message"; index: number; mark: CacheMark };

function clientMarks(request: CompletionRequest): CacheBreakpoints {
  const slots: Slot[] = [];
  (request.tools ?? []).forEach((tool, index) => {
    if (tool.cache !== undefined) slots.push({ kind: "tool", index, mark: tool.cache });
  });
  request.messages.forEach((message, index) => {
    if (message.cache !== undefined) slots.push({ kind: "message", index, mark: message.cache });
  });
  const system = request.system ? request.systemCache : undefined;
  // Over the limit, the earliest marks go (tools' first): the later ones cover more.
  const room = MAX_CACHE_BREAKPOINTS - (system === undefined ? 0 : 1);
  while (slots.length > room) {
    const tool = slots.findIndex((s) => s.kind === "tool");
    slots.splice(tool === -1 ? 0 : tool, 1);
  }
  const of = (kind: Slot["kind"]) =>
    new Map(slots.filter((s) => s.kind === kind).map((s) => [s.index, s.mark]));
  return {
    tools: of("tool"),
    ...(system === undefined ? {} : { system }),
    messages: of("message"),
  };
}

function hasClientMarks(request: CompletionRequest): boolean {
  return (request.system !== undefined && request.system !== "" &&
    request.systemCache !== undefined) ||
    (request.tools ?? []).some((t) => t.cache !== undefined) ||
    request.messages.some((m) => m.cache !== undefined);
}

export function cacheBreakpoints(request: CompletionRequest): CacheBreakpoints {
  if (hasClientMarks(request)) return clientMarks(request);
  const none: CacheBreakpoints = { tools: new Map(), messages: new Map() };
  if (request.caching?.placeMarks !== true) return none;
  const toolCount = request.tools?.length ?? 0;
  const system = request.system ? PLACED : undefined;
  // Tools come before the system prompt in Anthropic's prefix: a mark on the
  // system prompt covers both; without one, the last tool ends the prefix.
  const tools = new Map<number, CacheMark>(
    system === undefined && toolCount > 0 ? [[toolCount - 1, PLACED]] : [],
  );
  const last = request.messages.length - 1;
  const messages = new Map<number, CacheMark>(last >= 0 ? [[last, PLACED]] : []);
  return { tools, ...(system === undefined ? {} : { system }), messages };
}

/** The wire `cache_control` of a mark. */
export function cacheControl(mark: CacheMark): Record<string, unknown> {
  return mark.ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl: mark.ttl };
}
