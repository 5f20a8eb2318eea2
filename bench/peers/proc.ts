/**
 * A target process's CPU time and resident memory, read from Linux's /proc so
 * the numbers are the target's own, never the load generator's.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User plus system CPU time of the whole process (all threads), in ms. */
export function cpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** User plus system CPU time of the process's main thread (the JavaScript event loop), in ms. */
export function mainThreadCpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8"));
}

/** CPU time (ms) of each of the process's threads, by `name tid`. */
export function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      out.set(
        `${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))} ${tid}`,
        statCpuMs(stat),
      );
    } catch {
      // The thread ended while the list was read.
    }
  }
  return out;
}

/** utime + stime; with `ended`, also cutime + cstime: the children it has reaped. */
function statCpuMs(stat: string, ended = false): number {
  // Fields after the command name, which sits in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return ((utime + stime + (ended ? cutime + cstime : 0)) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time of every process whose command is `command`, in ms, those that
 * ended included: with `postgres`, the database server's backends, and
 * through the server's own reaped-children times those that exited, so the
 * figure never falls when a connection closes between two readings.
 */
export function commandCpuMs(command: string): number {
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
export function machineBusyMs(): number {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal: all but idle and iowait is busy.
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
}

/** Resident set size (VmRSS) in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  // An ended process not yet reaped (a zombie) still has a status, without VmRSS.
  if (kb === undefined) throw new Error(`process ${pid} has no resident memory: it ended`);
  return Number(kb) / 1024;
}

/**
 * Samples the VmRSS of each process every 100 ms until stopped; `stop` gives
 * each one's peak. A process that ended keeps the peak it had: the section
 * whose requests it no longer answers reports it, with what it logged.
 */
export function sampleRss(pids: number[]): { stop(): Map<number, number> } {
  const peaks = new Map(pids.map((pid) => [pid, rssMb(pid)]));
  const sample = () => {
    for (const pid of pids) {
      try {
        peaks.set(pid, Math.max(peaks.get(pid)!, rssMb(pid)));
      } catch {
        // Ended: its peak so far stands.
      }
    }
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}
