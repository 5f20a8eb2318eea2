import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { uncaughtHandler } from "../../src/instance_life.ts";
import { memoryLogger } from "../../src/log.ts";

describe("an error nothing caught", () => {
  const socketError = (code: string) =>
    Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

  test("a late connection error is logged by its code and the instance goes on", () => {
    const log = memoryLogger();
    const exits: number[] = [];
    const handle = uncaughtHandler(log, (code) => exits.push(code));
    handle(socketError("ECONNREFUSED"));
    handle(socketError("ECONNRESET"));
    assert.deepEqual(exits, []);
    assert.deepEqual(
      log.lines.map((l) => JSON.parse(l)).map(({ level, msg, code }) => ({ level, msg, code })),
      [
        { level: "warn", msg: "late connection error", code: "ECONNREFUSED" },
        { level: "warn", msg: "late connection error", code: "ECONNRESET" },
      ],
    );
    assert.ok(log.lines.every((l) => !l.includes("127.0.0.1")), "no address or message logged");
  });

  test("anything else stops the instance, logging the error's name only", () => {
    const log = memoryLogger();
    const exits: number[] = [];
    uncaughtHandler(log, (code) => exits.push(code))(new TypeError("secret sk-proj-123 here"));
    assert.deepEqual(exits, [1]);
    const line = JSON.parse(log.lines[0]);
    assert.deepEqual([line.level, line.msg, line.error], ["error", "uncaught error", "TypeError"]);
    assert.ok(!log.lines[0].includes("sk-proj"));
  });
});
