/**
 * The built-in `recall` tool: the model reads back, verbatim, what a compaction hid from its
 * context, or searches it (docs/recall.md; the rules are core/conversation/recall.ts).
 *
 * - `reference`: a reference as the recall index writes it (`turn 2, call 1`, `turns 1..5`);
 *   the raw content, paged under `conversation.recall.page_characters` (default 8000, never below
 *   4000), `page` for the next ones.
 * - `query`: a text, or a `/pattern/`, over the hidden content only; snippets with references,
 *   newest first. A pattern is the model's own regular expression, so it runs in a worker that is
 *   ended after `PATTERN_TIME_LIMIT_MS`: a pattern that backtracks for ever costs a tool error,
 *   never the turn.
 *
 * Read-only, so it runs without asking. It is offered on every request of a conversation while
 * `conversation.recall.enabled` (the default) holds, compacted or not, so a compaction never
 * changes the tool list the prompt cache keys on; `cxc q` adds it beside the selected tools
 * (src/query/recall.ts), `cxc mcp` serves it to Claude Code and Codex (src/cli/mcp/), the pi
 * extension registers it in pi (src/cli/pi/). Each hands it the events to read.
 */
import { Worker } from "node:worker_threads";
import * as z from "zod";
import { type ConfigTable, lookupConfig } from "../core/config.js";
import {
  analyzeRecall,
  DEFAULT_RECALL_INDEX_LINES,
  DEFAULT_RECALL_PAGE_CHARACTERS,
  MINIMUM_RECALL_PAGE_CHARACTERS,
  queryPattern,
  type RecallAnalysis,
  type RecallMatch,
  type RecallOptions,
  readRecallReference,
  recallUnits,
  renderRecallSearch,
  findRecallMatches,
  indexSources,
  parseRecallReference,
} from "../core/conversation/recall.js";
import { zodArguments } from "./arguments.js";
import { builtinTool, type Tool, type ToolCallContext, type ToolOutcome } from "./tool.js";

/** The tool's name. */
export const RECALL_TOOL_NAME = "recall";

/** How long a model's pattern may run over the hidden content. */
export const PATTERN_TIME_LIMIT_MS = 1000;

/** The tool's description: short and fixed, so it costs the same on every request. */
export const RECALL_DESCRIPTION =
  "Read back, verbatim, what compaction hid from your context. Give `reference` as the recall index writes it " +
  '(e.g. "turn 2, call 1", "turns 1..5"; `page` for long ones), or `query`: text or a /pattern/ to search all hidden content.';

const recallArgumentsSchema = () =>
  z.strictObject({
    reference: z
      .string()
      .optional()
      .describe('A reference from the recall index, e.g. "turn 2, call 1" or "turns 1..5".'),
    query: z.string().optional().describe("Text, or a /pattern/, to find in the hidden content."),
    page: z.number().int().min(1).optional().describe("The page of a long result (default 1)."),
  });

/** The tool's arguments (their JSON Schema, and the check of a call). */
export const RECALL_ARGUMENTS = zodArguments(recallArgumentsSchema);

/** `conversation.recall.*` as read. */
export interface RecallSettings {
  /** `conversation.recall.enabled` (default true). */
  readonly enabled: boolean;
  /** `conversation.recall.page_characters` (default 8000, at least 4000). */
  readonly pageCharacters: number;
  /** `conversation.recall.exclude`: patterns (text, or `/regex/flags`) recall never reads. */
  readonly exclude: readonly string[];
  /** `conversation.recall.index_lines` (default 100): past it the oldest lines fold into one. */
  readonly indexLines: number;
}

/** The settings when nothing is configured. */
export const DEFAULT_RECALL_SETTINGS: RecallSettings = {
  enabled: true,
  pageCharacters: DEFAULT_RECALL_PAGE_CHARACTERS,
  exclude: [],
  indexLines: DEFAULT_RECALL_INDEX_LINES,
};

/** A problem with a `conversation.recall` value: the key and what is wrong. */
export class RecallSettingsError extends Error {}

/** Reads `conversation.recall.*`; throws a `RecallSettingsError` naming a value that cannot be used. */
export function readRecallSettings(values: ConfigTable): RecallSettings {
  const enabled = lookupConfig(values, "conversation.recall.enabled") ?? true;
  if (typeof enabled !== "boolean")
    throw new RecallSettingsError("conversation.recall.enabled must be true or false");
  const page = lookupConfig(values, "conversation.recall.page_characters") ?? DEFAULT_RECALL_PAGE_CHARACTERS;
  if (typeof page !== "number" || !Number.isInteger(page) || page < MINIMUM_RECALL_PAGE_CHARACTERS)
    throw new RecallSettingsError(
      `conversation.recall.page_characters must be a whole number of at least ${MINIMUM_RECALL_PAGE_CHARACTERS}`,
    );
  const lines = lookupConfig(values, "conversation.recall.index_lines") ?? DEFAULT_RECALL_INDEX_LINES;
  if (typeof lines !== "number" || !Number.isInteger(lines) || lines < 2)
    throw new RecallSettingsError("conversation.recall.index_lines must be a whole number of at least 2");
  const exclude = lookupConfig(values, "conversation.recall.exclude") ?? [];
  const patterns = typeof exclude === "string" ? [exclude] : exclude;
  if (!Array.isArray(patterns) || patterns.some((pattern) => typeof pattern !== "string" || pattern === ""))
    throw new RecallSettingsError("conversation.recall.exclude must be a list of patterns (text or /regex/)");
  return { enabled, pageCharacters: page, exclude: patterns as string[], indexLines: lines };
}

/** What `analyzeRecall` takes from the settings. */
export function recallOptions(settings: RecallSettings, source?: string): RecallOptions {
  return {
    excludePatterns: settings.exclude,
    maxIndexLines: settings.indexLines,
    ...(source === undefined ? {} : { source }),
  };
}

/** The arguments of one call. */
export interface RecallCall {
  readonly reference?: string;
  readonly query?: string;
  readonly page?: number;
}

/**
 * Runs one call over an analysis: a reference read, or a search (a pattern in a worker under the
 * time limit). Failures the model can act on are tool errors.
 */
export async function runRecall(
  analyses: RecallAnalysis | readonly RecallAnalysis[],
  call: RecallCall,
  settings: Pick<RecallSettings, "pageCharacters">,
): Promise<ToolOutcome> {
  const all: readonly RecallAnalysis[] = Array.isArray(analyses) ? analyses : [analyses as RecallAnalysis];
  const analysis = all[0]!;
  const reference = call.reference?.trim() ?? "";
  const query = call.query ?? "";
  const paging = { budget: settings.pageCharacters, ...(call.page === undefined ? {} : { page: call.page }) };
  if (reference !== "" && query.trim() !== "")
    return failure("give either `reference` or `query`, not both: read one item, or search them all");
  if (reference !== "") {
    const read = readRecallReference(analysis, reference, paging);
    return read.ok ? { content: read.text, isError: false } : failure(read.error);
  }
  if (query.trim() === "")
    return failure(
      'give `reference` (e.g. "turn 2, call 1", from the recall index) or `query` (text or a /pattern/)',
    );
  const compiled = queryPattern(query);
  if ("error" in compiled) return failure(compiled.error);
  const units = all.flatMap((one) => recallUnits(one));
  const texts = units.map((unit) => unit.text);
  const found = compiled.isPattern
    ? await matchInWorker(texts, compiled.pattern, PATTERN_TIME_LIMIT_MS)
    : findRecallMatches(texts, compiled.pattern);
  if (found === "timeout")
    return failure(
      `the pattern ${query.trim().slice(0, 80)} ran longer than ${PATTERN_TIME_LIMIT_MS / 1000} s over the hidden content and was stopped; use a simpler pattern, or a text query`,
    );
  const rendered = renderRecallSearch(units, found, query, paging);
  return rendered.ok ? { content: rendered.text, isError: false } : failure(rendered.error);
}

/**
 * Runs one call over an agent's session (`own`) and the cxc conversations its export names
 * (docs/recall.md, "Exports"): a reference that names `cxc <id>` reads that conversation
 * (`loadCxc`, from the store), one without a source the session itself; a query searches the
 * session and every conversation its recall index names.
 */
export async function runRecallWithSources(
  own: RecallAnalysis,
  call: RecallCall,
  settings: Pick<RecallSettings, "pageCharacters">,
  loadCxc: (id: string) => RecallAnalysis | undefined | Promise<RecallAnalysis | undefined>,
): Promise<ToolOutcome> {
  const reference = call.reference?.trim() ?? "";
  if (reference !== "") {
    const parsed = parseRecallReference(reference);
    if (!parsed.ok || parsed.source === undefined || parsed.source === own.source)
      return runRecall(own, call, settings);
    const id = parsed.source.replace(/^cxc\s+/i, "");
    const other = await loadCxc(id);
    if (other === undefined)
      return failure(
        `${parsed.source} is not a conversation in this machine's cxc store, so its turns cannot be read here; use a reference without the "cxc …" prefix for this session's own history`,
      );
    return runRecall(other, call, settings);
  }
  if ((call.query ?? "").trim() === "") return runRecall(own, call, settings);
  const others: RecallAnalysis[] = [];
  for (const id of indexSources(own.events)) {
    const other = await loadCxc(id);
    if (other !== undefined) others.push(other);
  }
  return runRecall([own, ...others], call, settings);
}

function failure(message: string): ToolOutcome {
  return { content: `recall: ${message}`, isError: true };
}

/**
 * The loop of `findRecallMatches`, as the worker runs it: a pattern of the model's may backtrack
 * for ever, and a worker can be ended where a regular expression cannot be interrupted.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { texts, source, flags, maxMatches, maxPerUnit } = workerData;
const pattern = new RegExp(source, flags);
const matches = [];
let total = 0;
for (let unit = 0; unit < texts.length; unit++) {
  const text = texts[unit];
  pattern.lastIndex = 0;
  let inUnit = 0;
  for (;;) {
    const found = pattern.exec(text);
    if (found === null) break;
    if (found[0].length === 0) { pattern.lastIndex += 1; continue; }
    total += 1;
    if (inUnit < maxPerUnit && matches.length < maxMatches)
      matches.push({ unit, start: found.index, end: found.index + found[0].length });
    inUnit += 1;
  }
}
parentPort.postMessage({ matches, total });
`;

/** The matches of `pattern` over `texts`, found in a worker ended after `limitMs`. */
export function matchInWorker(
  texts: readonly string[],
  pattern: RegExp,
  limitMs: number,
): Promise<{ matches: RecallMatch[]; total: number } | "timeout"> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { texts, source: pattern.source, flags: pattern.flags, maxMatches: 200, maxPerUnit: 3 },
    });
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => resolve("timeout")), limitMs);
    worker.once("message", (message: { matches: RecallMatch[]; total: number }) =>
      settle(() => resolve(message)),
    );
    worker.once("error", (error) => settle(() => reject(error)));
    worker.once("exit", (code) => settle(() => reject(new Error(`the search stopped (exit code ${code})`))));
  });
}

/**
 * Where the tool reads when it is not the call's own conversation (an agent's session): the
 * analysis to recall from.
 */
export type RecallSource = (context: ToolCallContext) => Promise<RecallAnalysis> | RecallAnalysis;

/**
 * Builds the tool with the given settings, over the call's own conversation (`cxc q`: the events of
 * its context) or over `source`.
 */
export function createRecallTool(settings: RecallSettings, source?: RecallSource): Tool<RecallCall> {
  return builtinTool({
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    arguments: RECALL_ARGUMENTS,
    // Read-only: never asks. Offered by `conversation.recall.enabled`, not by `conversation.tools`.
    defaults: { enable: true, run: "unattended" },
    // The arguments arrive checked (tool.ts, `checkArguments`).
    async run(call, context): Promise<ToolOutcome> {
      const analysis =
        source === undefined ? analyzeRecall(context.events, recallOptions(settings)) : await source(context);
      return runRecall(analysis, call, settings);
    },
  });
}
