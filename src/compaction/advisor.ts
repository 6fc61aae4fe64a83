/**
 * The compaction advisor's shell side: it measures the projected context, asks the decision model
 * its four typed questions (a forced tool call, validated with zod, under a timeout), maps the
 * answers to a tier with the pure rules of compaction/core/advisor/advisor.ts, prints one stderr line with the live
 * count and the reason, and at recommend and request steers a message into the running loop
 * telling the agent to call `compact_now` (when that tool is enabled).
 *
 * Failures at the end of a cycle or turn are swallowed: the first one warns once per
 * conversation (remembered in its metadata), later ones are silent, because an advisor must never
 * cost the user a turn. A failed decision call gives no advice at all: a tier from the token
 * counts alone could tell the user to drop half-done work. Only when no decision model can be had
 * at all (none configured or buildable) does the advisor report the token lines, say so in the
 * line, and never steer the agent. The `should_i_compact` tool uses `verdict`, whose failures are
 * thrown (tool errors).
 */
import {
  ADVISOR_QUESTIONS_TOOL,
  type AdvisorSettings,
  type AdvisorState,
  type AdvisorSignals,
  type AnnouncementState,
  decideAnnouncement,
  decideTier,
  describeLiveCount,
  LIVE_FROM_TOOL,
  type LiveFromPick,
  addDecisionUsage,
  parseAdvisorAnswers,
  renderAdvice,
  renderAdviceHint,
  renderSteeringMessage,
  type TierDecision,
  type TokenLines,
  type Verdict,
} from "./core/advisor/advisor.js";
import { type CompactionCost, describeCostBriefly } from "./core/advisor/cache-cost.js";
import { boundContextOfNextRequest, contextOfNextRequest } from "./core/advisor/next-request.js";
import { activeCompactions } from "../core/conversation/compactions.js";
import { layoutCycles } from "../core/conversation/cycles.js";
import {
  ADVISOR_AUTHOR,
  type ChatRequest,
  type ConversationEvent,
  isTurnEvent,
  type TurnEvent,
} from "../core/conversation/events.js";
import {
  type ProjectedTurn,
  type ProjectedView,
  projectConversation,
} from "../core/conversation/projection.js";
import type { LlmRequest, ToolDefinition } from "../core/conversation/request.js";
import { formatTokenCount, type TokenCounter } from "../core/conversation/tokens.js";
import type { LlmClient } from "../llm/types.js";
import { overheadCounter, type RequestOverhead } from "./context-window.js";

export type { AdvisorState, Verdict } from "./core/advisor/advisor.js";

/** Ids and time for the events the advisor stores (a steering message); the turn loop's clock. */
export interface AdvisorClock {
  now(): string;
  newEventId(): string;
}

/** Where the state lives; the caller holds the conversation's lock. */
export interface AdvisorStateStore {
  load(): AdvisorState;
  save(state: AdvisorState): void;
}

/** Inputs of `createAdvisor`. */
export interface AdvisorOptions {
  readonly settings: AdvisorSettings;
  /** The decision model's client, or undefined when none could be built (token lines only). */
  readonly decisionClient: LlmClient | undefined;
  /** Why there is no decision client, said once when the advisor first speaks. */
  readonly decisionUnavailable?: string;
  readonly contextWindow: number | undefined;
  readonly countTokens: TokenCounter;
  /**
   * An upper bound of a text's count that costs nothing: its cached count, else its size in UTF-8
   * bytes (every o200k token stands for at least one byte). Without one, the byte size alone.
   */
  readonly boundTokens?: TokenCounter;
  /**
   * What the advisor knows of the requests (compaction/core/advisor/next-request.ts): the system prompt and
   * tool definitions cxc sends (absent inside an agent, whose own are in its reported usage), and
   * whether the provider drops earlier turns' reasoning.
   */
  readonly requests?: {
    readonly overhead?: RequestOverhead;
    readonly dropsEarlierReasoning?: boolean;
  };
  readonly clock: AdvisorClock;
  readonly state: AdvisorStateStore;
  /** One line of advice on stderr. */
  readonly print: (text: string) => void;
  /** The hint under a piece of advice (a `hint:` line on stderr). */
  readonly hint: (text: string) => void;
  /** One warning on stderr (the first swallowed failure of a conversation). */
  readonly warn: (text: string) => void;
  /** Called after an announced tier was printed (`cxc q` says its one-time notice then). */
  readonly onAdvice?: () => void;
  /** Whether the agent can call `compact_now` this turn (steering names it only then). */
  readonly compactNowEnabled: boolean;
  /** The conversation advised, for the command the advice names. */
  readonly conversationId?: string;
  /**
   * What compacting now would cost with the prompt cache (the automatic plan, its summary
   * estimated by the digest; cache-cost.ts): said with recommend and request advice. Absent, or
   * undefined when there is nothing to compact: not said.
   */
  readonly costOfCompacting?: (events: readonly ConversationEvent[]) => CompactionCost | undefined;
}

/** The projected context as the advisor sees it. */
export interface ContextMeasure {
  /** The context of the next request (compaction/core/advisor/next-request.ts). */
  readonly tokens: number;
  /**
   * What a compaction could cover now: turns before the current one that are not summaries, and
   * the cycles of the current turn before its last (one long turn is compactable).
   */
  readonly compactable: number;
  readonly turns: readonly ProjectedTurn[];
}

/** Where the next request stands: between cycles of the turn in progress, or at the next turn. */
export type NextRequest = "same-turn" | "next-turn";

const DECISION_SYSTEM = [
  "You judge the state of the work in a conversation between a user and an AI assistant.",
  "You are never asked what to do, only questions about the work; answer each with a number from 0 to 1",
  "by calling the tool you are given. The transcript is abridged; turns are labelled [turn N].",
].join("\n");

const TRANSCRIPT_TURNS = 12;
const TRANSCRIPT_PART_CHARACTERS = 600;
const TRANSCRIPT_CHARACTERS = 24_000;

/** A text's size in UTF-8 bytes: an upper bound of its o200k token count. */
export function utf8ByteBound(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Compactable turns and cycles of a projected view (see `ContextMeasure.compactable`). */
export function compactableUnits(view: ProjectedView): number {
  const turns = view.turns;
  if (turns.length === 0) return 0;
  const earlier = turns.slice(0, -1).filter((turn) => turn.origin.kind === "kept").length;
  const current = turns[turns.length - 1]!;
  if (current.origin.kind !== "kept") return earlier;
  const cycles = layoutCycles(current.events).cycleCounts[0] ?? 0;
  return earlier + Math.max(0, cycles - 1);
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= TRANSCRIPT_PART_CHARACTERS ? flat : `${flat.slice(0, TRANSCRIPT_PART_CHARACTERS)}…`;
}

function renderEvent(event: TurnEvent): string | undefined {
  switch (event.type) {
    case "chat_request":
      return `user: ${clip(event.content)}`;
    case "chat_response":
      if (event.reasoning !== undefined) return undefined;
      return `assistant: ${clip(event.message ?? JSON.stringify(event.data ?? null))}`;
    case "tool_call_request":
      return `assistant calls ${event.name}(${clip(JSON.stringify(event.arguments))})`;
    case "tool_call_response":
      return `${event.is_error ? "tool error" : "tool result"}: ${clip(event.content)}`;
    default:
      return undefined;
  }
}

/**
 * An abridged transcript of the last turns, labelled with raw 1-based turn numbers. With
 * `cycleOf` (the raw cycle of each event, by id), every cycle after the first of a turn is
 * labelled too (`[turn 4, cycle 2]`), so a cut point can name one.
 */
export function renderDecisionTranscript(
  turns: readonly ProjectedTurn[],
  cycleOf?: ReadonlyMap<string, number>,
): string {
  const blocks = turns.slice(-TRANSCRIPT_TURNS).map((turn) => {
    const label =
      turn.origin.kind === "kept"
        ? `[turn ${turn.origin.turn + 1}]`
        : `[summary of turns ${turn.origin.from + 1}..${turn.origin.to + 1}]`;
    const lines: string[] = [];
    let cycle = 0;
    for (const event of turn.events) {
      const at = cycleOf?.get(event.id);
      if (turn.origin.kind === "kept" && at !== undefined && at > cycle) {
        cycle = at;
        lines.push(`[turn ${turn.origin.turn + 1}, cycle ${at + 1}]`);
      }
      const line = renderEvent(event);
      if (line !== undefined) lines.push(line);
    }
    return [label, ...lines].join("\n");
  });
  const text = blocks.join("\n\n");
  return text.length <= TRANSCRIPT_CHARACTERS ? text : `…${text.slice(text.length - TRANSCRIPT_CHARACTERS)}`;
}

function decisionRequest(transcript: string, question: string, tool: ToolDefinition): LlmRequest {
  const { name, description, parameters } = tool;
  return {
    system: DECISION_SYSTEM,
    messages: [{ role: "user", parts: [{ type: "text", text: `${transcript}\n\n${question}` }] }],
    tools: [{ name, description, parameters }],
    toolChoice: { type: "tool", name: tool.name },
    // Room for a reasoning model to think before it calls the tool.
    maxOutputTokens: 4096,
  };
}

/** Streams one forced tool call and returns its arguments; throws on failure or timeout. */
export async function callDecisionTool(
  client: LlmClient,
  request: LlmRequest,
  options: {
    timeoutMs: number;
    signal?: AbortSignal;
    /** The tokens the provider reported for the call, once it answered. */
    onUsage?: (usage: { inputTokens: number; outputTokens: number }) => void;
  },
): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`the decision model did not answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
  });
  const read = async (): Promise<Record<string, unknown>> => {
    const name = request.toolChoice?.type === "tool" ? request.toolChoice.name : "";
    let answer: Record<string, unknown> | undefined;
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    // Read to the end, so the usage the provider reports last is counted (`cxc conversation stats`).
    for await (const event of client.stream(request, { signal: controller.signal })) {
      if (event.type === "tool-call" && event.name === name) answer ??= event.arguments;
      else if (event.type === "usage" || event.type === "message-end") usage = event.usage;
      else if (event.type === "error") {
        if (answer !== undefined) break;
        throw new Error(`the decision model failed: ${event.error.message}`);
      }
      if (event.type === "message-end") break;
    }
    if (usage !== undefined) options.onUsage?.(usage);
    if (answer === undefined) throw new Error(`the decision model did not call ${name}`);
    return answer;
  };
  try {
    const reading = read();
    // After a timeout the aborted stream still settles; its rejection has nobody left to hear it.
    reading.catch(() => undefined);
    return await Promise.race([reading, timeout]);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    controller.abort();
  }
}

const QUESTIONS_PROMPT = "Answer the four questions about the latest request and the work before it.";

/**
 * The four questions about the last turns of `turns`, in one forced call of `client`; the answers
 * checked. Throws when the call fails or the answers are not four numbers from 0 to 1.
 */
export async function askAdvisorQuestions(
  client: LlmClient,
  turns: readonly ProjectedTurn[],
  options: Parameters<typeof callDecisionTool>[2],
): Promise<AdvisorSignals> {
  const request = decisionRequest(renderDecisionTranscript(turns), QUESTIONS_PROMPT, ADVISOR_QUESTIONS_TOOL);
  const parsed = parseAdvisorAnswers(await callDecisionTool(client, request, options));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.signals;
}

/** `should_i_compact`'s verdict of a tier decided at `tokens` (`window`: for the percent). */
export function toVerdict(
  decision: TierDecision,
  tokens: number,
  lines: TokenLines,
  window: number | undefined,
  signals: AdvisorSignals | undefined,
): Verdict {
  const should = decision.tier === "recommend" || decision.tier === "request";
  return {
    should_compact: should,
    tier: decision.tier,
    reason: decision.reason,
    context_tokens: tokens,
    ...(window === undefined ? {} : { context_percent: Math.round((tokens / window) * 1000) / 10 }),
    lines,
    ...(signals === undefined ? {} : { signals }),
    next_step: should
      ? "Call compact_now with a short note to yourself, then continue the current request."
      : "No compaction needed now; continue the current request.",
  };
}

/** The advisor of one `cxc q` run. */
export interface Advisor {
  readonly settings: AdvisorSettings;
  readonly contextWindow: number | undefined;
  /** The context of the next request and what could be compacted (`next` default: the next turn). */
  measure(events: readonly ConversationEvent[], next?: NextRequest): ContextMeasure;
  /** At the end of a cycle or turn: maybe one stderr line; at recommend/request mid-turn, a steering message to store. */
  adviseAtBoundary(
    events: readonly ConversationEvent[],
    options: { midTurn: boolean; signal: AbortSignal },
  ): Promise<ConversationEvent[]>;
  /** The `should_i_compact` verdict; throws when the decision model fails. */
  verdict(events: readonly ConversationEvent[], signal: AbortSignal): Promise<Verdict>;
  /** Where the live work starts among `candidates` (0-based turns); undefined when unsure or failing. */
  pickLiveFrom(
    events: readonly ConversationEvent[],
    candidates: readonly number[],
    signal: AbortSignal,
  ): Promise<LiveFromPick | undefined>;
  /** Forgets the last announced tier (after a compaction). */
  clearAnnouncements(): void;
  /** Reports a swallowed failure: the first per conversation warns, later ones are silent. */
  reportFailure(message: string): void;
}

/** The advisor of one run; see the module comment and the `Advisor` interface. */
class AdvisorRuntime implements Advisor {
  readonly settings: AdvisorSettings;
  readonly contextWindow: number | undefined;
  readonly #options: AdvisorOptions;
  #saidUnavailable = false;
  #overheadCount: (() => number | undefined) | undefined;
  /** The answers `should_i_compact` just got: the boundary that ends its cycle reuses them. */
  #answered: AdvisorSignals | undefined;

  constructor(options: AdvisorOptions) {
    this.#options = options;
    this.settings = options.settings;
    this.contextWindow = options.contextWindow;
  }

  measure(events: readonly ConversationEvent[], next: NextRequest = "next-turn"): ContextMeasure {
    const view = projectConversation(events);
    return { tokens: this.#figure(events, next), compactable: compactableUnits(view), turns: view.turns };
  }

  /** The context of the next request (compaction/core/advisor/next-request.ts), with this run's counter. */
  #figure(events: readonly ConversationEvent[], next: NextRequest): number {
    const requests = this.#options.requests;
    return contextOfNextRequest(events, {
      countTokens: this.#options.countTokens,
      overhead: this.#overhead,
      next,
      ...(requests?.dropsEarlierReasoning === undefined
        ? {}
        : { dropsEarlierReasoning: requests.dropsEarlierReasoning }),
    }).tokens;
  }

  get #overhead(): () => number | undefined {
    this.#overheadCount ??= overheadCounter(this.#options.requests?.overhead, this.#options.countTokens);
    return this.#overheadCount;
  }

  async adviseAtBoundary(
    events: readonly ConversationEvent[],
    { midTurn, signal }: { midTurn: boolean; signal: AbortSignal },
  ): Promise<ConversationEvent[]> {
    // Every o200k token stands for at least one byte of UTF-8, so counting each text the model sees
    // as its cached count, or else as its size in bytes, bounds the token count from above: below
    // the notice line by that bound, it is below it in tokens, and neither the tokenizer nor the
    // decision model is needed. With counts cached from earlier turns, only the newest texts are
    // estimated, so a conversation that stays below the line never loads the tokenizer again.
    // A fresh function per measure: core memoizes counts per counter, and this bound tightens as
    // counts get cached.
    const boundTokens = this.#options.boundTokens ?? utf8ByteBound;
    const next: NextRequest = midTurn ? "same-turn" : "next-turn";
    const requests = this.#options.requests;
    const bound = boundContextOfNextRequest(events, (text) => boundTokens(text), {
      next,
      ...(requests?.overhead === undefined
        ? {}
        : { overheadTokens: overheadCounter(requests.overhead, (text) => boundTokens(text))() ?? 0 }),
      ...(requests?.dropsEarlierReasoning === undefined
        ? {}
        : { dropsEarlierReasoning: requests.dropsEarlierReasoning }),
    });
    if (bound < this.settings.lines.notice) return this.#belowNotice();
    const measure = this.measure(events, next);
    // Below the notice line the tier is silent whatever the answers: asking would be pure spend.
    if (measure.tokens < this.settings.lines.notice) return this.#belowNotice();
    if (measure.compactable === 0) return [];
    let signals: AdvisorSignals | undefined = this.#answered;
    this.#answered = undefined;
    if (signals !== undefined) {
      // Asked moments ago in this cycle (should_i_compact): the same four questions again would
      // cost a call for the same answers.
    } else if (this.#options.decisionClient === undefined) {
      this.#sayUnavailable();
    } else {
      try {
        signals = await this.#askSignals(measure, signal);
      } catch (error) {
        // Swallowed (warned once) and silent: without the answers there is no tier to give.
        this.reportFailure((error as Error).message);
        return [];
      }
    }
    const decision = this.#decide(measure, signals);
    // Steering the agent on token counts alone could interrupt half-done work: only with answers.
    return this.#announce(decision, measure.tokens, midTurn && signals !== undefined, events);
  }

  async verdict(events: readonly ConversationEvent[], signal: AbortSignal): Promise<Verdict> {
    // Asked by the assistant during its turn: the next request continues it.
    const measure = this.measure(events, "same-turn");
    const signals = measure.compactable === 0 ? undefined : await this.#askSignals(measure, signal);
    this.#answered = signals;
    return toVerdict(
      this.#decide(measure, signals),
      measure.tokens,
      this.settings.lines,
      this.contextWindow,
      signals,
    );
  }

  async pickLiveFrom(
    events: readonly ConversationEvent[],
    candidates: readonly number[],
    signal: AbortSignal,
  ): Promise<LiveFromPick | undefined> {
    const client = this.#options.decisionClient;
    // Only turns the conversation has are offered (pi's cut inside its last turn once asked
    // about "turn 5" of 4).
    const layout = layoutCycles(events);
    const turns = candidates.filter((turn) => turn >= 0 && turn < layout.cycleCounts.length);
    if (!this.settings.cutPoint || client === undefined || turns.length === 0) return undefined;
    // One turn offered is a choice only among its cycles.
    if (turns.length === 1 && (layout.cycleCounts[turns[0]!] ?? 0) < 2) return undefined;
    try {
      const offered = turns.map((turn) => turn + 1).join(", ");
      const cycleOf = new Map<string, number>();
      events.forEach((event, position) => {
        if (isTurnEvent(event) && layout.cycles[position]! > 0)
          cycleOf.set(event.id, layout.cycles[position]!);
      });
      const request = decisionRequest(
        renderDecisionTranscript(projectConversation(events).turns, cycleOf),
        `Which of turns ${offered} starts the work that is still live (unfinished, or needed verbatim next)? ` +
          "If it starts partway through a turn, give that cycle too.",
        LIVE_FROM_TOOL,
      );
      const answers = await callDecisionTool(client, request, this.#callOptions(signal));
      const checked = LIVE_FROM_TOOL.check(answers);
      if (!checked.ok) return undefined;
      const answer = checked.value;
      const turn = answer.live_from_turn - 1;
      if (!turns.includes(turn)) return undefined;
      const cycle = answer.live_from_cycle == null ? undefined : answer.live_from_cycle - 1;
      // A cycle the turn does not have is a guess: the turn alone is taken.
      const known = cycle !== undefined && cycle < (layout.cycleCounts[turn] ?? 0);
      return { turn, ...(known ? { cycle } : {}), confidence: answer.confidence };
    } catch {
      // A failed pick leaves the planned cut: a compaction never fails because the advisor could not be asked.
      return undefined;
    }
  }

  /** Below the notice line: silent, and the next crossing of a line is news again. */
  #belowNotice(): ConversationEvent[] {
    this.clearAnnouncements();
    return [];
  }

  clearAnnouncements(): void {
    const state = this.#options.state.load();
    if (state.last_announced === undefined) return;
    const { last_announced: _dropped, ...rest } = state;
    this.#options.state.save(rest);
  }

  reportFailure(message: string): void {
    const state = this.#options.state.load();
    if (state.warned) return;
    this.#options.state.save({ ...state, warned: true });
    this.#options.warn(
      `advisor: ${message}; the advisor keeps quiet about such failures from now on in this conversation.`,
    );
  }

  /** A decision call's options; its reported tokens are added to the advisor record. */
  #callOptions(signal: AbortSignal): Parameters<typeof callDecisionTool>[2] {
    return {
      timeoutMs: this.settings.timeoutMs,
      signal,
      onUsage: (usage) => {
        const state = this.#options.state.load();
        this.#options.state.save({ ...state, decision_usage: addDecisionUsage(state.decision_usage, usage) });
      },
    };
  }

  #sayUnavailable(): void {
    if (this.#saidUnavailable || this.#options.decisionUnavailable === undefined) return;
    this.#saidUnavailable = true;
    this.#options.warn(`advisor: ${this.#options.decisionUnavailable}; reporting token lines only.`);
  }

  async #askSignals(measure: ContextMeasure, signal: AbortSignal): Promise<AdvisorSignals> {
    const client = this.#options.decisionClient;
    if (client === undefined) throw new Error(this.#options.decisionUnavailable ?? "no decision model");
    return askAdvisorQuestions(client, measure.turns, this.#callOptions(signal));
  }

  #decide(measure: ContextMeasure, signals: AdvisorSignals | undefined): TierDecision {
    return decideTier({
      tokens: measure.tokens,
      lines: this.settings.lines,
      compactable: measure.compactable,
      ...(signals === undefined ? {} : { signals }),
    });
  }

  /** `compacting now saves …` (cache-cost.ts), or undefined when it cannot be said. */
  #costOfCompacting(events: readonly ConversationEvent[]): string | undefined {
    try {
      const cost = this.#options.costOfCompacting?.(events);
      return cost === undefined ? undefined : describeCostBriefly(cost);
    } catch {
      // Only a figure beside the advice: the advice stands without it.
      return undefined;
    }
  }

  /** Prints an announced tier; returns the steering message to store, if any. */
  #announce(
    decision: TierDecision,
    tokens: number,
    maySteer: boolean,
    events: readonly ConversationEvent[],
  ): ConversationEvent[] {
    const { state: stateStore, clock } = this.#options;
    const state = stateStore.load();
    // A compaction since the last announcement (cxc's, a reset, the agent's own) changed the
    // context: the next tier is news again.
    const compactions = activeCompactions(events).length;
    const compacted = state.compactions_seen !== undefined && state.compactions_seen !== compactions;
    const current: AnnouncementState =
      state.last_announced === undefined || compacted ? {} : { lastAnnounced: state.last_announced };
    if (!decideAnnouncement(current, decision.tier).announce) return [];
    stateStore.save({ ...state, last_announced: decision.tier, compactions_seen: compactions });
    const liveCount = describeLiveCount(tokens, this.contextWindow, formatTokenCount);
    const next = renderAdviceHint(decision.tier, {
      compactNowEnabled: this.#options.compactNowEnabled,
      ...(this.#options.conversationId === undefined ? {} : { conversationId: this.#options.conversationId }),
    });
    const measure = { tokens, contextWindow: this.contextWindow };
    const loudTier = decision.tier === "recommend" || decision.tier === "request";
    const cost = loudTier ? this.#costOfCompacting(events) : undefined;
    const said = cost === undefined ? decision : { ...decision, reason: `${decision.reason}; ${cost}` };
    this.#options.print(renderAdvice(said, liveCount, measure));
    if (next !== undefined) this.#options.hint(next);
    this.#options.onAdvice?.();
    const loud = decision.tier === "recommend" || decision.tier === "request";
    if (!maySteer || !loud || !this.#options.compactNowEnabled) return [];
    const message: ChatRequest = {
      type: "chat_request",
      id: clock.newEventId(),
      ts: clock.now(),
      content: renderSteeringMessage(decision, liveCount, measure),
      author: ADVISOR_AUTHOR,
    };
    return [message];
  }
}

/** Builds the advisor of one run. */
export function createAdvisor(options: AdvisorOptions): Advisor {
  return new AdvisorRuntime(options);
}
