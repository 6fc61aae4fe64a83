/**
 * Reading and replacing an agent's settings file for `cxc hooks install|uninstall`. The edits
 * themselves are pure (src/core/interop/agent-hooks.ts); this is where the file's own rules hold
 * (docs/security.md, "cxc inside the agents"):
 *
 * - **The file stays what it is.** Through a symbolic link the file it points at is edited, and the
 *   link stays a link; a link whose file does not exist is refused (cxc would otherwise put a
 *   regular file in its place). Anything but a regular file is refused.
 * - **A file the user protected is not rewritten**: one without any write permission (0444, say) is
 *   refused, whoever runs cxc (root included); so is a file of another user, unless cxc runs as
 *   root, which gives the new file the old one's owner and group. The mode is kept.
 * - **Whole or not at all**: the new text goes to `<file>.cxc-<pid>.tmp` beside it, is flushed to
 *   disk, then renamed over the file. A temporary file an interrupted run left (its process is
 *   gone) is removed by the next run.
 * - **Another program's edit is not lost**: the agent itself writes this file. Just before the
 *   rename the file is read again; when it changed since cxc read it, the edit is made again on
 *   what is there now (up to five times, then an error saying the file keeps changing). What
 *   remains is the instant between that last read and the rename, which no lock closes: the
 *   agents take none.
 * - **Directories**: the settings file's directory is created when missing (`~/.claude`,
 *   `DIR/.claude`), one level at a time, never under `/proc`, `/sys` or `/dev`; the project
 *   directory itself must exist (a mistyped `--project DIR` is refused, not created).
 */
import {
  chownSync,
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { SettingsEdit } from "../../core/interop/agent-hooks.js";
import { CxcError } from "../../errors.js";
import { ensureDirectory } from "../../store/index.js";

/** How many times an edit is made again on a file another program keeps changing. */
const ATTEMPTS = 5;

/** The settings file as it is: the file to edit (through a link), its text, its metadata. */
interface SettingsState {
  readonly target: string;
  readonly text: string | undefined;
  readonly stats: Stats | undefined;
}

function settingsError(message: string, hint?: string, cause?: unknown): CxcError {
  return new CxcError("agent-settings", message, {
    ...(hint === undefined ? {} : { hint }),
    ...(cause === undefined ? {} : { cause }),
  });
}

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The file a path names, through symbolic links; refuses a dangling link. */
function targetOf(path: string): string {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return path;
    throw settingsError(`cannot read ${path}: ${(error as Error).message}`, undefined, error);
  }
  if (!stats.isSymbolicLink()) return path;
  try {
    return realpathSync(path);
  } catch (error) {
    let points = "a file";
    try {
      points = resolve(dirname(path), readlinkSync(path));
    } catch {
      // The link itself went meanwhile: say it generally.
    }
    throw settingsError(
      `${path} is a symbolic link to ${points}, which does not exist; nothing was changed`,
      "create the file it points to, or remove the link, then run the command again",
      error,
    );
  }
}

/** Reads the settings file as it is now. */
function readState(path: string): SettingsState {
  const target = targetOf(path);
  let stats: Stats;
  try {
    stats = statSync(target);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return { target, text: undefined, stats: undefined };
    throw settingsError(`cannot read ${path}: ${(error as Error).message}`, undefined, error);
  }
  if (!stats.isFile()) throw settingsError(`${path} is not a regular file; nothing was changed`);
  try {
    return { target, text: readFileSync(target, "utf8"), stats };
  } catch (error) {
    throw settingsError(`cannot read ${path}: ${(error as Error).message}`, undefined, error);
  }
}

/** The settings file's text, or undefined when it does not exist (a dangling link is refused). */
export function readSettingsText(path: string): string | undefined {
  return readState(path).text;
}

/** Refuses a file the user protected, or one cxc could not give back to its owner. */
function checkWritable(path: string, stats: Stats): void {
  if ((stats.mode & 0o222) === 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, "0");
    throw settingsError(
      `${path} is read-only (mode ${mode}): cxc does not rewrite a file you protected; nothing was changed`,
      `make it writable (chmod u+w ${path}) and run the command again, or add cxc's hooks by hand`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && stats.uid !== uid) {
    throw settingsError(
      `${path} belongs to another user (uid ${stats.uid}): replacing it would make it yours; nothing was changed`,
      "run the command as that user",
    );
  }
}

/** Removes the temporary files of runs whose process is gone. */
function removeLeftovers(target: string): void {
  const directory = dirname(target);
  const prefix = `${basename(target)}.cxc-`;
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    const pid =
      name.startsWith(prefix) && name.endsWith(".tmp") ? Number(name.slice(prefix.length, -4)) : NaN;
    if (!Number.isInteger(pid) || pid <= 0 || (pid !== process.pid && isAlive(pid))) continue;
    try {
      unlinkSync(join(directory, name));
    } catch {
      // Gone already, or not ours to remove: the next run tries again.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}

/** Writes `text` to `path` and flushes it, with `stats`'s mode and (as root) owner. */
function writeTemporary(path: string, text: string, stats: Stats | undefined): void {
  const descriptor = openSync(path, "w", stats === undefined ? 0o644 : stats.mode & 0o777);
  try {
    writeSync(descriptor, text);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  if (stats !== undefined && process.getuid?.() === 0 && (stats.uid !== 0 || stats.gid !== 0)) {
    chownSync(path, stats.uid, stats.gid);
  }
}

function syncDirectory(directory: string): void {
  try {
    const descriptor = openSync(directory, "r");
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // Not every file system lets a directory be flushed; the rename is done either way.
  }
}

/** What `editSettingsFile` did. */
export interface SettingsFileEdit {
  readonly before: string | undefined;
  readonly result: SettingsEdit & { readonly ok: true };
}

/**
 * Edits the settings file at `path` with `edit` (a pure function of its text, undefined when it
 * does not exist) and replaces the file when the text changed, under the rules of the module
 * comment. A refusal of `edit` is thrown as `refused(error)` makes it. `write: false` reads and
 * edits only (a dry run).
 */
export function editSettingsFile(
  path: string,
  edit: (text: string | undefined) => SettingsEdit,
  refused: (error: string) => CxcError,
  options: { readonly write: boolean } = { write: true },
): SettingsFileEdit {
  let state = readState(path);
  for (let attempt = 1; ; attempt++) {
    const result = edit(state.text);
    if (!result.ok) throw refused(result.error);
    if (!result.changed || !options.write) return { before: state.text, result };
    if (state.stats !== undefined) checkWritable(path, state.stats);
    const target = state.target;
    try {
      ensureDirectory(dirname(target));
    } catch (error) {
      throw settingsError(`cannot create ${dirname(target)}: ${(error as Error).message}`, undefined, error);
    }
    removeLeftovers(target);
    const temporary = `${target}.cxc-${process.pid}.tmp`;
    try {
      writeTemporary(temporary, result.text, state.stats);
      const now = readState(path);
      if (now.text !== state.text || now.target !== target) {
        unlinkSync(temporary);
        if (attempt >= ATTEMPTS) {
          throw settingsError(
            `${path} kept changing while cxc edited it (another program writes it); nothing was changed`,
            "run the command again in a moment",
          );
        }
        state = now;
        continue;
      }
      renameSync(temporary, target);
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // Never written, or renamed already.
      }
      if (error instanceof CxcError) throw error;
      throw settingsError(
        `cannot write ${path}: ${(error as Error).message}; nothing was changed`,
        undefined,
        error,
      );
    }
    syncDirectory(dirname(target));
    return { before: state.text, result };
  }
}
