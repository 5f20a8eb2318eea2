/**
 * How an `ImagePart` reaches the wire: inline (media type and base64 data) or
 * by URL. A `data:` URL is inline data written as a URL (OpenAI's clients send
 * images so), so it travels inline to every protocol; only a remote URL needs
 * a protocol that fetches URLs (request_support.ts).
 */
import type { ImagePart } from "./types.ts";

export interface InlineImage {
  readonly mediaType: string;
  readonly data: string;
}

export type WireImage =
  | { readonly kind: "inline"; readonly image: InlineImage }
  | { readonly kind: "url"; readonly url: string };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Base64 openings of the image formats every provider accepts. */
const SIGNATURES: ReadonlyArray<readonly [string, string]> = [
  ["iVBORw0KGgo", "image/png"],
  ["/9j/", "image/jpeg"],
  ["R0lGOD", "image/gif"],
  ["UklGR", "image/webp"],
];

/** The stated media type, else the one the data's first bytes show. */
function mediaTypeOf(image: ImagePart, data: string): string {
  if (image.mediaType) return image.mediaType;
  const known = SIGNATURES.find(([opening]) => data.startsWith(opening));
  // An unknown type is sent as such: the provider names what it accepts.
  return known ? known[1] : "application/octet-stream";
}

export function wireImage(image: ImagePart): WireImage | undefined {
  if (image.data !== undefined) {
    return {
      kind: "inline",
      image: { mediaType: mediaTypeOf(image, image.data), data: image.data },
    };
  }
  if (image.url === undefined) return undefined;
  const inline = DATA_URL.exec(image.url);
  if (inline) return { kind: "inline", image: { mediaType: inline[1], data: inline[2] } };
  return { kind: "url", url: image.url };
}

/** True when the image can only be sent by URL. */
export function isRemoteImage(image: ImagePart): boolean {
  return wireImage(image)?.kind === "url";
}

/** The user messages' images, in order, as they go on the wire. */
export function wireImages(images: readonly ImagePart[] | undefined): WireImage[] {
  const out: WireImage[] = [];
  for (const image of images ?? []) {
    const wire = wireImage(image);
    if (wire) out.push(wire);
  }
  return out;
}
