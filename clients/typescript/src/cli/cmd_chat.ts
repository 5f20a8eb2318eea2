/**
 * `switchyard chat [prompt]`: one prompt, or a prompt per line until the end
 * of input, in a new or given session. Text streams to stdout as it arrives;
 * tools run here under the policy's modes, with a yes/no question for `ask`
 * calls and approvals; Ctrl-C sends `break` (twice quits).
 */
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import process from "node:process";
import type { ApprovalRequest } from "../run_answers.ts";
import type { Session } from "../session.ts";
import type { SessionKey } from "../session_key.ts";
import type { Attachments, Policy, TurnRequest, TurnStreamEvent } from "../types.ts";
import type { Context } from "./context.ts";
import { errorReport } from "./error_report.ts";
import { executeTool } from "./local_tools.ts";
import { explainFailure } from "./turn_failure.ts";
import { permissionOf } from "./permissions.ts";

export interface ChatOptions {
  session?: string;
  title?: string;
  policy?: Policy;
  key?: SessionKey;
  root: string;
  attach: string[];
  command?: NonNullable<TurnRequest["input"]["command"]>;
  model?: string;
  buffered: boolean;
}

const brief = (value: unknown) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

function question(request: ApprovalRequest): string {
  if ("call" in request) return `run ${request.call.name} ${brief(request.call.arguments)}?`;
  const detail = request.approval.detail as Record<string, unknown>;
  switch (request.kind) {
    case "remote_disclosure":
      return `send ${brief(detail.paths)} to ${detail.provider}/${detail.model}?`;
    case "cost_limit":
      return `estimated cost up to ${
        brief((detail.estimated_cost as { max?: string })?.max)
      } ${detail.currency} exceeds the limit ${detail.limit}; go on?`;
    default:
      return `plan:\n${detail.plan}\ncarry out this plan?`;
  }
}

async function attachments(root: string, paths: string[]): Promise<Attachments | undefined> {
  if (paths.length === 0) return undefined;
  const files = [];
  for (const path of paths) {
    const content = await readFile(resolve(root, path), "utf8");
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(content)),
    );
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    files.push({
      path: relative(root, resolve(root, path)),
      content,
      content_hash: `sha256:${hex}`,
      required: true,
    });
  }
  return { files, instructions: [] };
}

/** One prompt carried to its end; resolves when the run is idle again. */
async function runPrompt(
  ctx: Context,
  session: Session,
  prompt: string,
  o: ChatOptions,
): Promise<void> {
  let wroteText = false;
  const run = session.run(prompt, {
    policy: o.policy,
    workspace: { root: o.root },
    attachments: await attachments(o.root, o.attach),
    command: o.command,
    explicitModel: o.model,
    stream: !o.buffered,
    onEvent: (event: TurnStreamEvent) => {
      if (event.type === "text_delta") {
        ctx.term.out(event.delta);
        wroteText = true;
      } else if (event.type === "turn_end" && event.status === "completed") {
        if (!wroteText) ctx.term.out(event.data.message.content);
        ctx.term.out("\n");
        wroteText = false;
      }
    },
    onToolCall: (call) => {
      ctx.term.err(`→ ${call.name} ${brief(call.arguments)}\n`);
      return executeTool(call.name, call.arguments, o.root, (p) => permissionOf(o.policy, p));
    },
    onApproval: (request) => ctx.term.confirm(question(request)),
  });
  current = { run, interrupts: 0 };
  try {
    const result = await run;
    if (result.interrupted && wroteText) ctx.term.out("\n");
  } catch (error) {
    if (wroteText) ctx.term.out("\n");
    throw await explainFailure(ctx.client, session.id, error, o.key);
  } finally {
    current = undefined;
  }
}

/** The run Ctrl-C breaks; a second Ctrl-C, or one while no run is going, quits. */
let current: { run: { break(): Promise<void> }; interrupts: number } | undefined;

function onInterrupt(ctx: Context): void {
  if (current === undefined || ++current.interrupts > 1) process.exit(130);
  ctx.term.err("\n[break]\n");
  void current.run.break();
}

export async function chat(
  ctx: Context,
  prompt: string | undefined,
  o: ChatOptions,
): Promise<void> {
  let id = o.session;
  if (id === undefined) {
    // A title is stored readable: an encrypted session's never comes from its prompt.
    const title = o.title ?? (prompt && !o.key ? prompt.slice(0, 60) : "chat");
    id = (await ctx.client.sessions.create({ title }, { key: o.key })).id;
    ctx.term.err(`session ${id}${o.key ? ` (encrypted with ${o.key.keyId})` : ""}\n`);
  }
  const session = ctx.client.session(id, { key: o.key });
  // Installed once for the command: removing a signal listener mid-way can let a late signal kill the process.
  process.on("SIGINT", () => onInterrupt(ctx));
  if (prompt !== undefined) return await runPrompt(ctx, session, prompt, o);
  for (;;) {
    const line = await ctx.term.line("> ");
    if (line === null) return;
    if (line.trim() === "") continue;
    try {
      await runPrompt(ctx, session, line, o);
    } catch (error) {
      ctx.term.err(errorReport(error)); // the session stays usable: go on with the next prompt
    }
  }
}
