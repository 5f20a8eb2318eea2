/**
 * CPU time read from Linux's /proc, as bench/peers/proc.ts reads it, so the
 * Node.js load generator counts a target's CPU around its own timed runs.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime; with `ended`, also cutime + cstime: the children it has reaped. */
function statCpuMs(stat, ended = false) {
  // Fields after the command name, which sits in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return ((utime + stime + (ended ? cutime + cstime : 0)) * 1000) / TICKS_PER_SECOND;
}

/** User plus system CPU time of the whole process (all threads), in ms. */
export const cpuMs = (pid) => statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));

/** CPU time of every process whose command is `command`, in ms, those it reaped included. */
export function commandCpuMs(command) {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) === command) {
        total += statCpuMs(stat, true);
      }
    } catch {
      // The process ended while the list was read.
    }
  }
  return total;
}

/** CPU time the whole machine spent busy (every core, every process), in ms. */
export function machineBusyMs() {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
}
