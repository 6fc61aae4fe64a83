/**
 * Where cxc keeps what its hooks remember and the one line each failure leaves: the state
 * directory, `$XDG_STATE_HOME/cxc` (when absolute), else `~/.local/state/cxc`.
 *
 * - `hooks.log`: one line per swallowed failure (`<time> <agent> <event>: <what went wrong>`), and
 *   one per note (`<time> <agent> <event>: note: <what>`: a transcript read only in part, records
 *   of an agent newer than the one cxc was tested with). A hook never breaks the agent, so this is
 *   where its problems are told. Past 1 MiB it is moved to `hooks.log.1` (replacing the one
 *   before) and a new one is started. A log that cannot be written is told on stderr, which the
 *   agent keeps in its transcript.
 * - `hooks/<agent>/<session>.json`: the advisor's record for one agent session (the last tier
 *   announced, whether a failure or the missing decision model was already told; in Gemini CLI,
 *   the restore built for its last compression), replaced
 *   atomically. `cxc hooks status --reset` removes them.
 * - `hooks/decision-model.json`: the last failure of the decision model (which model, when, why):
 *   the advice leaves the model out for a while after it (hook-advise.ts).
 *
 * Nothing here writes into an agent's own files.
 */
import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { AdvisorState } from "../../compaction/core/advisor/advisor.js";
import { sessionFileName } from "../../core/interop/hook-protocol.js";
import { ensureDirectory } from "../../store/index.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The size past which `hooks.log` is moved aside. */
export const HOOK_LOG_MAX_BYTES = 1024 * 1024;

/** The state directory (whether or not it exists). */
export function stateDirectory(env: Environment): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "cxc");
  return join(env.HOME ?? homedir(), ".local", "state", "cxc");
}

/** The log of swallowed hook failures and notes. */
export function hookLogPath(env: Environment): string {
  return join(stateDirectory(env), "hooks.log");
}

/** One log line: the agent name as a word (it may come from a mistyped command line). */
function logLine(agent: string, event: string, message: string): string {
  const name = agent.replace(/[^\w.@+-]/g, "?").slice(0, 60) || "?";
  return `${new Date().toISOString()} ${name} ${event}: ${message.replace(/\s+/g, " ").trim()}\n`;
}

/** Appends a line, moving a full log aside first; says on stderr when it cannot. */
function appendLog(env: Environment, line: string): void {
  const path = hookLogPath(env);
  try {
    ensureDirectory(dirname(path));
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      size = 0;
    }
    if (size + line.length > HOOK_LOG_MAX_BYTES && size > 0) renameSync(path, `${path}.1`);
    appendFileSync(path, line);
  } catch (error) {
    // Nowhere left to keep it: the agent shows a hook's stderr in its transcript.
    try {
      process.stderr.write(`cxc hook: cannot write ${path} (${(error as Error).message}): ${line}`);
    } catch {
      // Not even stderr: the hook still exits quietly.
    }
  }
}

/** Appends one line for a swallowed failure. */
export function logHookFailure(env: Environment, agent: string, event: string, message: string): void {
  appendLog(env, logLine(agent, event, message));
}

/** Appends one note: something the user should know that did not stop the hook. */
export function logHookNote(env: Environment, agent: string, event: string, message: string): void {
  appendLog(env, logLine(agent, event, `note: ${message}`));
}

/** Whether a log line is a note (else a failure). */
export function isNoteLine(line: string): boolean {
  const colon = line.indexOf(": ");
  return colon >= 0 && line.startsWith("note: ", colon + 2);
}

/** What the hooks remember of one agent session. */
export interface HookSessionState extends AdvisorState {
  /** True once the user was told that no decision model is configured. */
  readonly said_unavailable?: boolean;
  /** The decision model's failure (its time) the user was told the model is left out after. */
  readonly said_skipped?: string;
  /** The note last logged about records of kinds cxc does not know (so it is logged once). */
  readonly said_unknown?: string;
  /**
   * Gemini CLI: the restore built for its last compression, with that compression's summary (the
   * hook hands it back in every request until the next compression; hook-restore.ts).
   */
  readonly gemini_restore?: { readonly summary: string; readonly text: string };
}

/** The directory of the sessions' records. */
export function hookSessionsDirectory(env: Environment): string {
  return join(stateDirectory(env), "hooks");
}

/** The record of one agent session. */
export function hookStatePath(env: Environment, agent: string, sessionId: string): string {
  return join(hookSessionsDirectory(env), agent, `${sessionFileName(sessionId)}.json`);
}

/** A JSON object from a file; empty when there is none or it cannot be read. */
function readRecord<T extends object>(path: string): Partial<T> {
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Partial<T>) : {};
  } catch {
    return {};
  }
}

/** Replaces a small record atomically. */
function writeRecord(path: string, value: object): void {
  ensureDirectory(dirname(path));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value)}\n`);
  renameSync(temporary, path);
}

/** The session's record; empty when there is none or it cannot be read. */
export function loadHookState(path: string): HookSessionState {
  return readRecord<HookSessionState>(path) as HookSessionState;
}

/** Replaces the session's record atomically. */
export function saveHookState(path: string, state: HookSessionState): void {
  writeRecord(path, state);
}

/** The decision model's last failure, as the hooks keep it across sessions. */
export interface DecisionFailure {
  readonly model: string;
  /** ISO time. */
  readonly at: string;
  readonly message: string;
}

function decisionFailurePath(env: Environment): string {
  return join(hookSessionsDirectory(env), "decision-model.json");
}

/** The decision model's last failure, if one is recorded. */
export function loadDecisionFailure(env: Environment): DecisionFailure | undefined {
  const record = readRecord<DecisionFailure>(decisionFailurePath(env));
  return typeof record.model === "string" &&
    typeof record.at === "string" &&
    typeof record.message === "string"
    ? (record as DecisionFailure)
    : undefined;
}

/** Records a failure of the decision model (a record that cannot be written costs nothing more). */
export function saveDecisionFailure(env: Environment, failure: DecisionFailure): void {
  try {
    writeRecord(decisionFailurePath(env), failure);
  } catch {
    // Without the record the model is asked again next time: slower, never wrong.
  }
}
