import { type Failure, failure, ServiceError } from "../core/errors.ts";
import { MAX_BODY_DEPTH, nestsDeeperThan } from "./json_depth.ts";
import { unstorableInBody } from "./unstorable_text.ts";
import { ENTRY } from "../engine/entry_queue.ts";

/** A body that cannot be taken at all: too large (413) or not a JSON object (400). */
export class UnreadableBody extends Error {
  override readonly name = "UnreadableBody";
  constructor(readonly failure: Failure, readonly status: 400 | 413) {
    super(failure.message);
  }
}

function tooLarge(limit: number): UnreadableBody {
  return new UnreadableBody(
    failure("payload_too_large", `request body too large: the limit is ${limit} bytes`, { limit }),
    413,
  );
}

/** 422 `invalid_request`: a body nested deeper than the service ever reads (json_depth.ts). */
export function tooDeep(limit: number): Failure {
  return failure(
    "invalid_request",
    `request body nested too deeply: the limit is ${limit} levels of objects and arrays`,
    { limit },
  );
}

/** Reads the body without ever buffering more than `limit` bytes. */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (request.body === null) return new Uint8Array(0);
  // A declared length the runtime holds the body to: read whole, in one step of the runtime's
  // own, rather than chunk by chunk through a stream reader (a turn start's every request).
  if (request.headers.has("content-length") && Number.isInteger(declared) && declared >= 0) {
    const whole = new Uint8Array(await request.arrayBuffer());
    // A Request made in process is held to no length: its body is checked here as well.
    if (whole.byteLength > limit) throw tooLarge(limit);
    return whole;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/**
 * Bodies are JSON whatever the Content-Type; they must be an object (decisions.md §2),
 * nest at most `MAX_BODY_DEPTH` levels (checked on the text, before anything walks the
 * value) and hold only text the service can store (http/unstorable_text.ts).
 */
export async function readJsonObject(
  request: Request,
  limit: number,
): Promise<Record<string, unknown>> {
  const bytes = await readLimited(request, limit);
  // Parsing waits for its round under a burst (engine/entry_queue.ts), counted in `parse`.
  await ENTRY.enter();
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UnreadableBody(failure("invalid_request", "request body is not valid JSON"), 400);
  }
  // Before parsing: a hostile body is refused without building its thousands of levels.
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) throw new ServiceError(tooDeep(MAX_BODY_DEPTH));
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnreadableBody(failure("invalid_request", "request body is not valid JSON"), 400);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UnreadableBody(
      failure("invalid_request", "request body must be a JSON object"),
      400,
    );
  }
  const unstorable = unstorableInBody(value, text);
  if (unstorable !== null) throw new ServiceError(unstorable);
  return value as Record<string, unknown>;
}

/** For endpoints that take no body: drain what came, within the limit, and ignore it. */
export async function discardBody(request: Request, limit: number): Promise<void> {
  await readLimited(request, limit);
}
