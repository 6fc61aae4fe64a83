/**
 * Where the store lives. One place decides it:
 *
 * 1. the nearest `.cxc/` directory at or above the working directory (a workspace, `cxc init`);
 * 2. else `$CXC_HOME`;
 * 3. else `$XDG_DATA_HOME/cxc` (when absolute);
 * 4. else `~/.local/share/cxc`.
 *
 * Inside the root: `conversations/<id>/` (live), `archive/<id>/` (archived; the location is the
 * source of truth), `sessions/` (the active conversation per session) and `locks/`. Inside a
 * conversation directory: the log, `meta.json`, and the records and caches named below.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Environment, StoreLocation } from "./port.js";

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

/** The directory of conversation `id` under `root`, live or archived. */
export function conversationDirectoryOf(root: string, id: string, archived: boolean): string {
  return join(archived ? archiveDirectory(root) : conversationsDirectory(root), id);
}

export const EVENTS_FILE = "events.jsonl";
export const META_FILE = "meta.json";
/** A compaction review's record: the conversation it reviews. */
export const REVIEW_FILE = "review.json";
/** What the compaction advisor remembers about the conversation. */
export const ADVISOR_FILE = "advisor.json";
