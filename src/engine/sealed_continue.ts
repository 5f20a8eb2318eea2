/**
 * Continuations of an encrypted session (decisions.md §8). Every answer first
 * stores what the client sealed; a tool or approval answer then asks the
 * client to open the run's checkpoint again (`awaiting_decrypt`), `decrypted`
 * rebuilds the run input in memory and runs the turn loop, `sealed` ends the
 * run or moves on to the decrypt step. `break` seals a partial reply through
 * `awaiting_encrypt`; `inject` goes on from the last sealed checkpoint.
 */
import type { Continuation } from "../core/continuation.ts";
import type { CheckedContinuation } from "../core/continuation_check.ts";
import { ServiceError } from "../core/errors.ts";
import { idleEnvelope } from "../core/turn_envelope.ts";
import { newRecipientKeys } from "../platform/handoff_cipher.ts";
import { supersede } from "../store/run_admission.ts";
import { returnToClient, type RunRow } from "../store/runs.ts";
import { additionsOf, recordAnswer } from "./answer_records.ts";
import { respondWithTurn } from "./respond.ts";
import { cancelUnanswered, type RunInput } from "./run_input.ts";
import { receiveHandoff } from "./partial_handoff.ts";
import { type SealScope, sealScope, storeSealed } from "./seal_scope.ts";
import { adoptSealed, readSealedState, rebuildRunInput } from "./sealed_run.ts";
import { decryptStep, encryptStep, type SealedTurn } from "./sealed_steps.ts";
import { cancelPendingCalls, type TurnCall, turnContextFor } from "./start_run.ts";
import type { TurnBase, TurnContext, TurnResult } from "./turn_context.ts";
import { runTurns } from "./turn_loop.ts";
import { finishTurn, persistMessage } from "./turn_records.ts";

/** How long a break or inject waits for the hand-off of the turn it cut. */
const HANDOFF_WAIT_MS = 2_000;

async function idleTurn(t: SealedTurn): Promise<TurnResult> {
  if (!(await finishTurn(t, "idle"))) return { kind: "superseded" };
  return { kind: "envelope", envelope: idleEnvelope(t.turnId) };
}

function seal(call: TurnCall, run: RunRow): SealScope {
  return sealScope(call.session.key_id, readSealedState(run.run_input))!;
}

/** A checked answer to the pause of a claimed encrypted run. */
export async function continueSealed(
  call: TurnCall,
  run: RunRow,
  original: Continuation,
  checked: Exclude<CheckedContinuation, { type: "break" | "inject" }>,
  turnId: string,
): Promise<Response> {
  const { deps, session } = call;
  const scope = seal(call, run);
  const st: SealedTurn = { deps, session, runId: run.id, turnId, seal: scope };
  adoptSealed(scope.state, Object.keys(checked.sealed));
  let base: TurnBase | null = null;
  if (checked.type === "decrypted") {
    const input = rebuildRunInput(scope.state, checked.plaintext);
    if (input === null) {
      await returnToClient(deps.db, { runId: run.id, turnId, now: deps.now() });
      throw ServiceError.of(
        "invalid_request",
        "invalid decrypted content: the run input did not open to a run input",
        { path: "data.plaintext" },
      );
    }
    scope.plain = checked.plaintext;
    base = await turnContextFor(call, { runId: run.id, turnId, input, seal: scope });
  }
  return await respondWithTurn({
    deps,
    sessionId: call.session.id,
    runId: run.id,
    turnId,
    seq: run.supersede_seq,
    stream: call.stream,
    surface: call.surface,
    timing: call.timing,
    async run(live) {
      await storeSealed(deps.db, session.id, checked.sealed, deps.now());
      if (checked.type === "decrypted") return await runTurns({ ...base!, ...live });
      if (checked.type === "sealed") {
        return scope.state.then === "decrypt" ? await decryptStep(st) : await idleTurn(st);
      }
      const resume = await recordAnswer({ ...st }, checked);
      if (resume === "idle") return await idleTurn(st);
      scope.state.additions.push(...additionsOf(checked, original));
      return await decryptStep(st);
    },
  });
}

type Superseding = Extract<CheckedContinuation, { type: "break" | "inject" }>;

/** Persists the injected text: the client's own envelopes, or one message to seal. */
async function persistInjected(
  t: SealedTurn,
  checked: Extract<Superseding, { type: "inject" }>,
  messages: number,
) {
  const scope = { ...t, seal: t.seal };
  if (checked.ciphertexts.length === messages) {
    const refs: string[] = [];
    for (const envelope of checked.ciphertexts) {
      const seq = await persistMessage(scope, { role: "user", text: "", sealed: { ...envelope } });
      refs.push(`message:${seq}`);
    }
    return { refs, pending: false };
  }
  const seq = await persistMessage(scope, { role: "user", text: checked.text });
  return { refs: [`message:${seq}`], pending: true };
}

/** `break` and `inject` on an encrypted run (live: the run as admission read it). */
export async function supersedeSealed(
  call: TurnCall,
  original: Continuation,
  checked: Superseding,
  live: RunRow,
  turnId: string,
): Promise<Response> {
  const { deps, session } = call;
  if (
    checked.type === "inject" && live.state === "awaiting_client" &&
    readSealedState(live.run_input).base === null
  ) {
    throw ServiceError.of(
      "invalid_request",
      "invalid inject: the run has no sealed checkpoint yet; answer the pause or break",
      { path: "data.messages" },
    );
  }
  const keys = await newRecipientKeys();
  const taken = await supersede(deps.db, {
    sessionId: session.id,
    turnId,
    instance: deps.instance,
    now: deps.now(),
    handoffKey: keys.publicKey,
  });
  if (taken === null) {
    throw ServiceError.of(
      "no_active_run",
      `no active run: nothing to continue with '${checked.type}'`,
    );
  }
  deps.telemetry.runClaimed(checked.type, true);
  const runId = taken.run.id;
  deps.watcher.superseded(runId, taken.run.supersede_seq);
  const scope = seal(call, taken.previous);
  // A checkpoint handed out but never sealed is lost with the pause it belonged to.
  scope.state.pending = null;
  const st: SealedTurn = { deps, session, runId, turnId, seal: scope };
  await cancelPendingCalls(
    deps,
    { sessionId: session.id, traceId: turnId, now: deps.now() },
    taken.previous,
    scope,
  );
  const handoff = taken.handoff === null
    ? null
    : await receiveHandoff(deps.db, keys, taken.handoff, HANDOFF_WAIT_MS);
  if (handoff !== null) {
    Object.assign(scope.toEncrypt, handoff.toEncrypt);
    if (handoff.partial) scope.toEncrypt[handoff.partial.ref] = handoff.partial.text;
  }
  let base: TurnBase | null = null;
  if (checked.type === "inject" && handoff !== null) {
    const input: RunInput = handoff.input;
    scope.plain = handoff.plain;
    base = await turnContextFor(call, { runId, turnId, input, seal: scope });
  } else if (checked.type === "inject" && scope.state.base === null) {
    await finishTurn(st, "idle");
    throw ServiceError.of(
      "invalid_request",
      "invalid inject: the run's input was never sealed; the run was stopped",
      { path: "data.messages" },
    );
  }
  return await respondWithTurn({
    deps,
    sessionId: call.session.id,
    runId,
    turnId,
    seq: taken.run.supersede_seq,
    stream: call.stream,
    surface: call.surface,
    timing: call.timing,
    async run(live) {
      if (checked.type === "break") {
        return handoff?.partial ? await encryptStep(st, "idle") : await idleTurn(st);
      }
      const messages = original.type === "inject" ? original.data.messages.length : 0;
      const injected = await persistInjected(st, checked, messages);
      scope.state.additions.push({ kind: "inject", refs: injected.refs });
      if (base !== null) {
        const t: TurnContext = { ...base, ...live };
        cancelUnanswered(t.input);
        t.input.conversation.push({ role: "user", content: checked.text });
        t.input.text = checked.text;
        return await runTurns(t);
      }
      return injected.pending ? await encryptStep(st, "decrypt") : await decryptStep(st);
    },
  });
}
