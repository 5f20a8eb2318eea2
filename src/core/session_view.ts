/** How a stored session is shown to its owner (interface.md: Session summary / detail). */

export interface SessionRecord {
  id: string;
  title: string | null;
  scope: string | null;
  key_id: string | null;
  archived: boolean;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRecord {
  role: string;
  content: Record<string, unknown>;
  provider: string | null;
  model: string | null;
}

export interface SessionSummary {
  id: string;
  title: string | null;
  scope?: string;
  encrypted: boolean;
  key_id?: string;
  created_at: string;
  updated_at: string;
  archived: boolean;
}

export interface SessionMessage {
  role: string;
  content: Record<string, unknown>;
  provider?: string;
  model?: string;
}

export interface SessionDetail {
  id: string;
  title: string | null;
  key_id?: string;
  created_at: string;
  updated_at: string;
  messages: SessionMessage[];
  metadata: Record<string, unknown>;
}

export function sessionSummary(s: SessionRecord): SessionSummary {
  return {
    id: s.id,
    title: s.title,
    ...(s.scope === null ? {} : { scope: s.scope }),
    encrypted: s.key_id !== null,
    ...(s.key_id === null ? {} : { key_id: s.key_id }),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
    archived: s.archived,
  };
}

export function sessionMessage(m: MessageRecord): SessionMessage {
  return {
    role: m.role,
    content: m.content,
    ...(m.provider === null ? {} : { provider: m.provider }),
    ...(m.model === null ? {} : { model: m.model }),
  };
}

/** The detail has no `encrypted` flag: `key_id` presence is the marker. */
export function sessionDetail(s: SessionRecord, messages: MessageRecord[]): SessionDetail {
  return {
    id: s.id,
    title: s.title,
    ...(s.key_id === null ? {} : { key_id: s.key_id }),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
    // A message of an encrypted session keeps no content until the client seals it;
    // one never sealed (the client broke off) is not part of the history.
    messages: messages.filter((m) =>
      m.content.plaintext !== undefined || m.content.encrypted !== undefined
    )
      .map(sessionMessage),
    metadata: s.metadata,
  };
}
