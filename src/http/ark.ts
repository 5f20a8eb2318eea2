/**
 * arktype as this service uses it. arktype compiles each type to JavaScript,
 * and at load it builds its whole keyword library (string.email,
 * string.date.iso, …), mostly keywords no schema here uses: compiling them
 * all left an idle service 4.5 MB more heap (5 MB more RSS). They are built
 * uncompiled (arktype_keywords.ts); the types made with `type` and `scope`
 * from here are compiled, and with them the keywords they use, so validation
 * runs as fast as before.
 */
import "./arktype_keywords.ts";
import { scope } from "arktype";
import { configure } from "arktype/config";

configure({ jitless: false });

declare global {
  /** The metadata an error of ours may carry (arktype's `ArkEnv.meta`): a bound's limit. */
  interface ArkEnv {
    meta(): { limit?: number };
  }
}

export { scope };
export type { Type } from "arktype";
/** arktype's `type`, in a scope made once compiling is back on. */
export const type = scope({}).type;

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
