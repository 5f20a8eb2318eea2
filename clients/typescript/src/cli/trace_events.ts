/**
 * A session's trace as the CLI reads it: every page of the traces endpoint in
 * order, and sealed payloads opened when the session's key is at hand (the
 * service stores them sealed and cannot read them itself).
 */
import type { SwitchyardClient } from "../client.ts";
import { open, type SessionKey } from "../session_key.ts";
import type { TraceEvent } from "../types.ts";

/** The largest page asked for; the loop goes on until a page comes back short. */
const PAGE = 500;

export async function readTrace(
  client: SwitchyardClient,
  sessionId: string,
  page: { limit?: number; offset?: number } = {},
): Promise<TraceEvent[]> {
  const session = client.session(sessionId);
  if (page.limit !== undefined) {
    return (await session.traces({ limit: page.limit, offset: page.offset }))
      .events;
  }
  const events: TraceEvent[] = [];
  for (let offset = page.offset ?? 0;; offset += PAGE) {
    const got = (await session.traces({ limit: PAGE, offset })).events;
    events.push(...got);
    if (got.length < PAGE) return events;
  }
}

/** The payload of an event sealed under `key`, opened; null when it is not sealed under it. */
export async function openedPayload(
  event: TraceEvent,
  key: SessionKey | undefined,
): Promise<Record<string, unknown> | null> {
  const payload = event.payload;
  if (!("encrypted" in payload) || key?.keyId !== payload.encrypted.key_id) {
    return null;
  }
  return JSON.parse(await open(key, payload.encrypted));
}

/** The events with every payload sealed under `key` opened in place; others stay as they are. */
export async function openTrace(
  events: readonly TraceEvent[],
  key: SessionKey | undefined,
): Promise<TraceEvent[]> {
  return await Promise.all(events.map(async (event) => {
    const plaintext = await openedPayload(event, key);
    return plaintext === null ? event : { ...event, payload: { plaintext } } as TraceEvent;
  }));
}
