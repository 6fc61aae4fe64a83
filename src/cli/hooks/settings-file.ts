/**
 * Reading and writing an agent's settings file for `cxc hooks install|uninstall`: the text as it
 * is (absent when there is no file), and a replacement written whole or not at all (a temporary
 * file beside it, then a rename; through a symbolic link to the file it points at, so a settings
 * file kept elsewhere stays where it is). The edits themselves are pure
 * (src/core/interop/agent-hooks.ts).
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { CxcError } from "../../errors.js";

/** The file's text, or undefined when it does not exist. */
export function readSettingsText(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new CxcError("agent-settings", `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Replaces the file's text atomically, keeping its mode. */
export function writeSettingsText(path: string, text: string): void {
  const target = existsSync(path) ? realpathSync(path) : path;
  try {
    mkdirSync(dirname(target), { recursive: true });
    const mode = existsSync(target) ? statSync(target).mode & 0o777 : undefined;
    const temporary = `${target}.cxc-${process.pid}.tmp`;
    writeFileSync(temporary, text);
    if (mode !== undefined) chmodSync(temporary, mode);
    renameSync(temporary, target);
  } catch (error) {
    throw new CxcError("agent-settings", `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
