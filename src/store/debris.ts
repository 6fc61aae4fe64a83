/**
 * Directories a crashed process leaves behind: `conversations/.creating-<id>-<n>-<pid>` (a create
 * killed before its rename, see store.ts) and `.trash-<id>-<pid>` in the store root (a removal
 * killed after its rename). Listings skip dot-names, so debris is never mistaken for a
 * conversation; it only takes space. The next create or listing removes it once it is older than
 * `DEBRIS_AGE_MS` and the process named in it is gone. A directory of a live process (this one
 * or another on this machine) is never touched, and the age covers a process on another machine
 * sharing the store, whose pid means nothing here: no create or removal takes that long (a
 * streamed import of a 50 MB agent session takes seconds).
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** Debris younger than this is left alone, whatever its pid says. */
export const DEBRIS_AGE_MS = 10 * 60_000;

const DEBRIS_NAME = /^\.(?:creating|trash)-.+-(\d+)$/;

/** Whether `name` (an entry of the conversations directory or the store root) is debris. */
export function isDebrisName(name: string): boolean {
  return DEBRIS_NAME.test(name);
}

/** Removes the debris among `names` (entries of `directory`); never throws. */
export function sweepDebris(directory: string, names: readonly string[], now: number = Date.now()): void {
  for (const name of names) {
    const pid = Number(DEBRIS_NAME.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    const path = join(directory, name);
    try {
      if (now - statSync(path).mtimeMs < DEBRIS_AGE_MS) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove (permissions): it stays hidden either way.
    }
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
