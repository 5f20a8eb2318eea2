/**
 * arktype as this service uses it. arktype compiles a type to JavaScript
 * when it is made, together with every type it references, and keeps the
 * source. Made that way, each part of a body's schema would be compiled
 * again with every schema built on it, and an idle service would keep the
 * turn request's source in several copies (6.7 MB of its heap). So the parts
 * are made uncompiled (`type`, `object`), as is arktype's keyword library as
 * it loads (arktype_keywords.ts), and each schema a request is checked with
 * is compiled once, whole (`compiled`).
 */
import "./arktype_keywords.ts";
import { scope } from "arktype";

declare global {
  /** The metadata an error of ours may carry (arktype's `ArkEnv.meta`): a bound's limit. */
  interface ArkEnv {
    meta(): { limit?: number };
  }
}

export type { Type } from "arktype";
/** arktype's `type`, for the parts of a schema: uncompiled. */
export const type = scope({}, { jitless: true }).type;

/**
 * `schema`, compiled with all it references. `clone: false` makes it fill
 * defaults in and delete unknown fields in the body itself, rather than in a
 * deep copy it makes first.
 */
export function compiled<T>(schema: T, config: { clone?: false } = {}): T {
  return scope({}, { ...config, jitless: false }).type(schema as never) as unknown as T;
}

/**
 * What `object` checks first: a JSON object, never an array. Its test is its
 * `instanceof`, which arktype checks before any key, so `[]` where an object
 * belongs fails at that path rather than at one of its missing keys.
 */
class JsonObject {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

export const PlainObject = type.instanceOf(JsonObject).describe("an object");

/**
 * arktype's `type` for an object definition, refusing arrays: arktype's object
 * types accept them (an array is an object). Every object of a request body
 * is made with this.
 */
export const object =
  ((definition: unknown) => PlainObject.and(type(definition as never))) as unknown as typeof type;
