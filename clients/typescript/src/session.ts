/**
 * One session of the caller: its detail and messages (opened when the key is
 * given), turns buffered or streamed, preview, traces, usage, and `run`, the
 * driver that carries a prompt to its end.
 */
import { driveRun, type Run, type StepHooks } from "./run.ts";
import type { RunCallbacks } from "./run_answers.ts";
import { open, seal, type SessionKey } from "./session_key.ts";
import type { Transport } from "./transport.ts";
import { type TurnStream, turnStream } from "./turn_stream.ts";
import type {
  Attachments,
  ContinueRequest,
  LocalPreferences,
  Policy,
  PreviewResponse,
  SessionDetail,
  SessionSummary,
  TraceResponse,
  TurnRequest,
  TurnResponse,
  TurnStreamEvent,
  UpdateSessionRequest,
  UsageReport,
  Workspace,
} from "./types.ts";

export interface RunOptions extends RunCallbacks {
  policy?: Policy;
  workspace?: Workspace;
  attachments?: Attachments;
  localPreferences?: LocalPreferences;
  /** Forces the task type, e.g. `plan`. */
  command?: NonNullable<TurnRequest["input"]["command"]>;
  /** `provider/model`, bypassing routing. */
  explicitModel?: string;
  /** Stream turns (default) so `onEvent` sees text as it arrives; false asks for buffered turns. */
  stream?: boolean;
  /** Every event of every turn; buffered turns report only their `turn_end`. */
  onEvent?: (event: TurnStreamEvent) => void | Promise<void>;
}

/** A message of the session with its text, opened when the session is encrypted. */
export interface OpenedMessage {
  role: string;
  text: string;
  provider?: string;
  model?: string;
}

export interface Session {
  readonly id: string;
  readonly key?: SessionKey;
  get(): Promise<SessionDetail>;
  /** The messages, oldest first; an encrypted session's are opened with its key. */
  messages(): Promise<OpenedMessage[]>;
  update(change: UpdateSessionRequest): Promise<SessionSummary>;
  archive(): Promise<SessionSummary>;
  delete(): Promise<void>;
  preview(request: TurnRequest): Promise<PreviewResponse>;
  execute(request: TurnRequest): Promise<TurnResponse>;
  executeStream(request: TurnRequest, signal?: AbortSignal): Promise<TurnStream>;
  continue(message: ContinueRequest): Promise<TurnResponse>;
  continueStream(message: ContinueRequest, signal?: AbortSignal): Promise<TurnStream>;
  traces(page?: { limit?: number; offset?: number }): Promise<TraceResponse["trace"]>;
  usage(): Promise<UsageReport>;
  run(prompt: string, options?: RunOptions): Run;
}

export function sessionHandle(transport: Transport, id: string, key?: SessionKey): Session {
  const path = `/api/v1/sessions/${encodeURIComponent(id)}`;
  const turn = (
    what: "execute" | "continue",
    body: unknown,
    stream: boolean,
    signal?: AbortSignal,
  ) =>
    transport.send({
      method: "POST",
      path: `${path}/${what}`,
      body,
      auth: "bearer",
      providerKeys: true,
      headers: { accept: stream ? "text/event-stream" : "application/json" },
      signal,
    });
  const streamOf = async (response: Promise<Response>) => turnStream((await response).body!);

  /** One request of a run, streamed or buffered, its events reported. */
  async function runStep(
    what: "execute" | "continue",
    body: unknown,
    options: RunOptions,
    hooks: StepHooks,
  ): Promise<TurnResponse> {
    const stream = options.stream ?? true;
    let response: Response;
    try {
      response = await turn(what, body, stream);
    } finally {
      hooks.accepted(); // answered or failed: either way a break need not wait for it
    }
    if (!stream) {
      const envelope = await response.json() as TurnResponse;
      if (hooks.live()) await options.onEvent?.({ type: "turn_end", ...envelope });
      return envelope;
    }
    const events = turnStream(response.body!);
    for await (const event of events) if (hooks.live()) await options.onEvent?.(event);
    return await events.end();
  }

  const session: Session = {
    id,
    key,
    get: async () =>
      (await transport.json<{ session: SessionDetail }>({ method: "GET", path, auth: "bearer" }))
        .session,
    async messages() {
      const detail = await session.get();
      const opened: OpenedMessage[] = [];
      for (const m of detail.messages) {
        const text = "plaintext" in m.content
          ? m.content.plaintext
          : key
          ? await open(key, m.content.encrypted)
          : "[sealed]";
        opened.push({ role: m.role, text, provider: m.provider, model: m.model });
      }
      return opened;
    },
    update: async (change) =>
      (await transport.json<{ session: SessionSummary }>({
        method: "PUT",
        path,
        body: change,
        auth: "bearer",
      }))
        .session,
    archive: () => session.update({ archived: true }),
    async delete() {
      await transport.json({ method: "DELETE", path, auth: "bearer" });
    },
    preview: (request) =>
      transport.json({
        method: "POST",
        path: `${path}/preview`,
        body: request,
        auth: "bearer",
        providerKeys: true,
      }),
    execute: async (request) => (await turn("execute", request, false)).json(),
    executeStream: (request, signal) => streamOf(turn("execute", request, true, signal)),
    continue: async (message) => (await turn("continue", message, false)).json(),
    continueStream: (message, signal) => streamOf(turn("continue", message, true, signal)),
    traces: async (page = {}) =>
      (await transport.json<TraceResponse>({
        method: "GET",
        path: `${path}/traces`,
        query: { limit: page.limit, offset: page.offset },
        auth: "bearer",
      })).trace,
    usage: () => transport.json({ method: "GET", path: `${path}/usage`, auth: "bearer" }),
    run(prompt, options = {}) {
      const input: TurnRequest["input"] = { text: prompt };
      if (options.command) input.command = options.command;
      if (options.explicitModel) input.explicit_model = options.explicitModel;
      const body: TurnRequest = { input };
      if (options.policy) body.policy = options.policy;
      if (options.workspace) body.workspace = options.workspace;
      if (options.attachments) body.attachments = options.attachments;
      if (options.localPreferences) body.local_preferences = options.localPreferences;
      return driveRun({
        key,
        callbacks: options,
        start: async (hooks) => {
          // The prompt is sealed by the client, so the service never stores it readable.
          if (key) input.ciphertext = await seal(key, prompt);
          return runStep("execute", body, options, hooks);
        },
        step: (message, hooks) => runStep("continue", message, options, hooks),
      });
    },
  };
  return session;
}
