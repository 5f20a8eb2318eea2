/**
 * A command line that does not say what to do: an unknown command or action,
 * a missing or extra argument, a flag value of the wrong shape. `switchyard`
 * exits 2 for these, as its help says, and 1 for a command that was understood
 * and failed.
 */
export class UsageError extends Error {
  override name = "UsageError";
}
