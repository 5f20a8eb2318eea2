import { type Type, type } from "./ark.ts";
import { ServiceError } from "../core/errors.ts";

/** `["policy", "routing", "rules", 2, "effort"]` → `policy.routing.rules[2].effort`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

export interface Issue {
  path: string;
  message: string;
}

/** Checks a parsed body; a failure is 422 `invalid_request` naming the first failing field. */
export function validate<T>(schema: Type<T>, value: unknown): T {
  const out = schema(value);
  if (out instanceof type.errors) {
    const issues: Issue[] = out.map((e) => ({ path: formatPath(e.path), message: e.message }));
    const first = issues[0];
    // A bound's limit (bounded_text.ts) rides on its error, for clients that show it.
    const limit = out[0].meta?.limit;
    throw ServiceError.of(
      "invalid_request",
      `invalid request body: ${
        first.path === "" ? first.message : `${first.path}: ${first.message}`
      }`,
      { path: first.path, ...(typeof limit === "number" ? { limit } : {}), issues },
    );
  }
  return out as T;
}
