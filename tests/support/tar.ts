/**
 * Extracts a ustar archive held in memory: directories and regular files only, which is all the
 * archives a test unpacks contain. Anything else (links, pax or GNU headers, a path leaving the
 * target) is refused rather than guessed at.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join, normalize, sep } from "node:path";

const BLOCK = 512;

export async function extractTar(archive: Uint8Array, target: string): Promise<string[]> {
  const written: string[] = [];
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // the end-of-archive blocks
    const name = entryName(header);
    const size = octal(header, 124, 12);
    const mode = octal(header, 100, 8) & 0o777;
    const type = String.fromCharCode(header[156]);
    const path = join(target, safeRelative(name));
    const body = offset + BLOCK;
    if (type === "5") {
      await mkdir(path, { recursive: true });
    } else if (type === "0" || type === "\0") {
      if (body + size > archive.length) throw new Error(`tar entry "${name}" is truncated`);
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(path, archive.subarray(body, body + size), { mode: mode || 0o644 });
      written.push(path);
    } else {
      throw new Error(`tar entry "${name}": type "${type}" is not supported`);
    }
    offset = body + Math.ceil(size / BLOCK) * BLOCK;
  }
  return written;
}

function entryName(header: Uint8Array): string {
  const name = text(header, 0, 100);
  const ustar = text(header, 257, 6) === "ustar";
  const prefix = ustar ? text(header, 345, 155) : "";
  return prefix ? `${prefix}/${name}` : name;
}

function safeRelative(name: string): string {
  const relative = normalize(name);
  if (isAbsolute(relative) || relative === ".." || relative.startsWith(`..${sep}`)) {
    throw new Error(`tar entry "${name}" leaves the target directory`);
  }
  return relative;
}

function text(header: Uint8Array, start: number, length: number): string {
  const field = header.subarray(start, start + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

function octal(header: Uint8Array, start: number, length: number): number {
  const digits = text(header, start, length).trim();
  const value = digits === "" ? 0 : Number.parseInt(digits, 8);
  if (!Number.isSafeInteger(value)) throw new Error(`tar header field "${digits}" is not octal`);
  return value;
}
