/** Starts bench/peers/provider_main.ts in its own process and speaks its stdin/stdout protocol. */
import { spawn } from "node:child_process";
import process from "node:process";
import { createInterface } from "node:readline";
import type { ChatProviderPace } from "../chat_provider.ts";
import { root, runtimeArgs } from "../service_process.ts";

export interface ProviderProcess {
  url: string;
  pid: number;
  setPace(pace: Partial<ChatProviderPace>): Promise<void>;
  /** The body of the latest chat request the provider received. */
  lastBody(): Promise<string>;
  stop(): Promise<void>;
}

export function startProviderProcess(): Promise<ProviderProcess> {
  const child = spawn(
    process.execPath,
    runtimeArgs("bench/peers/provider_main.ts"),
    {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on(
    "line",
    (line) => waiting.shift()?.(line),
  );
  // Commands are answered in order, one line each.
  const send = (command: object) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiting.push((line) => resolve(JSON.parse(line)));
      child.stdin!.write(`${JSON.stringify(command)}\n`);
    });
  return new Promise((resolve, reject) => {
    child.once(
      "exit",
      (code) => reject(new Error(`fake provider exited with ${code}`)),
    );
    waiting.push((line) =>
      resolve({
        url: JSON.parse(line).url,
        pid: child.pid!,
        async setPace(pace) {
          await send({ pace });
        },
        async lastBody() {
          const { last } = await send({ last: true });
          if (typeof last !== "string") {
            throw new Error("the provider saw no chat request");
          }
          return last;
        },
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.stdin!.end();
          }),
      })
    );
  });
}
