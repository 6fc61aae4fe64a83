/**
 * Where cxc keeps what its hooks remember and the one line each failure leaves: the state
 * directory, `$XDG_STATE_HOME/cxc` (when absolute), else `~/.local/state/cxc`.
 *
 * - `hooks.log`: one line per swallowed failure (`<time> <agent> <event>: <what went wrong>`). A
 *   hook never breaks the agent, so this is where its problems are told.
 * - `hooks/<agent>/<session>.json`: the advisor's record for one agent session (the last tier
 *   announced, whether a failure or the missing decision model was already told), replaced
 *   atomically.
 *
 * Nothing here writes into an agent's own files.
 */
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { AdvisorState } from "../../core/advisor/advisor.js";
import { sessionFileName } from "../../core/interop/hook-protocol.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The state directory (whether or not it exists). */
export function stateDirectory(env: Environment): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "cxc");
  return join(env.HOME ?? homedir(), ".local", "state", "cxc");
}

/** The log of swallowed hook failures. */
export function hookLogPath(env: Environment): string {
  return join(stateDirectory(env), "hooks.log");
}

/** Appends one line for a swallowed failure; a log that cannot be written costs nothing more. */
export function logHookFailure(env: Environment, agent: string, event: string, message: string): void {
  const line = `${new Date().toISOString()} ${agent} ${event}: ${message.replace(/\s+/g, " ").trim()}\n`;
  try {
    mkdirSync(stateDirectory(env), { recursive: true });
    appendFileSync(hookLogPath(env), line);
  } catch {
    // Nowhere left to tell it: the hook still exits quietly.
  }
}

/** What the hooks remember of one agent session. */
export interface HookSessionState extends AdvisorState {
  /** True once the user was told that no decision model is configured. */
  readonly said_unavailable?: boolean;
}

/** The record of one agent session. */
export function hookStatePath(env: Environment, agent: string, sessionId: string): string {
  return join(stateDirectory(env), "hooks", agent, `${sessionFileName(sessionId)}.json`);
}

/** The session's record; empty when there is none or it cannot be read. */
export function loadHookState(path: string): HookSessionState {
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as HookSessionState)
      : {};
  } catch {
    return {};
  }
}

/** Replaces the session's record atomically. */
export function saveHookState(path: string, state: HookSessionState): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  renameSync(temporary, path);
}
