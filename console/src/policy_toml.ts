/**
 * A stored policy as TOML, as the CLI's `policy show` prints it and its
 * `policy push` reads it back. The policy is plain JSON data: scalars and
 * arrays of scalars become `key = value`, objects become `[tables]`, arrays of
 * objects `[[arrays of tables]]`. TOML has no null; a null field is its
 * default, so it is left out.
 */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Table = { [key: string]: Json };

const isTable = (v: Json): v is Table => typeof v === "object" && v !== null && !Array.isArray(v);
const isTableArray = (v: Json): v is Table[] =>
  Array.isArray(v) && v.length > 0 && v.every(isTable);

/** A bare key when TOML allows one, else a quoted one. */
const key = (k: string) => /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);

/** JSON's string escapes are TOML basic-string escapes. */
function value(v: Json): string {
  if (Array.isArray(v)) return v.length === 0 ? "[]" : `[ ${v.map(value).join(", ")} ]`;
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

function table(t: Table, path: string[], header: string | null, out: string[]): void {
  const lines = Object.entries(t)
    .filter(([, v]) => v !== null && !isTable(v) && !isTableArray(v))
    .map(([k, v]) => `${key(k)} = ${value(v)}`);
  if (header !== null) out.push(`${out.length > 0 ? "\n" : ""}${header}`);
  out.push(...lines);
  for (const [k, v] of Object.entries(t)) {
    const at = [...path, key(k)];
    if (isTable(v)) table(v, at, `[${at.join(".")}]`, out);
    else if (isTableArray(v)) v.forEach((item) => table(item, at, `[[${at.join(".")}]]`, out));
  }
}

export function policyToml(policy: Record<string, unknown>): string {
  const out: string[] = [];
  table(policy as Table, [], null, out);
  return out.join("\n") + "\n";
}
