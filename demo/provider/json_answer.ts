/**
 * The demo's answer when a request asks for JSON (`response_format`
 * `json_object` or `json_schema`): a valid JSON text carrying the words the
 * demo would have said, shaped by the schema when there is one. Deterministic:
 * the same schema and words give the same text.
 */
import type { Schema } from "./tool_roles.ts";

/** `response_format` as Chat Completions sends it: the parts the demo reads. */
export interface WireResponseFormat {
  type?: string;
  json_schema?: { name?: string; schema?: unknown };
}

/** Properties that take the answer's words; every other string gets a short placeholder. */
const TEXT_FIELD = /^(answer|text|content|message|reply|response|summary|result|output)$/i;

/** Deep enough for any schema a person writes; a recursive one stops here. */
const MAX_DEPTH = 8;

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  let at: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    at = typeof at === "object" && at !== null
      ? (at as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")]
      : undefined;
  }
  return typeof at === "object" && at !== null ? at as Schema : {};
}

/** A value the schema accepts, with `words` in its text fields. */
export function valueFor(
  schema: Schema,
  words: string,
  root = schema,
  depth = 0,
  key = "",
): unknown {
  const s = resolve(schema, root);
  if (depth > MAX_DEPTH) return null;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const choice = s.anyOf ?? s.oneOf;
  if (Array.isArray(choice) && choice.length > 0) {
    // A non-null branch when there is one: `anyOf: [T, {type: "null"}]` is how optional fields look.
    const branch = choice.find((c) => resolve(c, root).type !== "null") ?? choice[0];
    return valueFor(branch, words, root, depth + 1, key);
  }
  const types = Array.isArray(s.type) ? s.type : [s.type ?? (s.properties ? "object" : "string")];
  const type = types.find((t) => t !== "null") ?? "null";
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(s.properties ?? {})) {
        out[name] = valueFor(property, words, root, depth + 1, name);
      }
      return out;
    }
    case "array": {
      const count = Math.max(1, s.minItems ?? 1);
      return Array.from(
        { length: count },
        () => valueFor(s.items ?? {}, words, root, depth + 1, key),
      );
    }
    case "integer":
      return Math.ceil(s.minimum ?? 0);
    case "number":
      return s.minimum ?? 0;
    case "boolean":
      return true;
    case "null":
      return null;
    default: {
      const text = TEXT_FIELD.test(key) || key === "" ? words : "demo";
      return text.padEnd(s.minLength ?? 0, ".");
    }
  }
}

/** The JSON text answering a request that asked for `format`, or undefined for plain text. */
export function jsonAnswer(
  format: WireResponseFormat | undefined,
  words: string,
  model: string,
): string | undefined {
  if (format?.type === "json_object") return JSON.stringify({ answer: words, model });
  if (format?.type !== "json_schema") return undefined;
  const schema = format.json_schema?.schema;
  if (typeof schema !== "object" || schema === null) {
    return JSON.stringify({ answer: words, model });
  }
  return JSON.stringify(valueFor(schema as Schema, words));
}
