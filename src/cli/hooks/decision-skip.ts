/**
 * A decision model that fails is left out for a while. The `Stop` hook runs at the end of every
 * turn and Claude Code waits for it: a model that hangs would cost every turn above the notice line
 * its `timeout_ms`. So a failure (an error, or no answer in time) is recorded in the state
 * directory (state.ts, `hooks/decision-model.json`), and for the next 15 minutes the advice uses
 * the token lines alone without calling that model; the first advice in a session that leaves it
 * out says so, once per failure. After that the model is asked again.
 */
import type { LlmClient } from "../../llm/types.js";
import { type DecisionFailure, loadDecisionFailure, saveDecisionFailure } from "./state.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** How long a failed decision model is left out. */
export const DECISION_SKIP_MS = 15 * 60 * 1000;

/** The recorded failure of `model` that still leaves it out at `now`, if any. */
export function skippedDecision(env: Environment, model: string, now: Date): DecisionFailure | undefined {
  const failure = loadDecisionFailure(env);
  if (failure === undefined || failure.model !== model) return undefined;
  const at = Date.parse(failure.at);
  return Number.isFinite(at) && now.getTime() - at < DECISION_SKIP_MS && at <= now.getTime()
    ? failure
    : undefined;
}

/** What the user is told while the model is left out. */
export function skippedMessage(failure: DecisionFailure): string {
  const until = new Date(Date.parse(failure.at) + DECISION_SKIP_MS).toISOString().slice(11, 16);
  return `the decision model ${failure.model} failed (${failure.message}); cxc leaves it out until ${until} UTC`;
}

/** `client`, recording its failures (an error event, or an abort before it answered). */
export function recordingFailures(client: LlmClient, env: Environment): LlmClient {
  const record = (message: string): void =>
    saveDecisionFailure(env, { model: client.modelId, at: new Date().toISOString(), message });
  return {
    modelId: client.modelId,
    async *stream(request, options) {
      let answered = false;
      const onAbort = (): void => {
        if (!answered) record("it did not answer in time");
      };
      options?.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        for await (const event of client.stream(request, options)) {
          // An abort (the timeout) is recorded as such, not as the error it makes the stream end with.
          if (event.type === "error" && !answered && options?.signal?.aborted !== true)
            record(event.error.message);
          if (event.type === "message-end") answered = true;
          yield event;
        }
      } finally {
        options?.signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}
