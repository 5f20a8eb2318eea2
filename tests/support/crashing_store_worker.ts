/**
 * A stand-in for the embedded store's thread (src/store/pglite_worker.ts)
 * whose PostgreSQL dies the way a WASM instance aborts: the statement `crash`
 * is answered with a fatal `RuntimeError` that carries no SQLSTATE, `throw`
 * makes the thread itself fail; every other statement answers no rows.
 */
declare const self: {
  onmessage: ((event: MessageEvent<{ id: number; kind: string; text?: string }>) => void) | null;
  postMessage(reply: unknown): void;
};

self.onmessage = ({ data: request }) => {
  if (request.text === "crash") {
    return self.postMessage({
      id: request.id,
      error: { name: "RuntimeError", message: "unreachable" },
      fatal: true,
    });
  }
  if (request.text === "throw") throw new Error("the thread failed");
  self.postMessage({ id: request.id, rows: [] });
};
