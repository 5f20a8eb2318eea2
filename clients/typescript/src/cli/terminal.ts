/**
 * The person at the keyboard: prompts and yes/no questions read line by line
 * from stdin (a terminal or a pipe alike), text to stdout, everything else
 * (tool activity, questions, errors) to stderr so stdout stays the answer.
 */
import { createInterface } from "node:readline";
import process from "node:process";

export interface Terminal {
  /** The next line, or null at the end of input. */
  line(prompt?: string): Promise<string | null>;
  /** Asks until the answer is yes or no; the end of input counts as no. */
  confirm(question: string): Promise<boolean>;
  out(text: string): void;
  err(text: string): void;
  close(): void;
}

export function terminal(): Terminal {
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let ended = false;
  let reader: ReturnType<typeof createInterface> | undefined;
  // Opened on the first question only, so commands that ask nothing never hold stdin.
  const listen = () => {
    reader = createInterface({ input: process.stdin, terminal: false });
    reader.on("line", (line) => {
      const wake = waiting.shift();
      if (wake) wake(line);
      else lines.push(line);
    });
    reader.on("close", () => {
      ended = true;
      for (const wake of waiting.splice(0)) wake(null);
    });
  };
  const term: Terminal = {
    line(prompt) {
      if (reader === undefined) listen();
      if (prompt) process.stderr.write(prompt);
      if (lines.length > 0) return Promise.resolve(lines.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
    async confirm(question) {
      for (;;) {
        const answer = await term.line(`${question} [y/n] `);
        if (answer === null) return false;
        const word = answer.trim().toLowerCase();
        if (word === "y" || word === "yes") return true;
        if (word === "n" || word === "no") return false;
        term.err("please answer y or n\n");
      }
    },
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    close: () => reader?.close(),
  };
  return term;
}
