/**
 * The summary check: what a proposed summary of a range of turns LOST, so a user can see it before
 * approving the compaction. Pure and deterministic.
 *
 * Four kinds of facts are collected from the raw range and looked up in the summary text:
 *
 * - paths: every path in tool arguments and commands (the digest's extraction), plus path-like words
 *   (`src/since.ts`) in user and assistant messages;
 * - identifiers: code-like words in user and assistant messages and tool arguments: camelCase,
 *   PascalCase with an inner capital, snake_case, SCREAMING_CASE, dotted names (`Number.isNaN`),
 *   Rust paths (`std::fs`) and `--flags`;
 * - numbers: quantities with a unit (`400 MB`, `2h`, `7 s`) and versions (`0.4.2`, `v20.11.1`,
 *   `Node 20`) in user and assistant messages (tool output is left out: it is mostly noise);
 * - constraints: user sentences that bind the work (must, don't, never, always, only, should not…).
 *
 * Tool output and reasoning are not searched for identifiers and numbers: they are where summaries
 * are expected to drop detail. Each list is sorted by importance (mentions weighted by who wrote
 * them: user 3, assistant 2, tool arguments 1; then first appearance) and capped.
 */
import { selectRange } from "./cycles.js";
import { collectArgumentPaths, collectCommandPaths, type DigestRange } from "./digest.js";
import type { Turn } from "./turns.js";

/** One fact the summary does not mention. */
export interface LostItem {
  /** The text as found in the range. */
  readonly value: string;
  /** Weighted mention count (user 3, assistant 2, tool arguments 1). */
  readonly weight: number;
  /** 0-based index of the first turn mentioning it. */
  readonly firstTurn: number;
}

export type LossKind = "paths" | "identifiers" | "numbers" | "constraints";

/** What the summary lost, by kind, most important first. */
export interface SummaryLosses {
  readonly paths: readonly LostItem[];
  readonly identifiers: readonly LostItem[];
  readonly numbers: readonly LostItem[];
  readonly constraints: readonly LostItem[];
  /** How many lost items each list left out because of the cap. */
  readonly omitted: Readonly<Record<LossKind, number>>;
}

/** Options of `checkSummary`. */
export interface SummaryCheckOptions {
  /** Longest list per kind. Default 20. */
  readonly limit?: number;
}

const USER_WEIGHT = 3;
const ASSISTANT_WEIGHT = 2;
const TOOL_WEIGHT = 1;

const IDENTIFIER_PATTERNS = [
  /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, // camelCase
  /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b/g, // PascalCase with an inner capital
  /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, // snake_case
  /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, // SCREAMING_CASE
  /\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?/g, // dotted.names
  /\b\w+(?:::\w+)+/g, // rust::paths
  /(?<![\w-])--[a-zA-Z][\w-]*[a-zA-Z0-9](?![\w-])/g, // --flags
];
// A dotted word whose last part is one of these is a file name, reported as a path instead.
const FILE_EXTENSIONS =
  /\.(?:ts|tsx|js|mjs|cjs|jsx|json|jsonl|md|rs|toml|yaml|yml|lock|txt|log|py|go|java|rb|c|h|cpp|hpp|css|html|sh|sql|csv)$/;
const NUMBER_PATTERNS = [
  /\b\d+(?:\.\d+)?\s?(?:ms|\u00b5s|ns|s|h|seconds?|secs?|minutes?|mins?|hours?|days?|weeks?|months?|years?|KB|MB|GB|TB|KiB|MiB|GiB|kB|bytes?|tokens?|lines?|files?|tests?|px|%)(?![\w])/g,
  /\b(?:\d+(?:ms|[smhdw]))+\b/g, // durations like 2h, 1h30m
  /\bv?\d+\.\d+\.\d+(?:[-+][\w.]+)?\b/g, // versions 0.4.2, v20.11.1
  /\bv\d+(?:\.\d+)?\b/g, // v20
  /\b(?:Node(?:\.js)?|Python|Rust|Go|Java|TypeScript|Ruby|PHP|ES|ECMAScript|Postgres(?:QL)?|Ubuntu|Debian)\s?\d+(?:\.\d+)*\b/g,
];
const STRONG_CONSTRAINT =
  /\b(?:must|mustn't|must not|never|don't|do not|should not|shouldn't|cannot|can't)\b/i;
const WEAK_CONSTRAINT = /\b(?:always|only|no longer|without|avoid)\b/i;
const PATH_IN_TEXT = /(?:^|[\s`'"(])((?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)+)(?=$|[\s`'",:;)])/g;
const STOPWORDS = new Set(
  "this that with have from they them then than when what which will would should could must never always only don't does into your their there here just also because about make sure need want".split(
    " ",
  ),
);

interface Collected {
  value: string;
  weight: number;
  firstTurn: number;
  order: number;
}

/** The facts of the raw range that `summary` does not mention. */
export function checkSummary(
  turns: readonly Turn[],
  range: DigestRange,
  summary: string,
  options: SummaryCheckOptions = {},
): SummaryLosses {
  const limit = Math.max(0, options.limit ?? 20);
  const selected = selectRange(turns, range);
  const found = collectFacts(selected);
  const lowered = summary.toLowerCase();
  const squashed = lowered.replace(/\s+/g, "");
  const lost: Record<LossKind, Collected[]> = {
    paths: found.paths.filter((item) => !mentionsPath(summary, item.value)),
    identifiers: found.identifiers.filter((item) => !summary.includes(item.value)),
    numbers: found.numbers.filter((item) => !squashed.includes(item.value.toLowerCase().replace(/\s+/g, ""))),
    constraints: found.constraints.filter((item) => !keepsConstraint(lowered, item.value)),
  };
  const cap = (items: Collected[]) => [...items].sort(byImportance).slice(0, limit).map(toLostItem);
  return {
    paths: cap(lost.paths),
    identifiers: cap(lost.identifiers),
    numbers: cap(lost.numbers),
    constraints: cap(lost.constraints),
    omitted: {
      paths: Math.max(0, lost.paths.length - limit),
      identifiers: Math.max(0, lost.identifiers.length - limit),
      numbers: Math.max(0, lost.numbers.length - limit),
      constraints: Math.max(0, lost.constraints.length - limit),
    },
  };
}

function collectFacts(turns: readonly Turn[]): Record<LossKind, Collected[]> {
  const tallies: Record<LossKind, Map<string, Collected>> = {
    paths: new Map(),
    identifiers: new Map(),
    numbers: new Map(),
    constraints: new Map(),
  };
  let order = 0;
  const add = (kind: LossKind, value: string, weight: number, turn: number) => {
    const existing = tallies[kind].get(value);
    if (existing) existing.weight += weight;
    else tallies[kind].set(value, { value, weight, firstTurn: turn, order: order++ });
  };
  for (const turn of turns) {
    for (const event of turn.events) {
      if (event.type === "chat_request") {
        collectFromText(event.content, USER_WEIGHT, turn.index, add);
        for (const sentence of findConstraints(event.content))
          add("constraints", sentence, USER_WEIGHT, turn.index);
      } else if (event.type === "chat_response" && event.message !== undefined) {
        collectFromText(event.message, ASSISTANT_WEIGHT, turn.index, add);
      } else if (event.type === "tool_call_request") {
        const command = typeof event.arguments.command === "string" ? event.arguments.command : "";
        const paths = [...collectArgumentPaths(event.arguments), ...collectCommandPaths(command)];
        for (const path of new Set(paths)) if (path !== "") add("paths", path, TOOL_WEIGHT, turn.index);
        for (const text of collectStrings(event.arguments)) {
          for (const identifier of findIdentifiers(text))
            add("identifiers", identifier, TOOL_WEIGHT, turn.index);
        }
      }
    }
  }
  return {
    paths: [...tallies.paths.values()],
    identifiers: [...tallies.identifiers.values()].filter((item) => !tallies.paths.has(item.value)),
    numbers: [...tallies.numbers.values()],
    constraints: [...tallies.constraints.values()],
  };
}

type AddFact = (kind: LossKind, value: string, weight: number, turn: number) => void;

function collectFromText(text: string, weight: number, turn: number, add: AddFact): void {
  for (const match of text.matchAll(PATH_IN_TEXT)) {
    const path = match[1]!.replace(/[.]+$/, "");
    if (!path.includes("://") && /[A-Za-z]/.test(path)) add("paths", path, weight, turn);
  }
  for (const identifier of findIdentifiers(text)) add("identifiers", identifier, weight, turn);
  for (const number of findNumbers(text)) add("numbers", number, weight, turn);
}

/** Code-like words of a text, each once, in order of appearance. */
export function findIdentifiers(text: string): string[] {
  const found: { value: string; at: number }[] = [];
  for (const pattern of IDENTIFIER_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const value = match[0];
      if (FILE_EXTENSIONS.test(value) || /^(?:e\.g|i\.e|etc)\b/i.test(value)) continue;
      found.push({ value, at: match.index ?? 0 });
    }
  }
  return uniqueInOrder(dropContained(found));
}

/** Quantities with units and versions of a text, each once, in order of appearance. */
export function findNumbers(text: string): string[] {
  const found: { value: string; at: number }[] = [];
  for (const pattern of NUMBER_PATTERNS) {
    for (const match of text.matchAll(pattern)) found.push({ value: match[0].trim(), at: match.index ?? 0 });
  }
  return uniqueInOrder(dropContained(found));
}

/** Drops a match that is only part of a longer one (`20` in `Node 20`, `noEmit` in `--noEmit`). */
function dropContained(found: readonly { value: string; at: number }[]): { value: string; at: number }[] {
  return found.filter(
    (item) =>
      !found.some(
        (other) =>
          other !== item &&
          other.value.length > item.value.length &&
          other.at <= item.at &&
          other.at + other.value.length >= item.at + item.value.length,
      ),
  );
}

/** User sentences that bind the work, strongest wording first within the text's order. */
export function findConstraints(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "\n");
  const sentences = withoutCode
    .split("\n")
    .flatMap((line) => line.split(/(?<=[.!?;])\s+/))
    .map((sentence) => sentence.replace(/^\s*(?:[-*+]|\d+\.)\s+/, "").trim())
    .filter((sentence) => sentence.length > 6);
  return sentences.filter((sentence) => STRONG_CONSTRAINT.test(sentence) || WEAK_CONSTRAINT.test(sentence));
}

/** A full path, or its file name when that is distinctive (has an extension, 5+ characters). */
function mentionsPath(summary: string, path: string): boolean {
  if (summary.includes(path)) return true;
  const name =
    path
      .split("/")
      .filter((part) => part.length > 0)
      .pop() ?? path;
  return name !== path && name.length >= 5 && /\.\w+$/.test(name) && summary.includes(name);
}

/** A constraint is kept when most of its content words (4+ letters, not stopwords) appear. */
function keepsConstraint(loweredSummary: string, sentence: string): boolean {
  const words = (sentence.toLowerCase().match(/[a-z0-9][a-z0-9'_-]{3,}/g) ?? []).filter(
    (word) => !STOPWORDS.has(word),
  );
  if (words.length === 0) return loweredSummary.includes(sentence.toLowerCase());
  const present = words.filter((word) => loweredSummary.includes(word)).length;
  return present / words.length >= 0.6;
}

function collectStrings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(collectStrings);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(collectStrings);
  return [];
}

function uniqueInOrder(found: readonly { value: string; at: number }[]): string[] {
  const sorted = [...found].sort(
    (left, right) => left.at - right.at || right.value.length - left.value.length,
  );
  return [...new Set(sorted.map((item) => item.value))];
}

function byImportance(left: Collected, right: Collected): number {
  return right.weight - left.weight || left.order - right.order;
}

function toLostItem(item: Collected): LostItem {
  return { value: item.value, weight: item.weight, firstTurn: item.firstTurn };
}
