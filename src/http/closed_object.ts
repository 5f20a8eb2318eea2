/**
 * An object type that refuses the fields it does not declare, for the bodies
 * an operator or a user writes settings with (decisions.md §13: admin and key
 * bodies): there a misspelt field (`{"budget":{"dialy":"5"}}`, `{"disable":
 * true}`) would otherwise answer 200 and change nothing. Every unknown field
 * is an issue at its own path, "unknown field (budget takes daily and
 * monthly)", checked before the declared fields, so a typo of a required one
 * is named as the typo. Other bodies keep ignoring unknown fields (§2).
 */
import { PlainObject, type } from "./ark.ts";
import { formatPath } from "./validation.ts";

const listed = (names: string[]) =>
  names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;

/** `object` of ark.ts, closed: its definition's keys are the only ones allowed. */
export const closedObject = ((definition: Record<string, unknown>) => {
  const fields = Object.keys(definition).map((key) => key.replace(/\?$/, ""));
  const known = new Set(fields);
  const closed = PlainObject.narrow((value, ctx) => {
    const unknown = Object.keys(value as object).filter((key) => !known.has(key));
    const where = formatPath(ctx.path);
    const takes = `${where === "" ? "the body" : where} takes ${listed(fields)}`;
    for (const key of unknown) {
      ctx.reject({ relativePath: [key], message: `unknown field (${takes})` });
    }
    return unknown.length === 0;
  });
  // A morph between the two makes them run in turn: the keys first, then the declared fields.
  return closed.pipe((value: unknown) => value, type(definition as never));
}) as unknown as typeof type;
