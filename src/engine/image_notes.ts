/**
 * Images a chosen model cannot take (decisions.md §12 "Images"): each is
 * replaced by a text note where it stood, `[image omitted: image/png, 48213
 * bytes]`, so a screenshot in a conversation's history or a tool result never
 * makes the conversation fail; the trace lists what was left out. Pure.
 */
import { wireImage } from "../providers/image_parts.ts";
import type { ChatMessage, ImagePart } from "../providers/types.ts";

export interface OmittedImage {
  /** 1-based position of the message in the conversation sent. */
  message: number;
  media_type: string | null;
  /** Decoded size of inline data; null for an image given by URL. */
  bytes: number | null;
}

/** The decoded length of base64 text. */
function base64Bytes(data: string): number {
  const clean = data.replace(/[\s]/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function describe(image: ImagePart, message: number): OmittedImage {
  const wire = wireImage(image);
  if (wire?.kind === "inline") {
    return { message, media_type: wire.image.mediaType, bytes: base64Bytes(wire.image.data) };
  }
  return { message, media_type: image.mediaType ?? null, bytes: null };
}

export function imageNote(o: OmittedImage): string {
  return o.bytes === null
    ? `[image omitted: ${o.media_type ?? "image"} by URL]`
    : `[image omitted: ${o.media_type}, ${o.bytes} bytes]`;
}

function withNotes(content: string, notes: readonly string[]): string {
  return [content, ...notes].filter((part) => part !== "").join("\n");
}

/**
 * The messages with each image `omit` picks (every one by default) replaced by
 * its note, and what was omitted.
 */
export function imagesAsNotes(
  messages: readonly ChatMessage[],
  omit: (image: ImagePart, message: ChatMessage) => boolean = () => true,
): { messages: ChatMessage[]; omitted: OmittedImage[] } {
  const omitted: OmittedImage[] = [];
  const out = messages.map((m, i): ChatMessage => {
    if (m.role === "assistant" || (m.images?.length ?? 0) === 0) return m;
    const gone = m.images!.filter((image) => omit(image, m));
    if (gone.length === 0) return m;
    const kept = m.images!.filter((image) => !gone.includes(image));
    const notes = gone.map((image) => describe(image, i + 1));
    omitted.push(...notes);
    const content = withNotes(m.content, notes.map(imageNote));
    const images = kept.length === 0 ? {} : { images: kept };
    return m.role === "user"
      ? { role: "user", content, ...images }
      : { role: "tool", callId: m.callId, content, isError: m.isError, ...images };
  });
  return { messages: out, omitted };
}
