/**
 * The fake Chat Completions server (bench/chat_provider.ts) in a process of its
 * own, so the load generator's work never delays its answers. It prints
 * `{"url":…}` once listening, then answers one JSON line per command read from
 * stdin: `{"pace":{…}}` changes the pace, `{"last":true}` returns the latest
 * chat request body. It stops when stdin closes.
 */
import process from "node:process";
import { createInterface } from "node:readline";
import { startChatProvider } from "../chat_provider.ts";

const provider = await startChatProvider();
console.log(JSON.stringify({ url: provider.url }));
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { pace?: object; last?: boolean };
  if (command.pace) Object.assign(provider.pace, command.pace);
  console.log(
    JSON.stringify(command.last ? { last: provider.lastBody() ?? null } : {}),
  );
}
await provider.close();
process.exit(0);
