/**
 * The `builtin/digest` summarizer: a deterministic, offline summary of the RAW events of a range of
 * turns, as structured markdown. Pure.
 *
 * It keeps what a reader (or a model) resuming the work cannot rebuild: every user request
 * verbatim, every file path touched, the commands run and how they ended, errors and whether they
 * were resolved, the decisions stated by the assistant, and what was left open. It is heuristic by
 * design (no model), but two properties are guaranteed and tested: every file path found in tool
 * arguments or commands and every non-empty user request of the range appears in the text, and the
 * same turns always give the same text.
 *
 * It understands cxc's own tools (`read_file`, `edit_file`, `run_command`) and jp's (`fs_read_file`,
 * `fs_modify_file`, `cargo_check`, `git_*`, …) by argument keys and tool-name words, not by a list.
 */
import { type CycleRange, selectRange, spanOfRange } from "../../../core/conversation/cycles.js";
import {
  ADVISOR_AUTHOR,
  type ToolCallRequest,
  type ToolCallResponse,
} from "../../../core/conversation/events.js";
import { describeSpan, describeTurnRange } from "../../../core/present/labels.js";
import type { Turn } from "../../../core/conversation/turns.js";

/** The recipe name recorded on summaries this module produces. */
export const DIGEST_RECIPE = "builtin/digest";

const PATH_KEYS = new Set([
  "path",
  "paths",
  "file",
  "files",
  "file_path",
  "file_paths",
  "filepath",
  "filename",
  "filenames",
  "prefix",
  "prefixes",
  "dir",
  "directory",
  "directories",
]);
const READ_WORDS =
  /(?:^|_)(?:read|view|cat|get|list|ls|grep|search|find|glob|show|diff|log|fetch|open)(?:_|$)/i;
const WRITE_WORDS =
  /(?:^|_)(?:edit|modify|write|create|patch|replace|delete|remove|rm|rename|move|mv|apply|stage|unstage|insert|append)(?:_|$)/i;
const FAILURE_LINE =
  /\b(?:FAIL|failed|failure|error|Error|panicked|exception|Exception|cannot|Cannot|not found|No such file)\b|[\u00d7\u2717]/;
// Compiler and test-runner lines that name the actual problem; preferred over generic failure words.
const SPECIFIC_FAILURE_LINE =
  /\berror\s*(?:TS\d+|\[E\d+\])|^error\b|^FAIL\b|^[\u00d7\u2717]|^thread '.*' panicked/i;
const EXIT_STATUS = /(?:exit(?:ed with)? (?:code|status):?\s*|Exit status:\s*)(\d+)/gi;
// Phrases that state a choice on their own, and weaker ones ("because", "instead of") that count
// only in a sentence that also speaks of what we do ("we", "I'll", "use", "keep").
const DECISION_WORDS =
  /\b(?:(?:I|we) (?:have )?decided|decided (?:to|not to|on|against)|we'll|we will|let's|I'll use|rather than|chose|going with|settled on|we keep|we should keep)\b/i;
const WEAK_DECISION_WORDS = /\b(?:instead of|because)\b/i;
const FIRST_PERSON_PLAN = /\b(?:we|I'll|I will|use|keep|prefer|choose)\b/i;
const OPEN_WORDS =
  /\b(?:TODO|FIXME|next step|follow-up|follow up|left to do|what's left|open question|not yet|later)\b/i;
const MAX_LINE = 240;

/** Every path-like string under a path key (`path`, `paths`, `file_path`, …), at any depth. */
export function collectArgumentPaths(value: unknown, key?: string): string[] {
  if (typeof value === "string") return key !== undefined && PATH_KEYS.has(key.toLowerCase()) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => collectArgumentPaths(item, key));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([childKey, child]) => collectArgumentPaths(child, childKey));
  }
  return [];
}

/**
 * Path-like words of a shell command: anything with a `/` that is not a URL or an environment
 * assignment, and bare file names with an extension (`package.json`). Quotes are stripped.
 */
export function collectCommandPaths(command: string): string[] {
  const words = command.split(/[\s;|&<>()]+/).map((word) => word.replace(/^['"`]+|['"`,:]+$/g, ""));
  return words.filter((word) => {
    if (word.length < 2 || word.startsWith("-") || word.includes("://") || /^[A-Za-z_][\w]*=/.test(word)) {
      return false;
    }
    return word.includes("/") || /^[\w.-]+\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(word);
  });
}

/** One tool call of the range with its response (when there is one). */
interface ToolRun {
  readonly turn: number;
  readonly request: ToolCallRequest;
  readonly response: ToolCallResponse | undefined;
  readonly paths: readonly string[];
  readonly label: string;
  readonly kind: "read" | "write" | "command";
  readonly failure: string | undefined;
}

/** The digest of the turns of `turns` whose index lies in the range. Same input, same text. */
export function digestTurns(turns: readonly Turn[], range: CycleRange): string {
  const selected = selectRange(turns, range);
  const runs = selected.flatMap(collectToolRuns);
  const first = range.from + 1;
  const last = range.to + 1;
  const title =
    range.fromCycle === undefined && range.toCycle === undefined
      ? describeTurnRange(first, last)
      : describeSpan(spanOfRange(range));
  const sections = [
    `## Digest of ${title} (${DIGEST_RECIPE})`,
    renderRequests(selected),
    renderFiles(runs),
    renderCommands(runs),
    renderErrors(runs),
    renderDecisions(selected),
    renderOpenItems(selected),
  ];
  return `${sections.filter((section) => section.length > 0).join("\n\n")}\n`;
}

function collectToolRuns(turn: Turn): ToolRun[] {
  const responses = new Map<string, ToolCallResponse>();
  for (const event of turn.events)
    if (event.type === "tool_call_response") responses.set(event.call_id, event);
  const runs: ToolRun[] = [];
  for (const event of turn.events) {
    if (event.type !== "tool_call_request") continue;
    const response = responses.get(event.call_id);
    const command = typeof event.arguments.command === "string" ? event.arguments.command : undefined;
    const paths = unique([
      ...collectArgumentPaths(event.arguments),
      ...(command === undefined ? [] : collectCommandPaths(command)),
    ]);
    const kind = command !== undefined ? "command" : classifyTool(event.name, paths);
    const label = command ?? describeCall(event);
    runs.push({
      turn: turn.index,
      request: event,
      response,
      paths,
      label,
      kind,
      failure: findFailure(response),
    });
  }
  return runs;
}

/** Whether a tool call with paths reads them, writes them, or is some other command, by its name. */
export function classifyTool(name: string, paths: readonly string[]): "read" | "write" | "command" {
  if (paths.length > 0 && WRITE_WORDS.test(name)) return "write";
  if (paths.length > 0 && READ_WORDS.test(name)) return "read";
  return "command";
}

/** `cargo_check package=jp_cli`: the tool name and its short scalar arguments. */
function describeCall(request: ToolCallRequest): string {
  const parts = Object.entries(request.arguments)
    .filter(
      ([, value]) => ["string", "number", "boolean"].includes(typeof value) && String(value).length <= 80,
    )
    .map(([key, value]) => `${key}=${String(value).replace(/\s+/g, " ")}`);
  return truncate([request.name, ...parts].join(" "), 160);
}

/** Why a run failed, or undefined when it succeeded (or has no response). */
function findFailure(response: ToolCallResponse | undefined): string | undefined {
  if (!response) return undefined;
  const statuses = [...response.content.matchAll(EXIT_STATUS)].map((match) => Number(match[1]));
  const status = statuses.length > 0 ? statuses[statuses.length - 1] : undefined;
  const failedTests = /\b[1-9]\d* failed\b/.test(response.content); // "0 failed" is a pass
  if (!response.is_error && (status === undefined || status === 0) && !failedTests) return undefined;
  const line = firstFailingLine(response.content);
  const prefix = response.is_error
    ? "error"
    : status !== undefined && status !== 0
      ? `exit ${status}`
      : "failed";
  return line ? `${prefix}: ${line}` : prefix;
}

function firstFailingLine(content: string): string | undefined {
  const lines = content.split("\n").map((line) => line.trim());
  const failing =
    lines.find((line) => SPECIFIC_FAILURE_LINE.test(line)) ??
    lines.find((line) => line.length > 0 && FAILURE_LINE.test(line) && !/^exit code/i.test(line));
  const fallback = lines.find((line) => line.length > 0);
  return (failing ?? fallback) ? truncate((failing ?? fallback)!, MAX_LINE) : undefined;
}

function renderRequests(turns: readonly Turn[]): string {
  const lines = ["### User requests"];
  for (const turn of turns) {
    for (const event of turn.events) {
      if (event.type !== "chat_request" || event.content.trim().length === 0) continue;
      if (event.author === ADVISOR_AUTHOR) continue;
      lines.push(renderVerbatim(`Turn ${turn.index + 1}`, event.content));
    }
  }
  return lines.length > 1 ? lines.join("\n") : "";
}

/** Short one-line text inline; anything else in a fence longer than any backtick run inside it. */
function renderVerbatim(label: string, text: string): string {
  if (!text.includes("\n") && text.length <= 400) return `- ${label}: ${text}`;
  const longestRun = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longestRun + 1);
  return `- ${label}:\n\n${fence}text\n${text}\n${fence}\n`;
}

function renderFiles(runs: readonly ToolRun[]): string {
  const groups: [string, ToolRun["kind"]][] = [
    ["Files read", "read"],
    ["Files changed", "write"],
    ["Other paths (in commands and other tools)", "command"],
  ];
  const blocks: string[] = [];
  for (const [heading, kind] of groups) {
    const turnsByPath = new Map<string, Set<number>>();
    for (const run of runs) {
      if (run.kind !== kind) continue;
      for (const path of run.paths) {
        const seen = turnsByPath.get(path) ?? new Set<number>();
        seen.add(run.turn + 1);
        turnsByPath.set(path, seen);
      }
    }
    if (turnsByPath.size === 0) continue;
    const entries = [...turnsByPath.entries()].sort(([left], [right]) => compareText(left, right));
    const lines = entries.map(([path, turnSet]) => `- \`${path}\` (${formatTurns(turnSet)})`);
    blocks.push(`### ${heading}\n${lines.join("\n")}`);
  }
  return blocks.join("\n\n");
}

function renderCommands(runs: readonly ToolRun[]): string {
  const commands = runs.filter((run) => run.kind === "command");
  if (commands.length === 0) return "";
  const lines = commands.map((run) => {
    const outcome = run.response === undefined ? "no result" : (run.failure ?? "ok");
    return `- Turn ${run.turn + 1}: \`${inlineCode(run.label)}\` → ${outcome}`;
  });
  return `### Commands and tool runs\n${lines.join("\n")}`;
}

function renderErrors(runs: readonly ToolRun[]): string {
  const lines: string[] = [];
  runs.forEach((run, position) => {
    if (run.failure === undefined) return;
    const fix = runs
      .slice(position + 1)
      .find(
        (later) => later.failure === undefined && later.response !== undefined && isSameAction(run, later),
      );
    const resolution = fix
      ? `resolved: succeeded again in turn ${fix.turn + 1}`
      : "not resolved in this range";
    lines.push(`- Turn ${run.turn + 1}: \`${inlineCode(run.label)}\`: ${run.failure} (${resolution})`);
  });
  return lines.length > 0 ? `### Errors\n${lines.join("\n")}` : "";
}

/**
 * Whether a later run retries the failed one: the same tool, and the same command or call, or one
 * that extends it (`npx vitest run` after `npx vitest run test/a.test.ts`, or the reverse).
 */
function isSameAction(failed: ToolRun, later: ToolRun): boolean {
  if (failed.request.name !== later.request.name) return false;
  const [shorter, longer] =
    failed.label.length <= later.label.length ? [failed.label, later.label] : [later.label, failed.label];
  return longer === shorter || longer.startsWith(`${shorter} `);
}

function renderDecisions(turns: readonly Turn[]): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const turn of turns) {
    for (const event of turn.events) {
      if (event.type !== "chat_response" || event.message === undefined) continue;
      for (const sentence of splitSentences(event.message)) {
        if (!isDecision(sentence) || seen.has(sentence)) continue;
        seen.add(sentence);
        lines.push(`- Turn ${turn.index + 1}: ${truncate(sentence, 400)}`);
      }
    }
  }
  return lines.length > 0 ? `### Decisions\n${lines.join("\n")}` : "";
}

function isDecision(sentence: string): boolean {
  return (
    DECISION_WORDS.test(sentence) || (WEAK_DECISION_WORDS.test(sentence) && FIRST_PERSON_PLAN.test(sentence))
  );
}

function renderOpenItems(turns: readonly Turn[]): string {
  const items: string[] = [];
  const lastTurn = turns[turns.length - 1];
  if (lastTurn) items.push(...collectUnansweredAsks(lastTurn));
  const seen = new Set(items);
  for (const turn of turns) {
    for (const event of turn.events) {
      if (event.type !== "chat_response" || event.message === undefined) continue;
      for (const sentence of splitSentences(event.message)) {
        const item = `Turn ${turn.index + 1}: ${truncate(sentence, 400)}`;
        // A sentence ending in ":" introduces a list; its items carry the content.
        if (OPEN_WORDS.test(sentence) && !sentence.endsWith(":") && !seen.has(item)) {
          seen.add(item);
          items.push(item);
        }
      }
    }
  }
  return items.length > 0 ? `### Open items\n${items.map((item) => `- ${item}`).join("\n")}` : "";
}

/**
 * The last turn's loose ends: its user request when no assistant message followed, questions the
 * user asked in it, and questions the assistant asked back in its final message.
 */
function collectUnansweredAsks(turn: Turn): string[] {
  const label = `Turn ${turn.index + 1}`;
  const messages = turn.events.filter(
    (event) => event.type === "chat_response" && event.message !== undefined,
  );
  const requests = turn.events.filter(
    (event) => event.type === "chat_request" && event.author !== ADVISOR_AUTHOR,
  );
  const asks: string[] = [];
  const lastRequest = requests[requests.length - 1];
  const lastRequestPosition = lastRequest ? turn.events.indexOf(lastRequest) : -1;
  const answered = turn.events.slice(lastRequestPosition + 1).some((event) => messages.includes(event));
  if (lastRequest && !answered) asks.push(`${label}: the request (quoted above) has no answer yet`);
  for (const request of requests) {
    if (request.type !== "chat_request") continue;
    for (const sentence of splitSentences(request.content)) {
      if (sentence.endsWith("?")) asks.push(`${label}, the user asked: "${truncate(sentence, 400)}"`);
    }
  }
  const finalMessage = messages[messages.length - 1];
  if (finalMessage?.type === "chat_response" && finalMessage.message) {
    for (const sentence of splitSentences(finalMessage.message)) {
      if (sentence.endsWith("?")) asks.push(`${label}, the assistant asked: "${truncate(sentence, 400)}"`);
    }
  }
  return asks;
}

/** Sentences of prose: split at line breaks and sentence ends; code fences are skipped. */
function splitSentences(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "\n");
  return withoutCode
    .split("\n")
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+\.)\s+/, "").trim())
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[A-Z`*"(])/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 3);
}

function formatTurns(turnSet: ReadonlySet<number>): string {
  const numbers = [...turnSet].sort((left, right) => left - right);
  return `${numbers.length === 1 ? "turn" : "turns"} ${numbers.join(", ")}`;
}

function inlineCode(text: string): string {
  return truncate(text.replace(/\s*\n\s*/g, " ").replace(/`/g, "'"), 200);
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((value) => value.length > 0))];
}

/** Code-point order, independent of locale, so the output never depends on the machine. */
function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
