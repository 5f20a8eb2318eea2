/**
 * What a test file of @switchyard/client shares: the fake OpenAI provider,
 * the service in process behind a real socket, and a client signed up to it
 * (with the fake's key), plus a policy routing everything to the fake.
 */
import { after, before } from "node:test";
import { createClient, type SwitchyardClient } from "../../clients/typescript/src/index.ts";
import type { TestApp } from "./app.ts";
import { createEngineApp } from "./engine_app.ts";
import { type FakeProvider, startFakeProvider } from "./fake_provider.ts";
import { type Served, serveHandler } from "./serve_handler.ts";

export interface ClientHarness {
  openai: FakeProvider;
  app: TestApp;
  served: Served;
  client: SwitchyardClient;
}

export const clientPolicy = {
  routing: { default: { model: "openai/gpt-4o-mini" } },
  tools: { permissions: { file_read: "allow" as const, shell: "ask" as const } },
  privacy: { remote: { mode: "allow" as const } },
};

/** Registers the hooks that start everything before the file's tests and close it after. */
export function clientHarness(): ClientHarness {
  const h = {} as ClientHarness;
  before(async () => {
    h.openai = await startFakeProvider();
    h.app = await createEngineApp({ openai: h.openai.url, ollama: "http://127.0.0.1:9" });
    h.served = await serveHandler(h.app.handler);
    h.client = createClient({ baseUrl: h.served.url, providerKeys: { openai: "sk-test-openai" } });
    await h.client.auth.bootstrap();
    await h.client.auth.signIn();
  });
  after(async () => {
    await h.served.close();
    await h.app.close();
    await h.openai.close();
  });
  return h;
}
