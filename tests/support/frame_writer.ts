/**
 * A running stream's frames written by another process, so a test can have
 * bytes already waiting in its socket while its own process is busy: serves
 * one connection on the Unix socket `<dir>/frames.sock` (a write there is in
 * the reader's buffer once the writer's call returned, unlike loopback TCP,
 * whose delivery the kernel may defer under load), says "ready" on it, then writes each frame
 * asked for by a file `<dir>/frame.<n>` (its content, n = 1, 2, …) and, once
 * written, creates `<dir>/sent.<n>`. Prints "listening" once it listens;
 * ends when the connection closes. Run: `<runtime> frame_writer.ts <dir>`.
 */
import { createServer } from "node:net";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[process.argv.length - 1];
let sent = 0;
const server = createServer((socket) => {
  socket.write("ready");
  const poll = setInterval(() => {
    const asked = join(dir, `frame.${sent + 1}`);
    if (!existsSync(asked)) return;
    const n = ++sent;
    socket.write(
      readFileSync(asked),
      () => writeFileSync(join(dir, `sent.${n}`), ""),
    );
  }, 1);
  socket.on("error", () => {});
  socket.on("close", () => {
    clearInterval(poll);
    server.close();
  });
});
server.listen(join(dir, "frames.sock"), () => console.log("listening"));
