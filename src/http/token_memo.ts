/**
 * The session tokens this instance authenticated, so that a turn presenting
 * one need not read it before its claim: the claim checks it in the same
 * statement (engine/claim_auth.ts). Only a hint, as the history cache is: the
 * store decides every time, and what the memo holds only picks which way a
 * turn is authenticated, never whether. A token is kept with its secret's
 * digest (never the secret), its user and its expiry; a turn whose claim
 * refuses it forgets it. API keys verified here are kept the same way (by
 * the digest of the whole key, with their user) for the compatible surfaces,
 * whose turn's one read checks the key. Sessions found encrypted are kept too: their turns
 * are authenticated first (the claim that checks the token takes only
 * plaintext sessions), an encrypted session never becoming plaintext.
 */
import { digestsEqual } from "../platform/secrets.ts";

export interface TokenMemo {
  /** The user of token `tokenId` when it was authenticated with this digest and is not expired. */
  userOf(tokenId: string, digest: string, now: number): string | null;
  remember(tokenId: string, token: { digest: string; userId: string; expiresAt: Date }): void;
  forget(tokenId: string): void;
  /** The user of the API key whose whole text has this digest, when it was verified here. */
  keyUser(wholeDigest: string): string | null;
  rememberKey(wholeDigest: string, userId: string): void;
  forgetKey(wholeDigest: string): void;
  isSealed(sessionId: string): boolean;
  markSealed(sessionId: string): void;
}

/** At most this many tokens and this many encrypted sessions are kept; the oldest goes first. */
const MAX_ENTRIES = 10_000;

function bounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

export function tokenMemo(): TokenMemo {
  const tokens = new Map<string, { digest: string; userId: string; expiresAt: number }>();
  const sealed = new Map<string, true>();
  // Keyed by the digest of the whole key: a key is found by what was presented, never by its id.
  const keys = new Map<string, string>();
  return {
    userOf(tokenId, digest, now) {
      const found = tokens.get(tokenId);
      if (found === undefined || !digestsEqual(digest, found.digest)) return null;
      return found.expiresAt > now ? found.userId : null;
    },
    remember(tokenId, token) {
      bounded(tokens, tokenId, { ...token, expiresAt: token.expiresAt.getTime() });
    },
    forget: (tokenId) => void tokens.delete(tokenId),
    keyUser: (wholeDigest) => keys.get(wholeDigest) ?? null,
    rememberKey: (wholeDigest, userId) => bounded(keys, wholeDigest, userId),
    forgetKey: (wholeDigest) => void keys.delete(wholeDigest),
    isSealed: (sessionId) => sealed.has(sessionId),
    markSealed: (sessionId) => bounded(sealed, sessionId, true),
  };
}
