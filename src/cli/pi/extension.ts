/**
 * cxc's compaction advisor as a pi extension (dist/pi/extension.js; `package.json` declares it
 * as a pi package, so `pi install npm:cxc`, `pi install <cxc checkout>` and `pi -e <checkout>`
 * load it). It is cxc's advisor (src/compaction/advisor.ts) over the pi session converted as
 * `cxc conversation import` converts one, with pi's own count of the context and pi's own model
 * API; docs/inside-agents.md describes it for users.
 *
 * - `turn_end`: at or above the notice line, the four questions and the tier in code; an
 *   announced tier is a notification, and at recommend and above, while the agent loop goes on,
 *   a message steered into the loop tells the agent to call `compact_now`. Silent mid-operation
 *   (the tier table), never the same tier twice in a row (remembered in the session as a
 *   `cxc-advisor` custom entry), at most one advice per prompt.
 * - `compact_now(note)` schedules; at `agent_end` the extension calls pi's `ctx.compact` with the
 *   note as the summarizer's focus. `should_i_compact` returns the verdict.
 * - `session_before_compact`: the advisor's cut point moves pi's `firstKeptEntryId` earlier onto
 *   the turn where the live work starts, or, inside pi's split turn, onto the assistant message
 *   that opens the live cycle (only ever earlier; `cut_point = false` turns it off).
 *   It never changes how the summary is written: pi writes it, as always (pi stays the owner of
 *   its summarizer, its cut algorithm and its file lists; docs/inside-agents.md).
 * - `session_compact`: the facts of the raw turns pi's summary replaced (the user's binding
 *   sentences verbatim, the files read and modified that the summary does not name) follow pi's
 *   compaction as a `cxc-facts` message in the session, which pi sends to the model from then on
 *   (while pi's loop is still running, with the next prompt). `pi_facts = "summary"` keeps the
 *   form before: cxc has pi's summarizer (`compact` of pi-coding-agent) write the summary and
 *   appends the facts, and the recall index, to it; `"off"`, nothing (pi-settings.ts).
 * - `recall` (docs/recall.md): the same tool as in `cxc q`, over the pi session's own entries,
 *   registered while `conversation.recall.enabled` holds, whatever the advisor's settings; the
 *   message after pi's compaction (with `pi_facts = "summary"`, the summary) carries the recall
 *   index.
 * - Settings are cxc's (`conversation.compaction.advisor`, `CXC_ADVISOR_*`) and the package's own
 *   `AE_PI_COMPACT_ADVISOR_*` variables; disabled, the extension registers nothing but `recall`. A notice line
 *   below pi's `keepRecentTokens` is warned about when the session starts. The decision
 *   model is pi's current model unless `advisor.model` names another of pi's (`provider/id`).
 *   A failure warns once, then the advisor keeps quiet; a hook never costs the user a turn.
 */
import { complete } from "@mariozechner/pi-ai";
import { compact as piCompact } from "@mariozechner/pi-coding-agent";
import {
  type AdvisorState,
  cutPointCandidates,
  moveCutEarlier,
  type PlannedRange,
  readAdvisorSettings,
  withPackageVariables,
} from "../../compaction/core/advisor/advisor.js";
import type { ConfigTable } from "../../core/config.js";
import { describeLiveFrom, liveFromPick, quoteRequest } from "../../compaction/core/advisor/hook-advice.js";
import type { LlmClient } from "../../llm/types.js";
import { type Advisor, createAdvisor } from "../../compaction/advisor.js";
import { createCompactNowTool } from "../../tools/compact-now.js";
import { createShouldICompactTool } from "../../tools/should-i-compact.js";
import {
  createRecallTool,
  DEFAULT_RECALL_SETTINGS,
  type RecallSettings,
  readRecallSettings,
  recallOptions,
  runRecallWithSources,
} from "../../tools/recall.js";
import {
  agentCompactionIndex,
  analyzeRecall,
  indexWithLargestCalls,
} from "../../core/conversation/recall.js";
import type { Tool, ToolCallContext } from "../../tools/tool.js";
import { dropsEarlierReasoning } from "../../llm/models.js";
import { loadPlainTokenCounter, openFileStore } from "../../store/index.js";
import { loadConfig } from "../config.js";
import { createPiDecisionClient } from "./decision-client.js";
import type { PiContext, PiEntry, PiExtensionApi, PiModel, PiTool } from "./pi-api.js";
import { noticeBelowKeepRecent, piKeepRecentTokens, readPiFactsMode } from "./pi-settings.js";
import { type PiSessionView, piSessionView, turnOfEntry } from "./session-events.js";
import { factsAddition } from "./summary-addition.js";

/** The custom entry type that keeps the advisor's record in the session. */
export const STATE_ENTRY = "cxc-advisor";
/** The custom message type of the advisor's steering messages. */
const STEER_TYPE = "cxc-advisor";
/** The custom message type of the facts that follow pi's compaction. */
export const FACTS_TYPE = "cxc-facts";

function readConfig(): { values: ConfigTable; problem?: string } {
  try {
    return { values: loadConfig({ cwd: process.cwd(), env: process.env }).values };
  } catch (error) {
    return { values: {}, problem: (error as Error).message };
  }
}

/** The last advisor record the branch holds. */
function storedState(branch: readonly PiEntry[]): AdvisorState {
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index]!;
    if (entry.type === "custom" && entry.customType === STATE_ENTRY && typeof entry.data === "object") {
      return (entry.data ?? {}) as AdvisorState;
    }
  }
  return {};
}

/** The position in `session.turns` of cxc turn `turn` (-1: none). */
function turnPosition(session: PiSessionView, turn: number): number {
  return session.turns.findIndex((item) => item.index === turn);
}

/**
 * The ids of the assistant messages of cxc turn `turn` in pi's branch, in order: entry `c` is the
 * answer that opens cxc's cycle `c` of that turn (failed and aborted replies are no cycle, as the
 * conversion leaves them out).
 */
function assistantEntries(session: PiSessionView, branch: readonly PiEntry[], turn: number): string[] {
  const position = turnPosition(session, turn);
  const start = branch.findIndex((entry) => entry.id === session.turnEntries[position]);
  if (position < 0 || start < 0) return [];
  const next = session.turnEntries[position + 1];
  const ids: string[] = [];
  for (let index = start; index < branch.length && branch[index]!.id !== next; index++) {
    const message = branch[index]!.message as { role?: unknown; stopReason?: unknown } | undefined;
    if (branch[index]!.type !== "message" || message?.role !== "assistant") continue;
    if (message.stopReason === "error" || message.stopReason === "aborted") continue;
    ids.push(branch[index]!.id);
  }
  return ids;
}

/** How many entries pi turns into messages lie from entry `from` up to (not including) entry `to`. */
function messagesBetween(branch: readonly PiEntry[], from: string | undefined, to: string): number {
  const start = branch.findIndex((entry) => entry.id === from);
  const end = branch.findIndex((entry) => entry.id === to);
  let count = 0;
  for (let index = Math.max(0, start); index < end; index++) {
    const type = branch[index]!.type;
    if (type === "message" || type === "custom_message" || type === "branch_summary") count += 1;
  }
  return count;
}

/** Whether pi's current model's provider drops earlier turns' reasoning (by pi's `api`). */
function piDropsEarlierReasoning(model: PiModel | undefined): boolean {
  if (model === undefined) return true;
  if (model.api === "anthropic-messages") return dropsEarlierReasoning(model.id, "anthropic");
  if (model.api.startsWith("google")) return dropsEarlierReasoning(model.id, "google");
  return dropsEarlierReasoning(model.id, model.api === "openai-responses" ? "responses" : "chat");
}

/**
 * An upper bound of the context of the next request that costs no conversion: the last usage pi
 * recorded (input, cache reads and writes, output) and the entries after it at a token a byte on
 * the largest scale cxc accepts; without usage, every entry so.
 */
export function piContextBound(branch: readonly PiEntry[]): number {
  let added = 0;
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index]!;
    const message = entry.message as { role?: unknown; usage?: Record<string, unknown> } | undefined;
    const usage = entry.type === "message" && message?.role === "assistant" ? message.usage : undefined;
    if (usage !== undefined) {
      const count = (value: unknown) => (typeof value === "number" && value > 0 ? value : 0);
      const reported =
        count(usage.input) + count(usage.output) + count(usage.cacheRead) + count(usage.cacheWrite);
      if (reported > 0) return reported + Math.ceil(added * 2.5);
    }
    added += Buffer.byteLength(JSON.stringify(entry), "utf8");
  }
  return added;
}

/**
 * The `recall` tool over the pi session's own entries (docs/recall.md): pi keeps the entries
 * before its compaction in the session file, on the branch, so what pi's summary replaced is read
 * back verbatim, converted as `cxc conversation import` converts a pi session. Registered while
 * `conversation.recall.enabled` holds (the default), whatever the advisor's settings, from the
 * session's first turn, so pi's compaction never changes the tool list. A failure the model can
 * act on is thrown, which marks pi's tool result an error.
 */
function registerRecall(pi: PiExtensionApi, config: ConfigTable): RecallSettings | undefined {
  let settings: RecallSettings;
  try {
    settings = readRecallSettings(config);
  } catch {
    settings = DEFAULT_RECALL_SETTINGS;
  }
  if (!settings.enabled) return undefined;
  const tool = createRecallTool(settings);
  pi.registerTool({
    name: tool.name,
    label: "Recall",
    description: tool.description,
    parameters: tool.arguments.schema,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const checked = await tool.arguments.check(params);
      if (!checked.ok) throw new Error(`recall: ${checked.message}`);
      const session = piSessionView(ctx.sessionManager.getHeader(), ctx.sessionManager.getBranch());
      const own = analyzeRecall(session.events, recallOptions(settings));
      // A session exported from cxc names its conversation: read-only, from cxc's store.
      const outcome = await runRecallWithSources(own, checked.value, settings, async (id) => {
        try {
          const store = await openFileStore(ctx.cwd, process.env);
          return analyzeRecall(store.load(id).events, recallOptions(settings, `cxc ${id}`));
        } catch {
          return undefined;
        }
      });
      if (outcome.isError) throw new Error(outcome.content);
      return {
        content: [{ type: "text", text: outcome.content }],
        details: { characters: outcome.content.length },
      };
    },
  });
  return settings;
}

/** The recall index of a pi session's branch as it stands (after pi's compaction), or undefined. */
export function piRecallIndex(events: PiSessionView["events"], settings: RecallSettings): string | undefined {
  return indexWithLargestCalls(analyzeRecall(events, recallOptions(settings)));
}

/** The pi extension; see the module comment. */
export default function cxcCompactionAdvisor(pi: PiExtensionApi): void {
  const env = withPackageVariables(process.env);
  const config = readConfig();
  const recall = registerRecall(pi, config.values);
  const { settings, warnings } = readAdvisorSettings(config.values, env);
  if (!settings.enabled) return;
  const facts = readPiFactsMode(config.values, env);
  const startupNotes = [
    ...(config.problem === undefined ? [] : [`${config.problem}; using the defaults`]),
    ...warnings,
    ...(facts.warning === undefined ? [] : [facts.warning]),
  ];
  let state: AdvisorState = {};
  let saidUnavailable = false;
  let advisedThisPrompt = false;
  let scheduledNote: string | undefined;
  let wroteSummary = false;

  const notify = (ctx: PiContext, text: string, type: "info" | "warning" = "info"): void => {
    ctx.ui.notify(`cxc ${text}`, type);
  };
  const stateStore = {
    load: () => state,
    save: (next: AdvisorState): void => {
      const changed =
        next.last_announced !== state.last_announced ||
        next.warned !== state.warned ||
        next.compactions_seen !== state.compactions_seen;
      state = next;
      // Only what must survive a restart; the decision calls' usage stays in memory.
      if (changed)
        pi.appendEntry(STATE_ENTRY, {
          last_announced: next.last_announced,
          warned: next.warned,
          compactions_seen: next.compactions_seen,
        });
    },
  };

  const decisionModel = (ctx: PiContext): PiModel | undefined => {
    if (settings.model === undefined) return ctx.model;
    const slash = settings.model.indexOf("/");
    return slash <= 0
      ? undefined
      : ctx.modelRegistry.find(settings.model.slice(0, slash), settings.model.slice(slash + 1));
  };

  const advisorFor = async (ctx: PiContext): Promise<Advisor> => {
    const model = decisionModel(ctx);
    let client: LlmClient | undefined;
    let unavailable: string | undefined;
    if (model === undefined) {
      unavailable =
        settings.model === undefined
          ? "pi has no model selected"
          : `${settings.model} is not one of pi's models`;
    } else {
      const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
      if (auth.ok) client = createPiDecisionClient(complete, model, auth);
      else unavailable = `pi has no key for ${model.provider}/${model.id} (${auth.error})`;
    }
    const usage = ctx.getContextUsage();
    const told = saidUnavailable;
    if (unavailable !== undefined) saidUnavailable = true;
    return createAdvisor({
      settings,
      decisionClient: client,
      ...(unavailable === undefined || told ? {} : { decisionUnavailable: unavailable }),
      contextWindow: usage?.contextWindow ?? ctx.model?.contextWindow,
      // The context of the next request from the usage pi recorded in the session
      // (compaction/core/advisor/next-request.ts), counted as `cxc conversation stats` counts it.
      countTokens: await loadPlainTokenCounter(),
      requests: { dropsEarlierReasoning: piDropsEarlierReasoning(ctx.model) },
      clock: { now: () => new Date().toISOString(), newEventId: () => `cxc-${Date.now().toString(36)}` },
      state: stateStore,
      print: (text) => notify(ctx, text),
      hint: () => undefined,
      warn: (text) => notify(ctx, text, "warning"),
      compactNowEnabled: true,
    });
  };

  // What a newer pi wrote that cxc does not know is said once per session, then read around.
  let saidUnknown: string | undefined;
  const view = (ctx: PiContext, branch = ctx.sessionManager.getBranch()) => {
    const session = piSessionView(ctx.sessionManager.getHeader(), branch);
    if (session.unknown !== undefined && session.unknown !== saidUnknown) {
      saidUnknown = session.unknown;
      notify(ctx, `advisor: this session was ${session.unknown}; the advice reads the rest.`, "warning");
    }
    return session;
  };

  /** cxc's tool as a pi tool; a failure is thrown, which marks pi's tool result an error. */
  const asPiTool = (tool: Tool, label: string, run: (ctx: PiContext) => Promise<Tool>): PiTool => ({
    name: tool.name,
    label,
    description: tool.description,
    parameters: tool.arguments.schema,
    async execute(toolCallId, params, signal, _onUpdate, ctx) {
      const own = await run(ctx);
      // The built-in tools read only the events and the signal of their context.
      const context = {
        conversationId: "pi",
        callId: toolCallId,
        events: view(ctx).events,
        signal: signal ?? new AbortController().signal,
        cwd: ctx.cwd,
      } as unknown as ToolCallContext;
      // pi hands over the parameters as the model wrote them: checked against the tool's schema first.
      const checked = await own.arguments.check(params);
      if (!checked.ok) throw new Error(`invalid arguments: ${checked.problems.join("; ")}`);
      const outcome = await own.run(checked.value, context);
      if (outcome.isError) throw new Error(outcome.content);
      return {
        content: [{ type: "text", text: outcome.content }],
        details: JSON.parse(outcome.content) as unknown,
      };
    },
  });

  const shouldICompact = createShouldICompactTool(() => undefined);
  pi.registerTool(
    asPiTool(shouldICompact, "Should I compact?", async (ctx) => {
      const advisor = await advisorFor(ctx);
      return createShouldICompactTool(() => advisor);
    }),
  );
  const compactNow = createCompactNowTool();
  const compactNowPi = asPiTool(compactNow, "Compact now", async () => compactNow);
  pi.registerTool({
    ...compactNowPi,
    async execute(toolCallId, params, signal, onUpdate, ctx) {
      const result = await compactNowPi.execute(toolCallId, params, signal, onUpdate, ctx);
      scheduledNote = (result.details as { note: string }).note;
      return result;
    },
  });

  pi.on("session_start", (_event, ctx) => {
    state = storedState(ctx.sessionManager.getBranch());
    const below = noticeBelowKeepRecent(settings.lines.notice, piKeepRecentTokens(ctx.cwd, process.env));
    if (below !== undefined) startupNotes.push(below);
    for (const note of startupNotes.splice(0)) notify(ctx, `advisor: ${note}`, "warning");
  });

  pi.on("agent_start", () => {
    advisedThisPrompt = false;
  });

  pi.on("turn_end", async (event, ctx) => {
    if (advisedThisPrompt) return;
    // Below the notice line by a bound read off pi's entries, nothing is converted and nobody is asked.
    if (piContextBound(ctx.sessionManager.getBranch()) < settings.lines.notice) return;
    try {
      const advisor = await advisorFor(ctx);
      const before = state.last_announced;
      const steering = await advisor.adviseAtBoundary(view(ctx).events, {
        midTurn: event.toolResults.length > 0,
        signal: ctx.signal ?? new AbortController().signal,
      });
      if (state.last_announced !== before) advisedThisPrompt = true;
      for (const message of steering) {
        if (message.type !== "chat_request") continue;
        pi.sendMessage(
          { customType: STEER_TYPE, content: message.content, display: true },
          { deliverAs: "steer" },
        );
      }
    } catch (error) {
      if (!state.warned) {
        stateStore.save({ ...state, warned: true });
        notify(
          ctx,
          `advisor: ${(error as Error).message}; the advisor keeps quiet about such failures from now on.`,
          "warning",
        );
      }
    }
  });

  pi.on("agent_end", (_event, ctx) => {
    const note = scheduledNote;
    if (note === undefined) return;
    scheduledNote = undefined;
    ctx.compact({
      customInstructions: note,
      onError: (error) => notify(ctx, `compact_now: pi's compaction failed: ${error.message}`, "warning"),
    });
  });

  pi.on("session_before_compact", async (event, ctx) => {
    const { preparation, branchEntries, signal } = event;
    wroteSummary = false;
    let session: ReturnType<typeof piSessionView>;
    try {
      session = view(ctx, branchEntries);
    } catch {
      return undefined;
    }
    let keptTurn = turnOfEntry(session, branchEntries, preparation.firstKeptEntryId);
    if (settings.cutPoint && keptTurn !== undefined) {
      try {
        // pi cuts at a turn start, or inside a turn at an assistant message (its split turn).
        const answers = assistantEntries(session, branchEntries, keptTurn);
        const splitAt = preparation.isSplitTurn ? answers.indexOf(preparation.firstKeptEntryId) : -1;
        const planned: PlannedRange =
          splitAt >= 1
            ? { from: 0, to: keptTurn, toCycle: splitAt - 1 }
            : { from: 0, to: preparation.isSplitTurn ? keptTurn : keptTurn - 1 };
        const advisor = await advisorFor(ctx);
        const pick =
          planned.to < 0
            ? undefined
            : await advisor.pickLiveFrom(
                session.events,
                // The first turn's start is no cut; it is offered only when pi splits it.
                cutPointCandidates(planned, settings.maxTurns).filter(
                  (turn) => turn > planned.from || (planned.toCycle !== undefined && turn === planned.to),
                ),
                signal,
              );
        // Inside a turn cxc moves the cut only within pi's split turn, onto one of its assistant
        // messages; elsewhere onto turn starts.
        const withinSplit = pick?.cycle !== undefined && splitAt >= 1 && pick.turn === keptTurn;
        const cut = moveCutEarlier(
          planned,
          pick === undefined
            ? undefined
            : withinSplit
              ? pick
              : { turn: pick.turn, confidence: pick.confidence },
        );
        if (cut.toCycle !== undefined && cut.toCycle !== planned.toCycle) {
          const entry = answers[cut.toCycle + 1]!;
          preparation.turnPrefixMessages = preparation.turnPrefixMessages?.slice(
            0,
            messagesBetween(branchEntries, session.turnEntries[turnPosition(session, keptTurn)], entry),
          );
          preparation.firstKeptEntryId = entry;
          const from = liveFromPick(session.events, { turn: keptTurn, cycle: cut.toCycle + 1 });
          const what = from === undefined ? `turn ${keptTurn + 1}` : describeLiveFrom(from);
          notify(ctx, `advisor: the live work starts at ${what}; pi keeps it and what follows verbatim.`);
        } else if (cut.toCycle === undefined && cut.to !== planned.to) {
          const position = turnPosition(session, cut.to + 1);
          const entry = position < 0 ? undefined : session.turnEntries[position];
          if (entry !== undefined) {
            preparation.firstKeptEntryId = entry;
            preparation.isSplitTurn = false;
            keptTurn = cut.to + 1;
            const request = session.turns[position]!.events.find((item) => item.type === "chat_request");
            const quote =
              request?.type === "chat_request" ? quoteRequest(request.content) : `turn ${keptTurn + 1}`;
            notify(
              ctx,
              `advisor: the live work starts at "${quote}"; pi keeps it and what follows verbatim.`,
            );
          }
        }
      } catch {
        // A failed pick leaves pi's cut: a compaction never fails because the advisor could not be asked.
      }
    }
    // pi writes its summary itself unless the facts' form is the one inside it.
    if (facts.mode !== "summary") return undefined;
    const model = ctx.model;
    if (model === undefined) return undefined;
    try {
      const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
      if (!auth.ok || auth.apiKey === undefined) return undefined;
      const result = await piCompact(
        preparation,
        model,
        auth.apiKey,
        auth.headers,
        event.customInstructions,
        signal,
        pi.getThinkingLevel(),
      );
      const range = { from: 0, to: (keptTurn ?? session.turns.length) - 1 };
      const addition =
        range.to < 0 ? undefined : factsAddition(session.turns, range, result.summary, ctx.cwd);
      // The recall index of the turns this summary replaces (as pi's session will hold them once
      // the compaction is in it), after the facts: in this form the summary carries what cxc adds.
      const index =
        recall === undefined || range.to < 0
          ? undefined
          : agentCompactionIndex(session.events, { ...recallOptions(recall), to: range.to });
      wroteSummary = true;
      return {
        compaction: {
          ...result,
          summary: `${result.summary}${addition ?? ""}${index === undefined ? "" : `\n\n${index}`}`,
        },
      };
    } catch {
      // pi compacts on its own (and the facts are shown after it).
      return undefined;
    }
  });

  pi.on("session_compact", (event, ctx) => {
    const entry = event.compactionEntry;
    // A summary cxc had pi write holds the facts already (pi_facts = summary): nothing follows it.
    if (wroteSummary || typeof entry?.summary !== "string") return;
    const withFacts = facts.mode !== "off";
    if (!withFacts && recall === undefined) return;
    try {
      const branch = ctx.sessionManager.getBranch();
      const session = view(ctx, branch);
      const kept = turnOfEntry(session, branch, entry.firstKeptEntryId);
      const to = (kept ?? session.turns.length) - 1;
      const facts_ =
        to < 0 || !withFacts
          ? undefined
          : factsAddition(session.turns, { from: 0, to }, entry.summary, ctx.cwd);
      // The recall index of what pi's summary replaced, for the recall tool (docs/recall.md).
      const index = recall === undefined ? undefined : piRecallIndex(session.events, recall);
      const addition =
        facts_ === undefined && index === undefined
          ? undefined
          : [facts_?.trim(), index].filter((part) => part !== undefined && part !== "").join("\n\n");
      if (addition === undefined || addition === "") return;
      if (withFacts && facts.mode === "summary") {
        // cxc could not have pi's summarizer write the summary: the facts are only shown.
        notify(ctx, addition.trim());
        return;
      }
      // Verbatim, right after pi's compaction entry; while pi's loop still runs (a compaction at
      // the end of a prompt), with the next prompt, so no turn is started for it.
      pi.sendMessage(
        { customType: FACTS_TYPE, content: addition.trim(), display: true },
        (ctx.isIdle?.() ?? true) ? {} : { deliverAs: "nextTurn" },
      );
    } catch {
      // Only an addition; pi's compaction stands.
    }
  });
}
