/**
 * The facts of a range of raw turns, exactly as its events hold them: the files the tool calls
 * read, the files they changed, and the user's binding sentences, verbatim. Pure and
 * deterministic. Whoever writes or restores a summary puts these beside it, so that what must
 * survive a compaction does not depend on a summarizer remembering it (docs/compaction.md,
 * "The facts of a range"; the Claude Code restore in docs/inside-agents.md).
 *
 * - Files come from the tool calls of every agent cxc imports, by the shape of their arguments
 *   and the words of their names, not by a list of tools: a path argument (`path`, `file_path`,
 *   `notebook_path`, `paths`, …) of a tool whose name reads (`Read`, `read`, `fs_read_file`,
 *   `read_file`, `view`) or writes (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`, `edit`,
 *   `write`, `fs_modify_file`, `fs_create_file`, `fs_delete_file`, `apply_patch`, …); Codex
 *   patches by the files they name; shell commands (`Bash`, `bash`, `exec_command`, `shell`)
 *   only where the words certainly read or change a file (shell-paths.ts). Searches and listings
 *   (`Grep`, `Glob`, `ls`, `fs_grep_files`) are where the work looked, not files it read; a file
 *   of another repository (`github_read_file`) is not a file of this one.
 * - Paths are normalised as the summary check normalises them (`./src/a.ts:12` → `src/a.ts`),
 *   relative to `cwd` when they lie under it, and kept only when plausible as paths. A file both
 *   read and changed is listed as changed only.
 * - Binding sentences are the user's sentences the summary check counts as constraints
 *   (`findConstraints`: must, never, don't, always, only if, …), from the user's own messages:
 *   not from the advisor's, not from files or context an agent attached, not from what an agent
 *   sent as user text on its own account (pi's bash runs and summaries, Claude Code's meta
 *   messages). Each comes with the 0-based turn that first said it.
 *
 * Everything is in first-seen order and listed once. `renderRangeFacts` lays the facts out as a
 * compact block within a character budget.
 */
import { collectArgumentPaths } from "./digest.js";
import { ADVISOR_AUTHOR, type TurnEvent } from "../../../core/conversation/events.js";
import { findConstraints, isPlausiblePath, normalizePath } from "./facts.js";
import type { Turn } from "../../../core/conversation/turns.js";
import { commandFiles, commandText, patchFiles } from "./shell-paths.js";

/** One sentence of the user's that binds the work, and the 0-based turn that first said it. */
export interface BindingSentence {
  readonly turn: number;
  readonly text: string;
}

/** What a range of raw turns establishes; see the module comment. */
export interface RangeFacts {
  /** Files the tool calls read and did not change, first-seen order. */
  readonly filesRead: readonly string[];
  /** Files the tool calls created, changed, moved or deleted, first-seen order. */
  readonly filesModified: readonly string[];
  readonly bindingSentences: readonly BindingSentence[];
}

/** Options of `extractRangeFacts`. */
export interface RangeFactsOptions {
  /** The session's working directory: absolute paths under it are given relative to it. */
  readonly cwd?: string;
}

/** Metadata keys of user-role events an agent wrote on its own account (interop converters). */
const AGENT_TEXT_KEYS = [
  "claude_code_meta",
  "claude_code_compact_summary",
  "claude_code_attachment",
  "pi_source",
];
/** Authors of user-role events that are not the user's own words. */
const NOT_THE_USER = new Set([ADVISOR_AUTHOR, "Claude Code (attached file)"]);
/** Extra path keys besides the digest's (`path`, `file_path`, `paths`, …). */
const MORE_PATH_KEYS = ["notebook_path", "target_file", "source_path", "destination_path"];

const WRITE_WORDS = new Set(
  "edit edits modify write create patch replace delete remove rm rename move mv apply insert append overwrite save".split(
    " ",
  ),
);
const READ_WORDS = new Set("read view cat open get".split(" "));
const SEARCH_WORDS = new Set("grep search find glob list ls tree".split(" "));

/** The facts of `turns` (raw turns of a range, possibly selected inside turns with `selectRange`). */
export function extractRangeFacts(turns: readonly Turn[], options: RangeFactsOptions = {}): RangeFacts {
  const read: string[] = [];
  const modified: string[] = [];
  const sentences = new Map<string, BindingSentence>();
  const addPath = (into: string[], raw: string): void => {
    const path = normalizeFactPath(raw, options.cwd);
    if (path !== undefined) into.push(path);
  };
  for (const turn of turns) {
    for (const event of turn.events) {
      if (event.type === "tool_call_request") {
        const files = toolCallFiles(event.name, event.arguments);
        for (const path of files.read) addPath(read, path);
        for (const path of files.modified) addPath(modified, path);
      } else if (isUsersOwnRequest(event)) {
        for (const sentence of findConstraints(event.content)) {
          const key = sentence.replace(/\s+/g, " ").trim().toLowerCase();
          if (!sentences.has(key)) sentences.set(key, { turn: turn.index, text: sentence });
        }
      }
    }
  }
  const changed = new Set(modified);
  return {
    filesRead: unique(read).filter((path) => !changed.has(path)),
    filesModified: unique(modified),
    bindingSentences: [...sentences.values()],
  };
}

/** Whether a turn event is a message the user wrote (see the module comment). */
function isUsersOwnRequest(event: TurnEvent): event is Extract<TurnEvent, { type: "chat_request" }> {
  if (event.type !== "chat_request") return false;
  if (event.author !== undefined && NOT_THE_USER.has(event.author)) return false;
  const metadata = event.metadata ?? {};
  return !AGENT_TEXT_KEYS.some((key) => metadata[key] !== undefined);
}

/** The files one tool call read and changed, as written in its arguments. */
export function toolCallFiles(
  name: string,
  argumentsObject: Readonly<Record<string, unknown>>,
): { read: string[]; modified: string[] } {
  const words = nameWords(name);
  // Files of another repository are not this project's.
  if (typeof argumentsObject.repository === "string" || typeof argumentsObject.repo === "string") {
    return { read: [], modified: [] };
  }
  const patch = [argumentsObject.input, argumentsObject.patch].find(
    (value): value is string => typeof value === "string" && value.includes("*** Begin Patch"),
  );
  if (patch !== undefined) return { read: [], modified: patchFiles(patch) };
  const command = commandText(argumentsObject.command) ?? commandText(argumentsObject.cmd);
  if (command !== undefined) {
    const files = commandFiles(command);
    return { read: [...files.read], modified: [...files.modified] };
  }
  const paths = [
    ...collectArgumentPaths(argumentsObject),
    ...MORE_PATH_KEYS.map((key) => argumentsObject[key]).filter(
      (value): value is string => typeof value === "string",
    ),
  ];
  if (paths.length === 0) return { read: [], modified: [] };
  if (words.some((word) => WRITE_WORDS.has(word))) return { read: [], modified: paths };
  if (words.some((word) => SEARCH_WORDS.has(word))) return { read: [], modified: [] };
  if (words.some((word) => READ_WORDS.has(word))) return { read: paths, modified: [] };
  return { read: [], modified: [] };
}

/** `NotebookEdit` → `notebook edit`, `fs_modify_file` → `fs modify file`, lowercased. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
}

/** A path as the facts list it, or undefined when it is not plausibly one. */
function normalizeFactPath(raw: string, cwd: string | undefined): string | undefined {
  let path = raw.trim();
  const directory = cwd?.replace(/\/+$/, "");
  if (directory !== undefined && directory !== "") {
    if (path.replace(/\/+$/, "") === directory) return undefined;
    if (path.startsWith(`${directory}/`)) path = path.slice(directory.length + 1);
  }
  const normalized = normalizePath(path);
  return isPlausiblePath(normalized) ? normalized : undefined;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

// ---------------------------------------------------------------------------------------------
// The block

/** Options of `renderRangeFacts`. */
export interface RenderRangeFactsOptions {
  /** The most characters the block may have (its heading and the "left out" line included). */
  readonly maxCharacters: number;
  /** The first line. */
  readonly heading?: string;
}

/** The block and what did not fit. */
export interface RenderedRangeFacts {
  /** The block; empty when there are no facts or not even the heading fits. */
  readonly text: string;
  /** How many facts were left out for the budget, by kind. */
  readonly omitted: {
    readonly filesRead: number;
    readonly filesModified: number;
    readonly bindingSentences: number;
  };
}

const DEFAULT_HEADING = "What the earlier conversation established (from its raw turns):";

/**
 * The facts as a compact block, within `maxCharacters`:
 *
 *   What the earlier conversation established (from its raw turns):
 *   The user's instructions, verbatim:
 *   - "Never touch the migrations folder." (turn 1)
 *   Files modified: src/a.ts, src/b.ts
 *   Files read: notes.txt
 *   (left out for space: 3 files read)
 *
 * When the facts do not fit, the least important go first: files read, oldest first; then files
 * modified, oldest first; then the user's sentences, newest first (the standing rules of a
 * session are usually said early). The last line says how many of each were left out.
 */
export function renderRangeFacts(facts: RangeFacts, options: RenderRangeFactsOptions): RenderedRangeFacts {
  const heading = options.heading ?? DEFAULT_HEADING;
  const kept = {
    filesRead: [...facts.filesRead],
    filesModified: [...facts.filesModified],
    bindingSentences: [...facts.bindingSentences],
  };
  const omitted = { filesRead: 0, filesModified: 0, bindingSentences: 0 };
  const total = kept.filesRead.length + kept.filesModified.length + kept.bindingSentences.length;
  if (total === 0) return { text: "", omitted };
  for (;;) {
    const left = kept.filesRead.length + kept.filesModified.length + kept.bindingSentences.length;
    // A block of nothing but what was left out says nothing worth its room.
    if (left === 0) return { text: "", omitted: countsOf(facts) };
    const text = layout(heading, kept, omitted);
    if (text.length <= options.maxCharacters) return { text, omitted };
    if (kept.filesRead.length > 0) {
      kept.filesRead.shift();
      omitted.filesRead += 1;
    } else if (kept.filesModified.length > 0) {
      kept.filesModified.shift();
      omitted.filesModified += 1;
    } else {
      kept.bindingSentences.pop();
      omitted.bindingSentences += 1;
    }
  }
}

function countsOf(facts: RangeFacts): RenderedRangeFacts["omitted"] {
  return {
    filesRead: facts.filesRead.length,
    filesModified: facts.filesModified.length,
    bindingSentences: facts.bindingSentences.length,
  };
}

function layout(
  heading: string,
  kept: { filesRead: string[]; filesModified: string[]; bindingSentences: BindingSentence[] },
  omitted: RenderedRangeFacts["omitted"],
): string {
  const lines = [heading];
  if (kept.bindingSentences.length > 0) {
    lines.push("The user's instructions, verbatim:");
    for (const sentence of kept.bindingSentences)
      lines.push(`- "${sentence.text.replace(/\s+/g, " ").trim()}" (turn ${sentence.turn + 1})`);
  }
  if (kept.filesModified.length > 0) lines.push(`Files modified: ${kept.filesModified.join(", ")}`);
  if (kept.filesRead.length > 0) lines.push(`Files read: ${kept.filesRead.join(", ")}`);
  const left = [
    [omitted.bindingSentences, "instruction", "instructions"],
    [omitted.filesModified, "file modified", "files modified"],
    [omitted.filesRead, "file read", "files read"],
  ]
    .filter(([count]) => (count as number) > 0)
    .map(([count, one, many]) => `${count} ${count === 1 ? one : many}`);
  if (left.length > 0) lines.push(`(left out for space: ${left.join(", ")})`);
  return lines.join("\n");
}
