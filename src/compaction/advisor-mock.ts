/**
 * An offline decision model for tests (docs/advisor.md, "Testing with the mock"): an `LlmClient` that
 * answers the advisor's forced tool calls with forced answers, each question by its id, and keeps
 * the requests it was sent. No network, no key, the same answers every time.
 *
 * - The four questions (`answer_questions`): each of `switched_gears`, `at_boundary`,
 *   `needs_history`, `mid_operation` forced on its own; one not forced is 0.5, a middle answer
 *   under which the tier follows the token lines (0.5 is not mid-operation, counts as the work
 *   having moved on, and does not need the history).
 * - The cut point (`pick_live_from`), forced as `live_from` without touching the four: the 1-based
 *   turn (and cycle) where the live work starts, with its confidence (default 1). Not forced, it
 *   answers turn 1 with confidence 0, which never moves a cut.
 */
import type { LlmRequest } from "../core/conversation/request.js";
import { EMPTY_USAGE, type LlmClient, type LlmStreamEvent } from "../llm/types.js";
import { ADVISOR_QUESTIONS_TOOL, LIVE_FROM_TOOL } from "./core/advisor/advisor.js";

/** The four questions' ids, as the advisor's tool names its parameters. */
export const QUESTION_IDS = ["switched_gears", "at_boundary", "needs_history", "mid_operation"] as const;
export type QuestionId = (typeof QUESTION_IDS)[number];

/** What an unforced question answers: a middle value, under which the tier follows the token lines. */
export const NEUTRAL_ANSWER = 0.5;

/** Forced answers, each independent of the others. */
export type MockAnswers = {
  readonly [id in QuestionId]?: number;
} & {
  /** The cut-point question's answer: 1-based turn and cycle (as the transcript labels them). */
  readonly live_from?: { readonly turn: number; readonly cycle?: number; readonly confidence?: number };
};

/** The mock: an `LlmClient` and the requests it answered, in order. */
export interface MockDecisionClient extends LlmClient {
  readonly requests: LlmRequest[];
}

function checkedUnit(id: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new RangeError(`mockDecisionClient: ${id} must be a number from 0 to 1, not ${String(value)}`);
  }
  return value;
}

/** The arguments of the forced call `name`, or undefined for a tool the advisor does not use. */
function forcedArguments(name: string, answers: MockAnswers): Record<string, unknown> | undefined {
  if (name === ADVISOR_QUESTIONS_TOOL.name) {
    return Object.fromEntries(QUESTION_IDS.map((id) => [id, answers[id] ?? NEUTRAL_ANSWER]));
  }
  if (name === LIVE_FROM_TOOL.name) {
    const live = answers.live_from;
    if (live === undefined) return { live_from_turn: 1, confidence: 0 };
    return {
      live_from_turn: live.turn,
      ...(live.cycle === undefined ? {} : { live_from_cycle: live.cycle }),
      confidence: live.confidence ?? 1,
    };
  }
  return undefined;
}

/** A decision model that answers with `answers` (see the module comment). */
export function mockDecisionClient(answers: MockAnswers = {}): MockDecisionClient {
  for (const id of QUESTION_IDS) {
    const value = answers[id];
    if (value !== undefined) checkedUnit(id, value);
  }
  if (answers.live_from?.confidence !== undefined)
    checkedUnit("live_from.confidence", answers.live_from.confidence);
  const requests: LlmRequest[] = [];
  return {
    modelId: "mock/decision",
    requests,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamEvent> {
      requests.push(request);
      const name = request.toolChoice?.type === "tool" ? request.toolChoice.name : "";
      const forced = forcedArguments(name, answers);
      if (forced === undefined) {
        yield {
          type: "error",
          error: {
            kind: "invalid-request",
            retryable: false,
            message: `the mock decision model answers only ${ADVISOR_QUESTIONS_TOOL.name} and ${LIVE_FROM_TOOL.name}, not ${name === "" ? "a request without a forced tool" : name}`,
          },
        };
        return;
      }
      yield { type: "tool-call", id: `mock-${requests.length}`, name, arguments: forced };
      yield { type: "message-end", finishReason: "tool-calls", usage: EMPTY_USAGE };
    },
  };
}
