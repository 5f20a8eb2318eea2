/**
 * The demo provider's HTTP server: an OpenAI-compatible API on loopback that
 * answers by itself. `GET /v1/models` lists the demo models; `POST
 * /v1/chat/completions` answers buffered or streamed. Errors use OpenAI's
 * envelope. No key is asked for and none is read.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AnswerOptions,
  type DemoModel,
  replyTo,
  textOf,
  type WireMessage,
  type WireTool,
} from "./answers.ts";
import { completion, type Meta, streamEvents, usageOf } from "./wire.ts";

export interface ProviderOptions {
  models: readonly DemoModel[];
  host?: string;
  port?: number;
  /** Pause between streamed chunks, so a person sees the answer arrive; 0 in tests. */
  chunkDelayMs?: number;
  /** Unix milliseconds; the `created` of each answer. */
  now?: () => number;
}

export interface RunningProvider {
  /** The base URL to configure, with its `/v1`. */
  baseUrl: string;
  close(): Promise<void>;
}

const MAX_BODY = 10 * 1024 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  const type = status === 404
    ? "invalid_request_error"
    : status >= 500
    ? "server_error"
    : "invalid_request_error";
  sendJson(res, status, { error: { message, type, param: null, code } });
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function listing(models: readonly DemoModel[], created: number) {
  return {
    object: "list",
    data: models.map((m) => ({
      id: m.id,
      object: "model",
      created,
      owned_by: "switchyard-demo",
      context_length: m.contextWindow,
    })),
  };
}

interface ChatBody {
  model?: unknown;
  messages?: unknown;
  tools?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
  tool_choice?: unknown;
  response_format?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
}

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 1;

/** What the body asks of the answer besides its conversation, as far as it is well formed. */
function answerOptions(body: ChatBody): AnswerOptions {
  const choice = body.tool_choice;
  const format = body.response_format;
  return {
    toolChoice: choice === "none" || choice === "auto" || choice === "required" ||
        (typeof choice === "object" && choice !== null)
      ? choice as AnswerOptions["toolChoice"]
      : undefined,
    responseFormat: typeof format === "object" && format !== null
      ? format as AnswerOptions["responseFormat"]
      : undefined,
    maxTokens: isCount(body.max_completion_tokens)
      ? body.max_completion_tokens
      : isCount(body.max_tokens)
      ? body.max_tokens
      : undefined,
  };
}

async function chatCompletions(
  req: IncomingMessage,
  res: ServerResponse,
  options: ProviderOptions,
): Promise<void> {
  const raw = await readBody(req);
  if (raw === null) return sendError(res, 413, "request_too_large", "request body too large");
  let body: ChatBody;
  try {
    body = JSON.parse(raw);
  } catch {
    return sendError(res, 400, "invalid_json", "request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || !Array.isArray(body.messages)) {
    return sendError(res, 400, "invalid_request", "'messages' must be an array");
  }
  const model = options.models.find((m) => m.id === body.model);
  if (model === undefined) {
    return sendError(
      res,
      404,
      "model_not_found",
      `The model '${String(body.model)}' does not exist; this demo serves ${
        options.models.map((m) => m.id).join(", ")
      }`,
    );
  }
  const messages = body.messages as WireMessage[];
  const tools = Array.isArray(body.tools) ? body.tools as WireTool[] : [];
  const reply = replyTo(model, messages, tools, answerOptions(body));
  // Ids come from the request itself: the same request gets the same answer, ids included.
  const digest = createHash("sha256").update(raw).digest("hex");
  const meta: Meta = {
    id: `chatcmpl-demo${digest.slice(0, 24)}`,
    callId: `call_demo${digest.slice(24, 48)}`,
    created: Math.floor((options.now ?? Date.now)() / 1000),
    model: model.id,
    usage: usageOf(messages.map((m) => textOf(m.content)).join("\n"), reply),
  };
  if (body.stream !== true) return sendJson(res, 200, completion(reply, meta));
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });
  let closed = false;
  res.on("close", () => (closed = true));
  for (const event of streamEvents(reply, meta, body.stream_options?.include_usage === true)) {
    if (closed) return;
    res.write(event);
    if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
  }
  res.end();
}

export function startProvider(options: ProviderOptions): Promise<RunningProvider> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://demo").pathname;
    const handle = async () => {
      if (path === "/v1/models" && req.method === "GET") {
        return sendJson(res, 200, listing(options.models, 1767225600));
      }
      if (path === "/v1/chat/completions" && req.method === "POST") {
        return await chatCompletions(req, res, options);
      }
      sendError(res, 404, "not_found", `no such endpoint: ${req.method} ${path}`);
    };
    handle().catch((error) => {
      if (!res.headersSent) sendError(res, 500, "server_error", String(error?.message ?? error));
      else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      const address = server.address() as AddressInfo;
      resolve({
        baseUrl: `http://${options.host ?? "127.0.0.1"}:${address.port}/v1`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
