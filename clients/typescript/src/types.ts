/**
 * The client's public types, named after the OpenAPI document's schemas
 * (`openapi.ts`, generated). Where the document describes a union by rules the
 * generator cannot express (a turn's `data` by `status`), the union is spelled
 * out here from the generated member types.
 */
import type { components } from "./openapi.ts";

type Schemas = components["schemas"];

export type ErrorCode = Schemas["ErrorCode"];
export type Envelope = Schemas["Envelope"];
export type PlaintextMap = Schemas["PlaintextMap"];
export type EnvelopeMap = Schemas["EnvelopeMap"];
export type BootstrapResponse = Schemas["BootstrapResponse"];
export type SignInResponse = Schemas["SignInResponse"];
export type SessionSummary = Schemas["SessionSummary"];
export type SessionDetail = Schemas["SessionDetail"];
export type SessionMessage = Schemas["SessionMessage"];
export type CreateSessionRequest = Schemas["CreateSessionRequest"];
export type UpdateSessionRequest = Schemas["UpdateSessionRequest"];
export type Policy = Schemas["Policy"];
export type NamedPolicy = Schemas["NamedPolicy"];
export type PolicyVersionSummary = Schemas["PolicyVersionSummary"];
export type Attachments = Schemas["Attachments"];
export type TurnRequest = Schemas["TurnRequest"];
export type Workspace = NonNullable<TurnRequest["workspace"]>;
export type LocalPreferences = NonNullable<TurnRequest["local_preferences"]>;
export type ContinueRequest = Schemas["ContinueRequest"];
export type ContinuationKind = Schemas["ContinuationKind"];
export type ToolRequest = Schemas["ToolRequest"];
export type ToolResult = Schemas["ToolResult"];
export type PendingApproval = Schemas["PendingApproval"];
export type ApprovalDecision = Schemas["ApprovalDecision"];
export type TurnMessage = Schemas["TurnMessage"];
export type CompletedData = Schemas["CompletedData"];
export type PreviewResponse = Schemas["PreviewResponse"];
export type TraceResponse = Schemas["TraceResponse"];
export type TraceEvent = Schemas["TraceEvent"];
export type UsageReport = Schemas["UsageReport"];
export type PeriodUsageReport = Schemas["PeriodUsageReport"];
export type UsageDay = Schemas["UsageDay"];
export type BudgetStatus = Schemas["BudgetStatus"];
export type ProviderDescriptor = Schemas["ProviderDescriptor"];
export type ModelDescriptor = Schemas["ModelDescriptor"];
export type ModelListResponse = Schemas["ModelListResponse"];
export type TurnStatus = Schemas["TurnStatus"];

/** The answer to execute or continue, discriminated by `status`. */
export type TurnResponse =
  | TurnOf<"completed", CompletedData>
  | TurnOf<"awaiting_tool", Schemas["AwaitingToolData"]>
  | TurnOf<"awaiting_approval", Schemas["AwaitingApprovalData"]>
  | TurnOf<"awaiting_decrypt", Schemas["AwaitingDecryptData"]>
  | TurnOf<"awaiting_encrypt", Schemas["AwaitingEncryptData"]>
  | TurnOf<"idle", Record<string, unknown>>
  | TurnOf<"error", { error?: { code: string; message: string } }>;

export interface TurnOf<S extends TurnStatus, D> {
  status: S;
  data: D;
  allowed_continuations: ContinuationKind[];
}

type StreamEventOf<T extends string> = Extract<Schemas["TurnStreamEvent"], { type: T }>;

/** One server-sent event of a streamed turn; a stream ends with exactly one `turn_end`. */
export type TurnStreamEvent =
  | StreamEventOf<"text_delta">
  | StreamEventOf<"reasoning_delta">
  | StreamEventOf<"tool_call_started">
  | StreamEventOf<"tool_call_requested">
  | StreamEventOf<"usage">
  | TurnEndEvent;

export type TurnEndEvent = { type: "turn_end" } & TurnResponse;
