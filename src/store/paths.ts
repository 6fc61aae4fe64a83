/**
 * Where the store lives. One place decides it:
 *
 * 1. the nearest `.cxc/` directory at or above the working directory (a workspace, `cxc init`);
 * 2. else `$CXC_HOME`;
 * 3. else `$XDG_DATA_HOME/cxc` (when absolute);
 * 4. else `~/.local/share/cxc`.
 *
 * Inside the root: `conversations/<id>/` (live), `archive/<id>/` (archived; the location is the
 * source of truth), `sessions/` (the active conversation per session) and `locks/`.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

export type StoreKind = "workspace" | "home";

export interface StoreLocation {
  readonly kind: StoreKind;
  /** The store directory (`<workspace>/.cxc` or the user data directory). */
  readonly root: string;
  /** Why this root was chosen, for `cxc config show` and error messages. */
  readonly origin: string;
}

export type Environment = Readonly<Record<string, string | undefined>>;

export const WORKSPACE_DIRECTORY = ".cxc";

/** The nearest `.cxc` directory at or above `start`, if any. */
export function findWorkspace(start: string): string | undefined {
  let current = resolve(start);
  for (;;) {
    const candidate = join(current, WORKSPACE_DIRECTORY);
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

export function resolveStoreLocation(cwd: string, env: Environment): StoreLocation {
  const workspace = findWorkspace(cwd);
  if (workspace) return { kind: "workspace", root: workspace, origin: `workspace ${workspace}` };
  if (env.CXC_HOME) return { kind: "home", root: resolve(env.CXC_HOME), origin: "CXC_HOME" };
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) {
    return { kind: "home", root: join(env.XDG_DATA_HOME, "cxc"), origin: "XDG_DATA_HOME" };
  }
  return { kind: "home", root: join(env.HOME ?? homedir(), ".local", "share", "cxc"), origin: "default" };
}

export const conversationsDirectory = (root: string): string => join(root, "conversations");
export const archiveDirectory = (root: string): string => join(root, "archive");
export const sessionsDirectory = (root: string): string => join(root, "sessions");
export const locksDirectory = (root: string): string => join(root, "locks");

export const EVENTS_FILE = "events.jsonl";
export const META_FILE = "meta.json";
