/** New turns are refused while the instance drains (on SIGTERM/SIGINT, main.ts). */
import { ServiceError } from "../core/errors.ts";
import type { Deps } from "./context.ts";

export function acceptTurns(deps: Deps): void {
  if (deps.draining?.() === true) {
    throw ServiceError.of(
      "shutting_down",
      "this instance is shutting down and takes no new turns: retry on another instance",
    );
  }
}
