/**
 * The name of a user or of an API key (decisions.md §13): 1 to 100 code
 * points, printable (core/operator_text.ts) and not blank. The message says
 * what is wrong and where, never echoing the name, which may be hostile.
 */
import { nameProblem } from "../core/operator_text.ts";
import { boundedText } from "./bounded_text.ts";

/** The most characters a key's or a user's name holds. */
export const MAX_NAME = 100;

/** A key's or a user's name. */
export const Name = boundedText(MAX_NAME).narrow((text, ctx) => {
  const found = nameProblem(text);
  if (found === null) return true;
  const where = found.character === undefined
    ? ""
    : ` (found ${found.character.code} at character ${found.character.at})`;
  return ctx.reject({ message: `${found.problem}${where}` });
});
