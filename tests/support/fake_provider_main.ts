/**
 * Serves the fake provider for humans trying the service by hand:
 * `fake_provider_main.ts [port]` (default 7400). It answers 404 until something
 * is queued; queue answers with `POST /__enqueue` carrying a fixture response,
 * or `{ "provider": "openai", "name": "streamed_answer" }` naming a recorded one.
 */
import process from "node:process";
import { startFakeProvider } from "./fake_provider.ts";

const port = Number(process.argv[2] ?? 7400);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid port: "${process.argv[2]}", expected an integer from 0 to 65535`);
  process.exit(1);
}
const fake = await startFakeProvider({ port, control: true });
console.log(fake.url);
