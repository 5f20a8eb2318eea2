// @switchyard/client: the typed client of the Switchyard service.
export { type ClientOptions, createClient, type SwitchyardClient } from "./client.ts";
export {
  type AddedUser,
  type AdminClient,
  type AdminClientOptions,
  type AdminUser,
  createAdminClient,
  type UserUpdate,
} from "./admin_client.ts";
export type { ApiKeyInfo, CreatedApiKey, KeysApi } from "./keys.ts";
export {
  type Choice,
  type ContextLine,
  fallbacksTaken,
  replayTurns,
  type Spend,
  type ToolCall,
  type TurnDecision,
  turnsByMessage,
} from "./decision.ts";
export { sumDecimals } from "./decimal.ts";
export { toolCallLabel } from "./tool_label.ts";
export {
  callPerTurn,
  sessionTurns,
  type Turn,
  type TurnOptions,
  turnsAtMessages,
  type TurnStep,
} from "./turns.ts";
export { type ClientErrorCode, SwitchyardError } from "./errors.ts";
export type { Run, RunResult } from "./run.ts";
export type { ApprovalAnswer, ApprovalRequest, RunCallbacks, ToolOutcome } from "./run_answers.ts";
export type { OpenedMessage, RunOptions, Session } from "./session.ts";
export {
  createSessionKey,
  ENVELOPE_ALGORITHM,
  exportSessionKey,
  importSessionKey,
  open,
  seal,
  type SessionKey,
} from "./session_key.ts";
export { providerKeyHeader } from "./transport.ts";
export type { TurnStream } from "./turn_stream.ts";
export type * from "./types.ts";
export type { components, paths } from "./openapi.ts";
