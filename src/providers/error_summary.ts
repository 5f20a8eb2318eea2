/**
 * Turning a provider's error answer into a `ProviderError` whose message is
 * safe to show: the status decides the category (decisions.md §11), the
 * provider's own error body may refine it and is summarised, and nothing that
 * looks like a credential survives into the message.
 */
import { categoriseStatus, ProviderError, type ProviderErrorCategory } from "./errors.ts";

/** What an adapter reads out of its provider's error body. */
export interface ErrorDetail {
  /** The provider's machine-readable type or code, e.g. "rate_limit_error". */
  readonly code?: string;
  readonly message?: string;
  /** A category the body makes more precise than the status alone. */
  readonly category?: ProviderErrorCategory;
}

export type ErrorDetailReader = (body: unknown) => ErrorDetail;

const MAX_SUMMARY = 200;
const KEY_SHAPES = /\b(?:sk-[A-Za-z0-9_*.-]{3,}|AIza[0-9A-Za-z_-]{8,}|Bearer\s+\S+)/g;

/** Removes the key itself and anything shaped like a key (providers echo masked keys). */
export function redact(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey !== undefined && apiKey !== "") out = out.split(apiKey).join("[redacted]");
  return out.replace(KEY_SHAPES, "[redacted]");
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_SUMMARY ? `${flat.slice(0, MAX_SUMMARY)}…` : flat;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The error for a non-2xx answer. For credential rejections (401, 403 and any
 * body-refined credential category) the provider's prose is left out entirely:
 * those messages are where providers echo (masked) keys.
 */
export function errorFromStatus(
  provider: string,
  status: number,
  bodyText: string,
  readDetail: ErrorDetailReader,
  apiKey?: string,
): ProviderError {
  const body = parseBody(bodyText);
  const detail = body === undefined ? {} : safeDetail(readDetail, body);
  const category = detail.category ?? categoriseStatus(status);
  const aboutCredentials = category === "invalid_credentials" || category === "authentication" ||
    status === 401 || status === 403;
  const parts = [`${provider} answered HTTP ${status}`];
  if (detail.code) parts.push(clip(detail.code));
  if (detail.message && !aboutCredentials) parts.push(`"${clip(detail.message)}"`);
  return new ProviderError(category, redact(parts.join(": "), apiKey), provider, status);
}

function safeDetail(readDetail: ErrorDetailReader, body: unknown): ErrorDetail {
  try {
    return readDetail(body);
  } catch {
    return {};
  }
}

/** An error the provider reported inside a stream that had started well. */
export function streamedError(
  provider: string,
  detail: ErrorDetail,
  fallback: ProviderErrorCategory,
  apiKey?: string,
): ProviderError {
  const parts = [`${provider} reported an error mid-stream`];
  if (detail.code) parts.push(clip(detail.code));
  if (detail.message) parts.push(`"${clip(detail.message)}"`);
  return new ProviderError(detail.category ?? fallback, redact(parts.join(": "), apiKey), provider);
}
