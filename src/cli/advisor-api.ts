/**
 * The package's `cxc/advisor` entry (dist/advisor/index.js, an ES module with its types): the
 * advisor's decisions for users' tests and scripts, and an offline decision model to drive them
 * (docs/advisor.md, "Testing with the mock"). A conversation is cxc's events, or a pi
 * session's branch as an extension's `ctx.sessionManager` holds it, converted as the pi package
 * converts it. docs/advisor.md, "Testing with the mock".
 */
import type { ConversationEvent } from "../core/conversation/events.js";
import {
  type AdviseInput as EventsAdviseInput,
  type AdviseResult,
  advise as adviseEvents,
  type LiveFromResult,
  type PickLiveFromInput as EventsPickInput,
  pickLiveFrom as pickFromEvents,
} from "../compaction/advise.js";
import { piSessionView } from "./pi/session-events.js";

export {
  type MockAnswers,
  type MockDecisionClient,
  mockDecisionClient,
  NEUTRAL_ANSWER,
  QUESTION_IDS,
  type QuestionId,
} from "../compaction/advisor-mock.js";
export {
  type AdvisorSignals,
  DEFAULT_TOKEN_LINES,
  decideTier,
  type Tier,
  type TierDecision,
  type TokenLines,
  type Verdict,
} from "../compaction/core/advisor/advisor.js";
export type { AdviseResult, LiveFromResult };
export type { ConversationEvent };
export type { LlmClient } from "../llm/types.js";

/** A pi session: its entries on the current branch, and its header if at hand. */
export interface PiBranch {
  readonly branch: readonly ({ readonly type: string; readonly id: string } & Record<string, unknown>)[];
  readonly header?: Record<string, unknown>;
}

/** The conversation asked about: cxc's events, or a pi session's branch. */
export type Conversation = { readonly events: readonly ConversationEvent[] } | PiBranch;

export type AdviseInput = Omit<EventsAdviseInput, "events"> & Conversation;
export type PickLiveFromInput = Omit<EventsPickInput, "events"> & Conversation;

function eventsOf(conversation: Conversation): readonly ConversationEvent[] {
  if ("events" in conversation) return conversation.events;
  return piSessionView(conversation.header ?? null, conversation.branch).events;
}

/**
 * `should_i_compact`'s four questions and the tier decided in code, for a conversation at a
 * context size: `result.decision.tier`, `result.signals`, `result.verdict` (the tool's JSON).
 */
export async function advise(input: AdviseInput): Promise<AdviseResult> {
  return adviseEvents({ ...input, events: eventsOf(input) });
}

/** The cut-point question: which turn (and cycle) starts the work that is still live. */
export async function pickLiveFrom(input: PickLiveFromInput): Promise<LiveFromResult | undefined> {
  return pickFromEvents({ ...input, events: eventsOf(input) });
}
