/**
 * What one claimed turn works with, and how it ends. The fence is `turnId`:
 * every run update names it and does nothing once another request took the
 * run over, which the loop reads as "superseded".
 */
import type { Failure } from "../core/errors.ts";
import type { HistoryMessage, MemoryEntry } from "../core/run_items.ts";
import type { TurnRecords } from "../store/turn_writes.ts";
import type { TurnEnvelope } from "../core/turn_envelope.ts";
import type { Deps } from "../deps.ts";
import type { ProviderCredentials } from "../providers/credentials.ts";
import type { StopReason } from "../providers/types.ts";
import type { RequestCatalog } from "../providers/request_catalog.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { SupersedeSignals } from "../store/supersede_signal.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { TurnProbe } from "../telemetry/turn_probe.ts";
import type { Handoff } from "./partial_handoff.ts";
import type { RunInput } from "./run_input.ts";
import type { SealScope } from "./seal_scope.ts";
import type { TurnSink } from "./turn_sink.ts";
import type { TurnWatcher } from "./turn_watch.ts";
import type { TurnWriter } from "../store/turn_writer.ts";
import type { ExecuteClaimer } from "../store/run_admission.ts";
import type { LostTurns } from "./lost_turns.ts";
import type { PhaseClock } from "../telemetry/phase_clock.ts";

/** Per-instance machinery of the engine. */
export interface EngineDeps extends Deps {
  signals: SupersedeSignals;
  /** This service instance, recorded with its claims. */
  instance: string;
  telemetry: Telemetry;
  /** Watches every turn this instance serves for supersedes, and renews their leases. */
  watcher: TurnWatcher;
  /** Writes the ends of turns, many in one transaction under load. */
  turns: TurnWriter;
  /** Claims runs for `execute`, many in one transaction under load. */
  claims: ExecuteClaimer;
  /** Turns over here whose runs the store did not let them end: ended once it takes writes. */
  lost: LostTurns;
}

/**
 * What a turn knows of its session: which, whose, and whether encrypted
 * (none of these ever changes), so a claim that checks them can stand for
 * reading the row.
 */
export type TurnSession = Pick<SessionRow, "id" | "user_id" | "key_id">;

/** A turn's context as built before its claim. */
export interface TurnBase {
  deps: EngineDeps;
  session: TurnSession;
  runId: string;
  /** The claim's turn: the fence of every run update, and the `trace_id` of its events. */
  turnId: string;
  rc: RequestCatalog;
  credentials: ProviderCredentials;
  input: RunInput;
  /** Set exactly for an encrypted session. */
  seal: SealScope | null;
  /** The request's phases (decision, budget, provider, write land here). */
  timing: PhaseClock;
  /** What the claim read for the turn, so its first model call reads nothing more. */
  reading?: { history: HistoryMessage[]; memory: MemoryEntry[] };
  /**
   * Whether the user has a budget, as the claim read it (engine/budget_gate.ts):
   * false skips the budget's round trip before each model call; undefined: not
   * known, the first call's admission finds out.
   */
  budgeted?: boolean;
}

/** What a claimed turn runs with. */
export interface TurnLive {
  sink: TurnSink;
  /** Aborted when a `break` or `inject` supersedes the turn. */
  signal: AbortSignal;
  /** `supersede_seq` as the claim left it: the request that cuts the turn sets the next. */
  seq: number;
  /** What the turn wrote so far and not yet stored (store/turn_writes.ts). */
  records: TurnRecords;
  /** Metrics and spans of this turn. */
  probe: TurnProbe;
}

export type TurnContext = TurnBase & TurnLive;

/**
 * The reply of a turn of one model call, as the model gave it (a compatible
 * surface's request): the surface writes it in its own shape.
 */
export interface ModelAnswer {
  provider: string;
  model: string;
  text: string;
  toolCalls: { callId: string; name: string; arguments: Record<string, unknown> }[];
  stopReason: StopReason | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** The part of `inputTokens` read from the provider's cache; absent: none reported. */
  cacheReadTokens?: number;
  /** The part of `inputTokens` written to the provider's cache; absent: none reported. */
  cacheWriteTokens?: number;
}

export type TurnResult =
  | { kind: "envelope"; envelope: TurnEnvelope }
  | { kind: "answer"; answer: ModelAnswer }
  /** A terminal failure: the run is in `error`. */
  | { kind: "failure"; failure: Failure }
  /**
   * Another request took the run over; this one answers `idle`. An encrypted
   * turn hands what it held in memory to that request.
   */
  | { kind: "superseded"; handoff?: Handoff };
