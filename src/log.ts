/**
 * The one logger. Every line goes through `redact`, so a credential can reach a
 * log only by being smuggled past both the field-name and the value patterns.
 * Bodies, prompts and envelopes are never passed in the first place.
 */

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const SECRET_FIELD = /authorization|api[-_]?key|token|secret|password|credential|cookie/i;
const SECRET_VALUE = [
  /sk-router-api01-[0-9a-f]{32}-[A-Za-z0-9]+/g, // our API keys
  /\b[0-9a-f]{32}-[a-z0-9]{64}\b/g, // our session tokens
  /\b(sk|sk-proj|sk-ant|sk-live)-[A-Za-z0-9_-]{8,}/g, // provider keys
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /(postgres(?:ql)?:\/\/[^:/@\s]+:)[^@\s]+@/g, // a password inside a database URL
];

export function redactString(text: string): string {
  let out = text;
  for (const pattern of SECRET_VALUE) {
    out = out.replace(
      pattern,
      (_m, keep?: string) =>
        typeof keep === "string" && keep.startsWith("postgres")
          ? `${keep}[redacted]@`
          : "[redacted]",
    );
  }
  return out;
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactString(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

export function createLogger(
  write: (line: string) => void,
  now: () => Date = () => new Date(),
): Logger {
  const emit = (level: string, msg: string, fields: LogFields = {}) =>
    write(
      JSON.stringify({ time: now().toISOString(), level, msg, ...(redact(fields) as LogFields) }),
    );
  return {
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}

/**
 * Lines handed to `write` together once the work that logged them yields: one
 * write to stderr per burst instead of one per request line (a synchronous
 * write each, a twentieth of a loaded instance's CPU). `flush` writes what
 * waits at once; the process calls it before it exits.
 */
export function batchedLines(write: (text: string) => void): {
  write(line: string): void;
  flush(): void;
} {
  let waiting: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const text = waiting.join("\n");
    waiting = [];
    write(text);
  };
  return {
    write(line) {
      waiting.push(line);
      timer ??= setTimeout(flush, 0);
    },
    flush,
  };
}

/** A logger that keeps its lines, for tests that scan what was logged. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger((line) => lines.push(line)), { lines });
}
