import { SwitchyardError } from "../errors.ts";

/** One line for a person: the code to match on, then what happened. */
export function errorLine(error: unknown): string {
  if (error instanceof SwitchyardError) {
    const path = typeof error.details?.path === "string" ? ` (at ${error.details.path})` : "";
    return `error: ${error.code}: ${error.message}${path}`;
  }
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}
