/**
 * The active conversation, per session.
 *
 * A session is named by `CXC_SESSION` when set (so two terminals can work on two conversations),
 * otherwise it is the store-wide `default` session. Each session has one small file
 * `sessions/<key>.json` holding the active id and the one before it, replaced atomically.
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./files.js";
import { sessionsDirectory } from "./paths.js";
import type { Environment } from "./port.js";

/** A session: the active conversation, when it became active, and the one active before it. */
export interface SessionFile {
  active?: string;
  /** RFC 3339 time `active` was made active (absent in files of older versions). */
  activated_at?: string;
  previous?: string;
}

export function sessionKey(env: Environment): string {
  const name = env.CXC_SESSION?.trim();
  if (!name) return "default";
  const readable = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 32);
  return `session-${readable}-${fnv1a(name)}`;
}

/**
 * FNV-1a (32-bit) of the session name, in hex: keeps two names that read alike after cleaning
 * apart. Not a security measure, just a file name, so no crypto module is loaded at start-up.
 */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

function sessionPath(root: string, env: Environment): string {
  return join(sessionsDirectory(root), `${sessionKey(env)}.json`);
}

function readSession(root: string, env: Environment): SessionFile {
  return readSessionFile(sessionPath(root, env));
}

function readSessionFile(path: string): SessionFile {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as SessionFile;
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    // No session yet, or an unreadable one: there is simply no active conversation.
    return {};
  }
}

/** The active conversation of a session and the one before it, latest first. */
export function historyOf(session: SessionFile): string[] {
  return [session.active, session.previous].filter((id): id is string => typeof id === "string");
}

export function readSessionHistory(root: string, env: Environment): string[] {
  return historyOf(readSession(root, env));
}

export function readActive(root: string, env: Environment): string | undefined {
  const active = readSession(root, env).active;
  return typeof active === "string" ? active : undefined;
}

/** The session after `id` becomes active at `now` (undefined: none is). */
export function nextSession(current: SessionFile, id: string | undefined, now: string): SessionFile {
  const next: SessionFile = {};
  if (id !== undefined) {
    next.active = id;
    next.activated_at = now;
  }
  const previous = current.active !== id ? current.active : current.previous;
  if (previous !== undefined && previous !== id) next.previous = previous;
  return next;
}

export function writeActive(root: string, env: Environment, id: string | undefined, now: string): void {
  const next = nextSession(readSession(root, env), id, now);
  mkdirSync(sessionsDirectory(root), { recursive: true });
  writeFileAtomic(sessionPath(root, env), `${JSON.stringify(next, null, 2)}\n`);
}

/**
 * The active conversation of every session with the time it became active (sessions written by
 * older versions have no time): what `recent` reads.
 */
export function readActivations(root: string): { id: string; at?: string }[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDirectory(root));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith(".json"))
    .flatMap((name) => {
      const session = readSessionFile(join(sessionsDirectory(root), name));
      if (typeof session.active !== "string") return [];
      return [
        typeof session.activated_at === "string"
          ? { id: session.active, at: session.activated_at }
          : { id: session.active },
      ];
    });
}
