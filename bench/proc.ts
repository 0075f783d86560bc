/**
 * What the benchmarks read about a child process from /proc (Linux only): CPU time, memory, and the TCP
 * connections it holds to one port. Imports nothing from bench/, so any bench module may use it.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** utime + stime of a process, in seconds (/proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s). */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function memory(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/**
 * Established TCP connections of `pid` to `port` (the broker's). /proc/<pid>/net/tcp lists every socket of the
 * network namespace, so a row counts only when its inode is one of the process's own socket descriptors.
 */
export function connectionsTo(pid: number, port: number): number {
  let inodes: Set<string>;
  try {
    inodes = new Set(
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
          } catch {
            return undefined; // closed between the listing and the read
          }
        })
        .filter((inode): inode is string => inode !== undefined),
    );
  } catch {
    return NaN;
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '01') continue; // 01: ESTABLISHED
      if (cols[2]?.endsWith(`:${hexPort}`) === true && inodes.has(cols[9] ?? '')) count++;
    }
  }
  return count;
}
