/**
 * The advisor's two decisions as plain functions, for users' tests and scripts (the package's
 * `cxc/advisor` entry, src/cli/advisor-api.ts, which adds pi sessions): `advise` gives `should_i_compact`'s verdict for a
 * conversation and a context size, `pickLiveFrom` the cut-point question's answer. Each takes the
 * decision model as a client, so a test hands it `mockDecisionClient` (advisor-mock.ts) and runs
 * offline. The same requests, answers and tier rules as the advisor inside `cxc q`, pi and the
 * agents' hooks; docs/advisor.md, "Testing with the mock".
 */
import { layoutCycles } from "../core/conversation/cycles.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import { projectConversation } from "../core/conversation/projection.js";
import type { LlmClient } from "../llm/types.js";
import { askAdvisorQuestions, compactableUnits, createAdvisor, toVerdict } from "./advisor.js";
import {
  type AdvisorSignals,
  CUT_POINT_CONFIDENCE,
  cutPointCandidates,
  DEFAULT_ADVISOR_MAX_TURNS,
  DEFAULT_ADVISOR_TIMEOUT_MS,
  DEFAULT_TOKEN_LINES,
  decideTier,
  type TierDecision,
  type TokenLines,
  type Verdict,
} from "./core/advisor/advisor.js";
import { contextOfNextRequest } from "./core/advisor/next-request.js";
import { loadPlainTokenCounter } from "../store/index.js";

/** The conversation asked about: cxc's events (a log's records, parsed). */
export interface AdvisedConversation {
  readonly events: readonly ConversationEvent[];
}

/** What `advise` takes. */
export type AdviseInput = AdvisedConversation & {
  /** The decision model: `mockDecisionClient(...)` in a test. */
  readonly client: LlmClient;
  /**
   * The context's size now, as the agent reports it (`pct` of the window, optional). Without it,
   * cxc counts the next request of `events` as the advisor does.
   */
  readonly usage?: { readonly tokens: number; readonly pct?: number };
  /** The three token lines (a strictly increasing set); the defaults 60000/100000/140000. */
  readonly lines?: TokenLines;
  /** The model's window, for the percent when `usage.pct` is absent. */
  readonly contextWindow?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
};

/** What `advise` gives. */
export interface AdviseResult {
  /** The tier and its one-line reason, decided in code from the answers and the lines. */
  readonly decision: TierDecision;
  /** The four answers; absent when there was nothing to compact (no question was asked). */
  readonly signals?: AdvisorSignals;
  /** The `should_i_compact` tool's result for the same decision. */
  readonly verdict: Verdict;
}

function checkedLines(lines: TokenLines | undefined): TokenLines {
  if (lines === undefined) return DEFAULT_TOKEN_LINES;
  const { notice, recommend, request } = lines;
  if (!(notice > 0 && notice < recommend && recommend < request)) {
    throw new RangeError(
      `advise: the token lines are a set, notice < recommend < request; got ${notice}/${recommend}/${request}`,
    );
  }
  return lines;
}

/** `should_i_compact`'s four questions and tier for a conversation (see the module comment). */
export async function advise(input: AdviseInput): Promise<AdviseResult> {
  const { events } = input;
  const lines = checkedLines(input.lines);
  const view = projectConversation(events);
  const compactable = compactableUnits(view);
  let tokens = input.usage?.tokens;
  if (tokens === undefined) {
    tokens = contextOfNextRequest(events, { countTokens: await loadPlainTokenCounter() }).tokens;
  }
  const signals =
    compactable === 0
      ? undefined
      : await askAdvisorQuestions(input.client, view.turns, {
          timeoutMs: input.timeoutMs ?? DEFAULT_ADVISOR_TIMEOUT_MS,
          ...(input.signal === undefined ? {} : { signal: input.signal }),
        });
  const decision = decideTier({ tokens, lines, compactable, ...(signals === undefined ? {} : { signals }) });
  const window =
    input.contextWindow ??
    (input.usage?.pct !== undefined && input.usage.pct > 0 ? (tokens * 100) / input.usage.pct : undefined);
  return {
    decision,
    ...(signals === undefined ? {} : { signals }),
    verdict: toVerdict(decision, tokens, lines, window, signals),
  };
}

/** What `pickLiveFrom` takes. */
export type PickLiveFromInput = AdvisedConversation & {
  readonly client: LlmClient;
  /**
   * The 1-based turns to offer; by default the last `maxTurns` turns before the last one and the
   * last one (the turns a cut could keep).
   */
  readonly turns?: readonly number[];
  readonly maxTurns?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
};

/** The cut-point answer, 1-based as the transcript labels turns. */
export interface LiveFromResult {
  readonly turn: number;
  /** When the live work starts partway through `turn`: its 1-based cycle. */
  readonly cycle?: number;
  readonly confidence: number;
  /** Whether the answer is confident enough to move a cut (confidence at least 0.6). */
  readonly movesCut: boolean;
}

/**
 * Where the still-live work starts, asked as the advisor asks before a compaction; undefined when
 * the answer names no offered turn, the call fails, or fewer than two turns exist to choose from.
 */
export async function pickLiveFrom(input: PickLiveFromInput): Promise<LiveFromResult | undefined> {
  const { events } = input;
  const turnCount = layoutCycles(events).cycleCounts.length;
  const candidates =
    input.turns?.map((turn) => turn - 1) ??
    cutPointCandidates({ from: 0, to: turnCount - 2 }, input.maxTurns ?? DEFAULT_ADVISOR_MAX_TURNS);
  const advisor = createAdvisor({
    settings: {
      enabled: true,
      lines: DEFAULT_TOKEN_LINES,
      timeoutMs: input.timeoutMs ?? DEFAULT_ADVISOR_TIMEOUT_MS,
      cutPoint: true,
      maxTurns: input.maxTurns ?? DEFAULT_ADVISOR_MAX_TURNS,
    },
    decisionClient: input.client,
    contextWindow: undefined,
    countTokens: () => 0,
    clock: { now: () => new Date().toISOString(), newEventId: () => "advise" },
    state: { load: () => ({}), save: () => undefined },
    print: () => undefined,
    hint: () => undefined,
    warn: () => undefined,
    compactNowEnabled: false,
  });
  const pick = await advisor.pickLiveFrom(events, candidates, input.signal ?? new AbortController().signal);
  if (pick === undefined) return undefined;
  return {
    turn: pick.turn + 1,
    ...(pick.cycle === undefined ? {} : { cycle: pick.cycle + 1 }),
    confidence: pick.confidence,
    movesCut: pick.confidence >= CUT_POINT_CONFIDENCE,
  };
}
