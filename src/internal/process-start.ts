// When a process started, so a lock can tell its owner from a later process that was given the same pid. Pids are
// reused (a lock left by a `kill -9` may name a pid that now belongs to a `sleep`), a process's start time is not.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Linux: field 22 of `/proc/<pid>/stat` (clock ticks after boot), with the boot's id (ticks restart at a reboot). */
function linuxStart(pid: number): string | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Field 2 is the name in parentheses, which may itself hold spaces and parentheses: count from the last ')'.
  // After it come field 3 (the state) onwards, so field 22 is the 20th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19];
  if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
  return `linux:${(read('/proc/sys/kernel/random/boot_id') ?? '').trim()}:${ticks}`;
}

/** macOS, the BSDs (no /proc): `ps -o lstart=`, the start to the second, in the C locale so it reads the same. */
function psStart(pid: number): string | undefined {
  try {
    const text = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
    return text === '' ? undefined : `ps:${text}`;
  } catch {
    return undefined; // No such process, or no `ps` (Windows).
  }
}

/**
 * When process `pid` started, as a text that stays the same for its whole life and differs for a later process given
 * the same pid; `undefined` when this system cannot tell (Windows), or the process is gone. Two texts are comparable
 * only when {@link sameClock} says so.
 */
export function processStartOf(pid: number): string | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return process.platform === 'linux' ? (linuxStart(pid) ?? psStart(pid)) : psStart(pid);
}

/** Whether two start texts were read the same way (both from /proc, or both from `ps`), so they can be compared. */
export function sameClock(a: string, b: string): boolean {
  return a.slice(0, a.indexOf(':')) === b.slice(0, b.indexOf(':'));
}
