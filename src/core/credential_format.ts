/**
 * The textual shapes of API keys and session tokens (decisions.md §1). Parsing
 * is pure; making the random parts is the caller's job.
 */

export const API_KEY_PREFIX = "sk-router-api01-";
const HEX32 = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN = /^([0-9a-f]{32})-([a-z0-9]{64})$/;

export function isUuid(value: string): boolean {
  return UUID.test(value.toLowerCase());
}

export function compactUuid(uuid: string): string {
  return uuid.replaceAll("-", "").toLowerCase();
}

export function expandUuid(hex32: string): string {
  return `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${
    hex32.slice(16, 20)
  }-${hex32.slice(20)}`;
}

export function formatApiKey(userId: string, secret: string): string {
  return `${API_KEY_PREFIX}${compactUuid(userId)}-${secret}`;
}

/** `null` for anything that is not a well-formed key; the caller answers all failures alike. */
export function parseApiKey(key: string): { userId: string; secret: string } | null {
  if (!key.startsWith(API_KEY_PREFIX)) return null;
  const rest = key.slice(API_KEY_PREFIX.length);
  const dash = rest.indexOf("-");
  if (dash < 0) return null;
  const id = rest.slice(0, dash);
  const secret = rest.slice(dash + 1);
  if (!HEX32.test(id) || secret.length === 0) return null;
  return { userId: expandUuid(id), secret };
}

export function formatToken(tokenId: string, secret: string): string {
  return `${compactUuid(tokenId)}-${secret}`;
}

export function parseToken(token: string): { tokenId: string; secret: string } | null {
  const match = TOKEN.exec(token);
  return match ? { tokenId: expandUuid(match[1]), secret: match[2] } : null;
}

/** `Authorization: Bearer <token>`: scheme case-insensitive, exactly one space. */
export function parseBearer(header: string): string | null {
  const space = header.indexOf(" ");
  if (space < 0 || header.slice(0, space).toLowerCase() !== "bearer") return null;
  const token = header.slice(space + 1);
  return token.length > 0 && !token.includes(" ") ? token : null;
}
