// CPU time spent by this process and by a PostgreSQL server: what a measurement cost in work,
// which a loaded machine does not change the way it changes elapsed time.
import { readdirSync, readFileSync } from 'node:fs';

/** Seconds of CPU this process has used. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS = 100;

interface ProcessStat {
  ppid: number;
  /** Own user + system ticks, and those of its children already exited. */
  own: number;
  children: number;
  commandLine: string;
}

function processes(): Map<number, ProcessStat> {
  const found = new Map<number, ProcessStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name in parentheses: state, ppid, ..., utime (12th), stime, cutime, cstime.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
      found.set(Number(name), {
        ppid: fields[1]!,
        own: fields[11]! + fields[12]!,
        children: fields[13]! + fields[14]!,
        commandLine: readFileSync(`/proc/${name}/cmdline`, 'utf8'),
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

/**
 * Seconds of CPU the PostgreSQL server listening on `port` has used: its postmaster and every
 * process it started, running or ended. Undefined where /proc is not there to tell.
 */
export function postgresCpuSeconds(port: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const all = processes();
  const postmaster = [...all].find(([, stat]) => stat.commandLine.includes(`\0-p\0${port}\0`) || stat.commandLine.includes(`-p ${port} `));
  if (!postmaster) return undefined;
  const [pid, stat] = postmaster;
  let ticks = stat.own + stat.children;
  for (const other of all.values()) if (other.ppid === pid) ticks += other.own;
  return ticks / TICKS;
}
