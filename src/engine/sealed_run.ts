/**
 * What an encrypted run keeps across pauses (decisions.md §8): never the run
 * input itself, only references to envelopes the client sealed. The run input
 * of a checkpoint is handed out in `to_encrypt` as `run_input:<turn>` when a
 * pause is written and becomes the `base` once the answer seals it; what the
 * client adds afterwards (tool results, approvals, injected text) is kept as
 * `additions` naming sealed rows. Before the next model call the client opens
 * base and additions again (`awaiting_decrypt`), and the run input is rebuilt
 * in memory for that one request.
 */
import { PLAN_APPROVED } from "./plan_text.ts";
import { cancelUnanswered, readRunInput, type RunInput } from "./run_input.ts";

export type Addition =
  /** One result of a tool pause; `ref` names the client's sealed content, else `content` is the service's. */
  | {
    kind: "tool_result";
    call_id: string;
    ref: string | null;
    content?: string;
    is_error: boolean;
  }
  | { kind: "approvals"; approved_paths: string[]; cost_limit: boolean; plan_approved: boolean }
  /** Injected user text, one sealed message per reference, joined in order. */
  | { kind: "inject"; refs: string[] };

export interface SealedRunState {
  sealed: true;
  /** The last sealed checkpoint of the run input; null until the first is sealed. */
  base: string | null;
  /** A checkpoint handed out in `to_encrypt`, not sealed yet; `skip` additions precede it. */
  pending: { ref: string; skip: number } | null;
  additions: Addition[];
  /** What `sealed` on an encrypt pause leads to: the end of the run, or the decrypt step. */
  then: "idle" | "decrypt";
}

export function newSealedState(): SealedRunState {
  return { sealed: true, base: null, pending: null, additions: [], then: "idle" };
}

export function isSealedState(stored: Record<string, unknown>): boolean {
  return stored.sealed === true;
}

export function readSealedState(stored: Record<string, unknown>): SealedRunState {
  if (!isSealedState(stored)) return newSealedState();
  const s = stored as unknown as SealedRunState;
  return { ...s, additions: [...s.additions] };
}

/** The checkpoint handed out was sealed: it replaces the base and the additions it includes. */
export function adoptSealed(state: SealedRunState, sealedRefs: readonly string[]): void {
  if (state.pending !== null && sealedRefs.includes(state.pending.ref)) {
    state.base = state.pending.ref;
    state.additions = state.additions.slice(state.pending.skip);
    state.pending = null;
  }
}

/** References the client must open to rebuild the run input. */
export function runInputRefs(state: SealedRunState): string[] {
  const refs = state.base === null ? [] : [state.base];
  for (const a of state.additions) {
    if (a.kind === "tool_result" && a.ref !== null) refs.push(a.ref);
    if (a.kind === "inject") refs.push(...a.refs);
  }
  return refs;
}

function opened(plain: Readonly<Record<string, string>>, ref: string): string {
  const text = plain[ref];
  if (typeof text !== "string") throw new Error(`sealed content '${ref}' was not opened`);
  return text;
}

/**
 * The run input of the checkpoint with the additions applied, from the
 * plaintext the client opened. Null when the client's plaintext of the base is
 * not a run input (the client sealed something else under its reference).
 */
export function rebuildRunInput(
  state: SealedRunState,
  plain: Readonly<Record<string, string>>,
): RunInput | null {
  if (state.base === null) return null;
  let input: RunInput;
  try {
    input = readRunInput(JSON.parse(opened(plain, state.base)));
  } catch {
    return null;
  }
  for (const a of state.additions) {
    if (a.kind === "tool_result") {
      const content = a.ref === null ? a.content ?? "" : opened(plain, a.ref);
      input.conversation.push({ role: "tool", callId: a.call_id, content, isError: a.is_error });
    } else if (a.kind === "approvals") {
      input.approved_paths.push(...a.approved_paths);
      if (a.cost_limit) input.cost_limit_approved = true;
      if (a.plan_approved) {
        input.plan_mode = false;
        input.conversation.push({ role: "user", content: PLAN_APPROVED });
      }
    } else {
      cancelUnanswered(input);
      const text = a.refs.map((ref) => opened(plain, ref)).join("\n\n");
      input.conversation.push({ role: "user", content: text });
      input.text = text;
    }
  }
  return input;
}
