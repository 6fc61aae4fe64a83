/**
 * The summary check: what a proposed summary of a range of turns does not mention that the raw
 * turns made important, ranked, so whoever approves the summary (the user, or the assistant that
 * wrote it) sees the cost first. Pure and deterministic. See docs/compaction.md ("The summary check").
 *
 * It reports only what the facts block cannot carry (compaction/core/keeping.ts puts the files
 * read and modified and the user's binding sentences after every summary cxc writes, exactly):
 *
 * - identifiers from code: code-shaped words (`parse_since`, `BearDb`, `Foo::bar`, `--since`,
 *   `run()`) that the user or the assistant wrote in their messages AND that are code: in inline
 *   code, a code block, a tool's arguments or a tool's output. `macOS` or `github.com` in prose are
 *   not identifiers, nor are the paths the range names;
 * - numbers with a unit (`200 ms`, `1.8 MB`, `3 retries`, `40%`) in the user's messages, and
 *   measurements (time, size, share, speed) in the assistant's.
 *
 * Facts are deduplicated (`foo()` and `foo`; `200ms` and `200 ms`) and looked up leniently in the
 * summary (identifiers ignore case, `_` and `-`). Reasoning is never searched. Each lost fact is
 * scored by the strength of its signal (the user's words over the assistant's), how often it came
 * up and how recently, and the list is ranked by that score.
 */
import { type CycleRange, selectRange } from "../../../core/conversation/cycles.js";
import { collectArgumentPaths, collectCommandPaths } from "./digest.js";
import { ADVISOR_AUTHOR } from "../../../core/conversation/events.js";
import {
  boundNames,
  codeWords,
  definedNames,
  findIdentifiers,
  findPathWords,
  findQuantities,
  identifierKey,
  importedNames,
  isCodeShaped,
  isPlausiblePath,
  isNarration,
  normalizePath,
  proseSentences,
  splitMessage,
  supersededNames,
} from "./facts.js";
import type { Turn } from "../../../core/conversation/turns.js";

export { findIdentifiers, findQuantities } from "./facts.js";

/** The kinds of facts the check looks for. */
export type LossKind = "identifier" | "number";

/** One fact of the raw turns that the summary does not mention. */
export interface LostItem {
  readonly kind: LossKind;
  /** The fact as written in the turns. */
  readonly value: string;
  /** Why it counts, for people and models: `named by the user in turn 1`, `the user's, turn 1`. */
  readonly reason: string;
  /** Rank: signal strength (3–6) + how often it came up (0–2) + how recently (0–1). */
  readonly score: number;
  /** The 0-based turns it came up in, ascending. */
  readonly turns: readonly number[];
}

/** What a summary does not mention, most important first. */
export interface SummaryLosses {
  /** Every lost fact, ranked by score (ties: first appearance). */
  readonly items: readonly LostItem[];
  /** How many facts the check found in the turns, mentioned or not. */
  readonly checked: number;
}

/** How a fact came up; each has a strength and a phrase for the reason. */
type Signal = "user" | "assistant" | "assistant-code" | "pasted";

const STRENGTH: Record<LossKind, Partial<Record<Signal, number>>> = {
  identifier: { user: 5, "assistant-code": 4, pasted: 4, assistant: 3 },
  number: { user: 6, assistant: 3 },
};

interface Fact {
  readonly kind: LossKind;
  readonly key: string;
  value: string;
  readonly signals: Map<Signal, Set<number>>;
  readonly events: Set<number>;
  first: number;
  last: number;
  /** Identifiers: named inside backticks, or passed in a tool call's arguments. */
  backticked: boolean;
  inToolArguments: boolean;
  /** Identifiers: named on its own somewhere, not only inside a longer code expression. */
  standalone: boolean;
  /** Identifiers: named in a sentence that says something, not only in "let me check `x`". */
  substantive: boolean;
  /** Identifiers: the messages that named it in pasted reference. */
  readonly pastedEvents: Set<number>;
  /** Identifiers: named as removed or replaced in work that is done (`Removed \`x\``), or as an import. */
  superseded: boolean;
  /** Identifiers: named in a sentence that says something of it as it is (not narration, not as removed). */
  current: boolean;
}

/** What the whole range showed as code, to confirm what prose names. */
interface Evidence {
  readonly codeWords: Set<string>;
  /** Paths the range names (tool arguments, commands, prose): never identifiers. */
  readonly paths: Set<string>;
  readonly argumentWords: Set<string>;
  readonly toolNames: Set<string>;
  /** Names the code defines (`fn`, `struct`, `pub` fields, `export const`, …). */
  readonly defined: Set<string>;
  /** Names the code the work wrote newly defines (in tool-call arguments, not in code it had read). */
  readonly written: Set<string>;
  /** Names the code that tools showed defines (what the code had before the work changed it). */
  readonly existing: Set<string>;
  /** Names code binds as locals or parameters (`let x`, `fn f(x: T)`). */
  readonly bindings: Set<string>;
}

class FactTable {
  readonly facts = new Map<string, Fact>();

  add(kind: LossKind, key: string, value: string, signal: Signal, turn: number, position: number): Fact {
    const id = `${kind}\u0000${key}`;
    let fact = this.facts.get(id);
    if (fact === undefined) {
      fact = {
        kind,
        key,
        value,
        signals: new Map(),
        events: new Set(),
        first: position,
        last: position,
        backticked: false,
        inToolArguments: false,
        standalone: false,
        substantive: false,
        pastedEvents: new Set(),
        superseded: false,
        current: false,
      };
      this.facts.set(id, fact);
    }
    const turns = fact.signals.get(signal) ?? new Set<number>();
    turns.add(turn);
    fact.signals.set(signal, turns);
    fact.events.add(position);
    fact.first = Math.min(fact.first, position);
    fact.last = Math.max(fact.last, position);
    return fact;
  }

  of(kind: LossKind): Fact[] {
    return [...this.facts.values()].filter((fact) => fact.kind === kind);
  }

  remove(fact: Fact): void {
    this.facts.delete(`${fact.kind}\u0000${fact.key}`);
  }
}

/** The facts of the raw range that `summary` does not mention, ranked (see the module comment). */
export function checkSummary(turns: readonly Turn[], range: CycleRange, summary: string): SummaryLosses {
  // Inside a turn only the covered cycles (docs/decisions/006-tool-cycle-bounds.md).
  const selected = selectRange(turns, range);
  const { facts, span } = collectFacts(selected);
  const index = indexSummary(summary);
  const lost = facts.filter((fact) => !mentions(index, fact));
  const items = lost
    .map((fact) => ({ fact, score: scoreOf(fact, span) }))
    .sort((left, right) => right.score - left.score || left.fact.first - right.fact.first)
    .map(({ fact, score }) => toItem(fact, score));
  return { items, checked: facts.length };
}

// ---------------------------------------------------------------------------------------------
// Collecting

function collectFacts(turns: readonly Turn[]): { facts: Fact[]; span: { first: number; last: number } } {
  const table = new FactTable();
  const evidence: Evidence = {
    codeWords: new Set(),
    paths: new Set(),
    argumentWords: new Set(),
    toolNames: new Set(),
    defined: new Set(),
    written: new Set(),
    existing: new Set(),
    bindings: new Set(),
  };
  const prose: ProseMessage[] = [];
  let position = 0;
  for (const turn of turns) {
    for (const event of turn.events) {
      position += 1;
      if (event.type === "chat_request" && event.author !== ADVISOR_AUTHOR) {
        readMessage(event.content, "user", turn.index, position, { table, evidence, prose });
      } else if (event.type === "chat_response" && event.message !== undefined) {
        readMessage(event.message, "assistant", turn.index, position, { table, evidence, prose });
      } else if (event.type === "tool_call_request") {
        readToolCall(event.name, event.arguments, evidence);
      } else if (event.type === "tool_call_response") {
        codeWords(event.content, evidence.codeWords);
        definedNames(event.content, evidence.defined);
        definedNames(event.content, evidence.existing);
        boundNames(event.content, evidence.bindings);
      }
    }
  }
  // The assistant's own quantities count when the conversation came back to them; said once they
  // are mostly asides (`typically 8KB`, `10 minutes of work`). The user's always count.
  for (const fact of table.of("number"))
    if (!fact.signals.has("user") && fact.events.size < 2) table.remove(fact);
  collectIdentifiers(table, prose, evidence);
  return { facts: [...table.facts.values()], span: { first: 1, last: Math.max(1, position) } };
}

interface Collecting {
  readonly table: FactTable;
  readonly evidence: Evidence;
  readonly prose: ProseMessage[];
}

/** A message's prose (code blocks left out), read for identifiers once the whole range is known. */
interface ProseMessage {
  readonly text: string;
  readonly spans: readonly string[];
  /** A user message of pasted reference (see `isPastedReference`). */
  readonly pasted: boolean;
  readonly signal: "user" | "assistant";
  readonly turn: number;
  readonly position: number;
}

function readMessage(
  text: string,
  signal: "user" | "assistant",
  turn: number,
  position: number,
  into: Collecting,
): void {
  const split = splitMessage(text);
  codeWords(split.code, into.evidence.codeWords);
  definedNames(split.code, into.evidence.defined);
  boundNames(split.code, into.evidence.bindings);
  for (const span of split.spans) codeWords(span, into.evidence.codeWords);
  const pasted = signal === "user" && isPastedReference(split);
  for (const path of findPathWords(split.prose)) into.evidence.paths.add(path.toLowerCase());
  into.prose.push({ text: split.prose, spans: split.spans, pasted, signal, turn, position });
  for (const quantity of findQuantities(split.prose)) {
    if (signal === "assistant" && quantity.measure !== "measure") continue;
    into.table.add("number", quantity.key, quantity.value, signal, turn, position);
  }
}

/**
 * Whether a user message is pasted reference (a guide, a log, a listing, documentation): its
 * prose and code blocks together name more than `PASTED_IDENTIFIERS` identifiers.
 */
function isPastedReference(split: { prose: string; code: string }): boolean {
  return findIdentifiers(split.prose).length + findIdentifiers(split.code).length > PASTED_IDENTIFIERS;
}

function readToolCall(
  name: string,
  argumentsObject: Readonly<Record<string, unknown>>,
  evidence: Evidence,
): void {
  evidence.toolNames.add(identifierKey(name));
  const repository = ["repository", "repo"]
    .map((key) => argumentsObject[key])
    .find((value) => typeof value === "string");
  if (typeof repository === "string" && /^[\w.-]+\/[\w.-]+$/.test(repository)) {
    // Files of another repository: what counts is which repository the work studied.
    evidence.paths.add(repository.toLowerCase());
    for (const text of collectStrings(argumentsObject)) codeWords(text, evidence.codeWords);
    return;
  }
  const command = typeof argumentsObject.command === "string" ? argumentsObject.command : "";
  for (const path of [...collectArgumentPaths(argumentsObject), ...collectCommandPaths(command)]) {
    const normalized = normalizePath(path);
    if (isPlausiblePath(normalized)) evidence.paths.add(normalized.toLowerCase());
  }
  // What the call newly defines: in what it writes, not in the text an edit replaces (`old`,
  // `string_to_replace`) nor in code a tool showed before (a test kept or moved is not new).
  const strings = collectStrings(argumentsObject);
  const writes = collectStrings(argumentsObject, REPLACED_KEYS);
  const replaced = new Set<string>();
  for (const text of strings) if (!writes.includes(text)) definedNames(text, replaced);
  const defines = new Set<string>();
  for (const text of writes) definedNames(text, defines);
  for (const name of defines)
    if (!replaced.has(name) && !evidence.existing.has(name)) evidence.written.add(name);
  for (const text of strings) {
    codeWords(text, evidence.codeWords);
    definedNames(text, evidence.defined);
    boundNames(text, evidence.bindings);
  }
  // Short values (a pattern, a query, a symbol, a package) say what the call was about. Code an
  // edit writes or replaces is content however short: a name in it is code, not what was sought.
  for (const text of collectStrings(argumentsObject, CONTENT_KEYS))
    if (text.length <= 200) codeWords(text, evidence.argumentWords);
}

const REPLACED_KEYS = new Set(["old", "old_string", "string_to_replace", "search", "find", "before"]);
const CONTENT_KEYS = new Set([
  ...REPLACED_KEYS,
  "new",
  "new_string",
  "replace",
  "replacement",
  "after",
  "content",
  "contents",
  "text",
  "patch",
  "patches",
  "diff",
]);

function collectIdentifiers(table: FactTable, prose: Collecting["prose"], evidence: Evidence): void {
  const pathKeys = new Set([...evidence.paths].flatMap((path) => [path, ...path.split("/")]));
  for (const message of prose) {
    const inSpans = new Set(message.spans.flatMap((span) => findIdentifiers(span).map(identifierKey)));
    // Named on its own: in prose, or as the whole of an inline code span (`foo`, `foo()`, `foo(x)`).
    const outsideSpans = message.text.replace(/`[^`\n]+`/g, " ");
    const alone = new Set([
      ...findIdentifiers(outsideSpans).map(identifierKey),
      ...message.spans
        .filter((span) => /^[^\s(]+(?:\([^()]*\))?$/.test(span))
        .flatMap((span) => findIdentifiers(span).map(identifierKey)),
    ]);
    // Named only in "let me check `x`" sentences: what the assistant was about to look at.
    const sentences = proseSentences(message.text, { keepTables: true });
    const narrated = new Set(
      sentences.filter(isNarration).flatMap((line) => findIdentifiers(line).map(identifierKey)),
    );
    const said = new Set(
      sentences
        .filter((line) => !isNarration(line))
        .flatMap((line) => findIdentifiers(line).map(identifierKey)),
    );
    // Named as removed or replaced in work that is done (`Removed \`x\``) or as an import, and
    // said otherwise (narration does not count).
    const superseded = new Set<string>();
    const current = new Set<string>();
    for (const line of sentences) {
      const gone = new Set([...supersededNames(line), ...importedNames(line)]);
      for (const key of gone) superseded.add(key);
      if (isNarration(line)) continue;
      for (const name of findIdentifiers(line))
        if (!gone.has(identifierKey(name))) current.add(identifierKey(name));
    }
    const found = findIdentifiers(message.text);
    const pasted = message.pasted;
    for (const value of found) {
      const key = identifierKey(value);
      if (evidence.toolNames.has(key) || pathKeys.has(value.toLowerCase())) continue;
      const backticked = inSpans.has(key);
      // An identifier is code only when code shows it: backticks, a code block, a tool's input or output.
      if (!backticked && !shownByCode(value, evidence.codeWords)) continue;
      const signal: Signal = pasted
        ? "pasted"
        : message.signal === "user"
          ? "user"
          : backticked
            ? "assistant-code"
            : "assistant";
      const fact = table.add(
        "identifier",
        key,
        value.replace(/\(\)$/, ""),
        signal,
        message.turn,
        message.position,
      );
      fact.backticked ||= backticked;
      fact.inToolArguments ||= evidence.argumentWords.has(key);
      fact.standalone ||= alone.has(key);
      fact.substantive ||= said.has(key) || !narrated.has(key);
      fact.superseded ||= superseded.has(key);
      fact.current ||= current.has(key) || !(superseded.has(key) || narrated.has(key));
      if (pasted) fact.pastedEvents.add(message.position);
    }
  }
  mergeIdentifierSpellings(table);
  for (const fact of table.of("identifier")) if (isIncidental(fact, evidence)) table.remove(fact);
}

/**
 * Whether an identifier the messages named is incidental to the work: pasted reference the work
 * did not take up, a local variable or a field of one, a test the work did not add, what the
 * finished work removed or replaced, an import, something the assistant only said it would look
 * at, or code it quoted once in passing. The user's own words are never incidental.
 */
function isIncidental(fact: Fact, evidence: Evidence): boolean {
  const signals = [...fact.signals.keys()];
  if (signals.includes("user")) return false;
  // Pasted reference (a migration guide) counts where the assistant came back to it twice.
  if (fact.pastedEvents.size > 0 && fact.events.size - fact.pastedEvents.size < 2) return true;
  if (signals.includes("pasted")) return false;
  const plain = /^[a-z_][\w$]*$/.test(fact.value);
  // `T::json_schema`: a type parameter's method in generic code, not a name of the project's.
  if (/^[A-Z]::/.test(fact.value)) return true;
  // `valid_ids`, `report.trashed`: a local value (or a field of one), not a name of the code.
  if (/^[a-z][a-z0-9]*\.[a-z][a-z0-9_]*$/.test(fact.value)) return true;
  if (plain && evidence.bindings.has(fact.key) && !evidence.defined.has(fact.key)) return true;
  // A test the work did not add (only read, kept, moved, edited or removed).
  if (/^test_/.test(fact.value) && !evidence.written.has(fact.key)) return true;
  // Named only as removed or replaced in work that is done, or as an import: superseded or plumbing.
  if (fact.superseded && !fact.current) return true;
  if (fact.inToolArguments) return false;
  // "Let me check `Foo`": what the assistant was about to look at, not what it found.
  if (!fact.substantive) return true;
  if (fact.events.size > 1) return false;
  // Named once: a plain name the code does not define is a local or a detail of quoted code; a
  // name only ever inside a longer expression (`Foo::new(&x).bar()`) was quoted in passing.
  return (plain && !evidence.defined.has(fact.key)) || !fact.standalone;
}

/** Whether code shows the identifier, or each part of a qualified one (`Store` and `open_log`). */
function shownByCode(value: string, words: ReadonlySet<string>): boolean {
  if (words.has(identifierKey(value))) return true;
  const parts = value.replace(/\(\)$/, "").split(/::|\./);
  return parts.length > 1 && parts.every((part) => words.has(identifierKey(part)));
}

const PASTED_IDENTIFIERS = 12;

/**
 * One fact per identifier however it was spelled: `crate::FOO` is `FOO`, `Type::method` and
 * `method` are one (shown qualified), `ConversationIds` is `ConversationId`.
 */
function mergeIdentifierSpellings(table: FactTable): void {
  const byKey = new Map(table.of("identifier").map((fact) => [fact.key, fact]));
  const merge = (from: Fact, into: Fact, value: string) => {
    if (from === into) return;
    for (const [signal, turns] of from.signals)
      for (const turn of turns) table.add("identifier", into.key, value, signal, turn, from.first);
    for (const position of from.events) into.events.add(position);
    into.last = Math.max(into.last, from.last);
    into.value = value;
    into.backticked ||= from.backticked;
    into.inToolArguments ||= from.inToolArguments;
    into.standalone ||= from.standalone;
    into.substantive ||= from.substantive;
    into.superseded ||= from.superseded;
    into.current ||= from.current;
    for (const position of from.pastedEvents) into.pastedEvents.add(position);
    table.remove(from);
    byKey.delete(from.key);
  };
  for (const fact of table.of("identifier")) {
    const bare = fact.value.replace(/^(?:crate|self|super)::/, "");
    const parts = bare.split(/::|\./);
    const last = parts[parts.length - 1]!;
    const target =
      bare !== fact.value
        ? byKey.get(identifierKey(bare))
        : parts.length > 1 && /[_A-Z]/.test(last.slice(1)) && last.length >= 6
          ? byKey.get(identifierKey(last))
          : // `ConversationIds` is `ConversationId`; `get_notes` and `get_note` are two functions.
            /^[A-Z][A-Za-z0-9]*s$/.test(fact.value)
            ? byKey.get(fact.key.slice(0, -1))
            : undefined;
    if (target === undefined || !table.facts.has(`identifier\u0000${target.key}`)) continue;
    // The qualified spelling says more; a plural says less.
    const keepQualified = parts.length > 1 && bare === fact.value;
    merge(fact, target, keepQualified ? fact.value : target.value);
  }
}

// ---------------------------------------------------------------------------------------------
// Looking facts up in the summary

interface SummaryIndex {
  readonly lower: string;
  readonly squashed: string;
  readonly words: Set<string>;
  readonly quantities: Set<string>;
}

function indexSummary(summary: string): SummaryIndex {
  const words = new Set<string>();
  codeWords(summary, words);
  for (const word of summary.toLowerCase().split(/[^\w]+/))
    if (word !== "") words.add(word.replace(/_/g, ""));
  return {
    lower: summary.toLowerCase(),
    squashed: summary.toLowerCase().replace(/[\s_-]+/g, ""),
    words,
    quantities: new Set(findQuantities(summary).map((quantity) => quantity.key)),
  };
}

function mentions(index: SummaryIndex, fact: Fact): boolean {
  if (fact.kind === "identifier") return mentionsIdentifier(index, fact.value);
  return (
    index.quantities.has(fact.key) || index.squashed.includes(fact.value.toLowerCase().replace(/\s+/g, ""))
  );
}

/** The identifier in any case, with or without `_`/`-`/`()`, or its last `::`/`.` part when distinctive. */
function mentionsIdentifier(index: SummaryIndex, value: string): boolean {
  const key = identifierKey(value);
  if (index.words.has(key) || (key.length >= 8 && index.squashed.includes(key))) return true;
  const parts = value.replace(/\(\)$/, "").split(/::|\./);
  const last = parts[parts.length - 1]!;
  return parts.length > 1 && (isCodeShaped(last) || last.length >= 8) && index.words.has(identifierKey(last));
}

// ---------------------------------------------------------------------------------------------
// Ranking and reasons

function strengthOf(fact: Fact): number {
  let strength = 0;
  for (const signal of fact.signals.keys()) strength = Math.max(strength, STRENGTH[fact.kind][signal] ?? 0);
  if (fact.kind === "identifier" && fact.inToolArguments) strength += 1;
  return strength;
}

function scoreOf(fact: Fact, span: { first: number; last: number }): number {
  const often = Math.min(2, Math.log2(fact.events.size));
  const recent = span.last === span.first ? 1 : (fact.last - span.first) / (span.last - span.first);
  return Math.round((strengthOf(fact) + often + recent) * 100) / 100;
}

const PHRASES: Record<Signal, string> = {
  user: "named by the user",
  assistant: "named by the assistant",
  "assistant-code": "named by the assistant",
  pasted: "in text the user pasted",
};

/** `turn 3`, `turns 2 and 5`, `turns 1, 2, 4 and 3 more` (1-based). */
export function describeTurns(turns: readonly number[]): string {
  const shown = turns.map((turn) => String(turn + 1));
  if (shown.length === 1) return `turn ${shown[0]}`;
  if (shown.length <= 3) return `turns ${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
  return `turns ${shown.slice(0, 3).join(", ")} and ${shown.length - 3} more`;
}

function reasonOf(fact: Fact): string {
  const ranked = [...fact.signals.entries()].sort(
    ([left], [right]) => (STRENGTH[fact.kind][right] ?? 0) - (STRENGTH[fact.kind][left] ?? 0),
  );
  const [signal, signalTurns] = ranked[0]!;
  const when = describeTurns([...signalTurns].sort((a, b) => a - b));
  const parts = [
    fact.kind === "number" && signal === "user" ? `the user's, ${when}` : `${PHRASES[signal]} in ${when}`,
  ];
  if (fact.kind === "identifier") {
    if (signal !== "user" && fact.signals.has("user")) parts.push("named by the user");
    if (fact.inToolArguments) parts.push("used in tool calls");
  }
  const count = fact.events.size;
  const more = count >= 3 ? ` (${count} mentions)` : "";
  return `${parts.join("; ")}${more}`;
}

function toItem(fact: Fact, score: number): LostItem {
  const turns = new Set<number>();
  for (const signalTurns of fact.signals.values()) for (const turn of signalTurns) turns.add(turn);
  return {
    kind: fact.kind,
    value: fact.value,
    reason: reasonOf(fact),
    score,
    turns: [...turns].sort((left, right) => left - right),
  };
}

/** Every string in a JSON value, leaving out the values under `skipKeys`. */
function collectStrings(value: unknown, skipKeys?: ReadonlySet<string>): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap((item) => collectStrings(item, skipKeys));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value)
      .filter(([key]) => !skipKeys?.has(key))
      .flatMap(([, child]) => collectStrings(child, skipKeys));
  }
  return [];
}

/** For tests: the sentences the check reads constraints from. */
export const sentencesOf = proseSentences;
