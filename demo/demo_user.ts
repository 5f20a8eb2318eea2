/**
 * A ready demo user, through the public API only: the API key saved by an
 * earlier run of the demo on the same directory if the service still accepts
 * it, else a new user from `POST /api/v1/auth/bootstrap`, saved owner-only.
 * Then a session token and a fresh session to try the printed commands on.
 */
import { chmod, readFile, writeFile } from "node:fs/promises";

export interface DemoUser {
  apiKey: string;
  /** A session token (bearer), for the curl example. */
  token: string;
  /** A new, empty session titled "demo". */
  sessionId: string;
  /** True when the key was created by this run. */
  created: boolean;
}

async function call(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: init.method,
    headers: { "content-type": "application/json", ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, body };
}

function failure(what: string, answer: { status: number; body: Record<string, unknown> }) {
  const error = answer.body.error as { code?: string; message?: string } | undefined;
  return new Error(`${what} failed: ${answer.status} ${error?.code ?? ""} ${error?.message ?? ""}`);
}

async function signIn(base: string, apiKey: string): Promise<string | undefined> {
  const answer = await call(`${base}/api/v1/auth/sign-in`, {
    method: "POST",
    headers: { "x-router-api-key": apiKey },
  });
  if (answer.status === 401) return undefined; // a key from another data directory
  if (answer.status !== 200) throw failure("sign-in", answer);
  return answer.body.token as string;
}

export async function demoUser(base: string, keyFile: string): Promise<DemoUser> {
  const saved = (await readFile(keyFile, "utf8").catch(() => "")).trim();
  let apiKey = saved;
  let token = saved === "" ? undefined : await signIn(base, saved);
  const created = token === undefined;
  if (created) {
    const answer = await call(`${base}/api/v1/auth/bootstrap`, { method: "POST" });
    if (answer.status !== 201) throw failure("bootstrap", answer);
    apiKey = answer.body.api_key as string;
    await writeFile(keyFile, `${apiKey}\n`, { mode: 0o600 });
    await chmod(keyFile, 0o600);
    token = await signIn(base, apiKey);
    if (token === undefined) throw new Error("sign-in refused the key bootstrap just made");
  }
  const session = await call(`${base}/api/v1/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: { title: "demo" },
  });
  if (session.status !== 201) throw failure("creating a session", session);
  const sessionId = (session.body.session as { id: string }).id;
  return { apiKey, token: token!, sessionId, created };
}
