/**
 * The embedded store's own thread (pglite_thread.ts): PGlite executes every
 * statement synchronously in WASM, so on the request thread it would hold up
 * every other request and stream for as long as a statement runs. Here it
 * answers `query` and `exec` messages in the order they arrive.
 */
import { openPglite } from "./pglite_driver.ts";
import type { Db } from "./db.ts";
import type { StoreReply, StoreRequest } from "./pglite_thread.ts";

declare const self: {
  onmessage: ((event: MessageEvent<StoreRequest>) => void) | null;
  postMessage(reply: StoreReply): void;
};

/** What an error carries across: its name, message and the driver's fields (code, detail…). */
function plainError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      fields[key] = value;
    }
  }
  return fields;
}

let db: Db | null = null;

self.onmessage = async ({ data: request }) => {
  try {
    switch (request.kind) {
      case "open":
        db = await openPglite(request.path, request.assets);
        // A new store is made by a throwaway PGlite instance (initdb) whose hundreds of MB of
        // WASM memory would stay resident until memory pressure; `gc` is there when the runtime
        // exposes it (`deno task start` passes --expose-gc).
        (globalThis as { gc?: () => void }).gc?.();
        return self.postMessage({ id: request.id, rows: [] });
      case "query":
        return self.postMessage({
          id: request.id,
          rows: await db!.query(request.text, request.params),
        });
      case "exec":
        await db!.exec(request.text);
        return self.postMessage({ id: request.id, rows: [] });
      case "close":
        await db?.close();
        db = null;
        return self.postMessage({ id: request.id, rows: [] });
    }
  } catch (error) {
    self.postMessage({ id: request.id, error: plainError(error) });
  }
};
