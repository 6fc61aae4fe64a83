/**
 * The advisor inside Claude Code, at `Stop`, once the transcript's reported usage reached the
 * notice line (run-hook.ts decides that). It is cxc's advisor (src/query/advisor-hook.ts) over the
 * transcript as cxc imports it, with the count Claude Code reported:
 *
 * - with a decision model configured (`conversation.compaction.advisor.model`, `CXC_ADVISOR_MODEL`),
 *   the four questions and the tier table; without one, the token lines only, and the first
 *   advice of the session says so;
 * - an announced tier is shown to the user (`systemMessage`) with the `/compact` line cxc suggests:
 *   what to keep (the user's binding sentences, the files modified) and, with a decision model,
 *   where the live work starts (the advisor's cut point, quoted from that request);
 * - the same tier is never shown twice in a row in a session (the record in the state directory);
 *   a failed decision call is told once, then the advisor keeps quiet.
 */
import { readFileSync } from "node:fs";
import { CUT_POINT_CONFIDENCE, cutPointCandidates, readAdvisorSettings } from "../../core/advisor/advisor.js";
import type { ConfigTable } from "../../core/config.js";
import { ASSUMED_CONTEXT_WINDOW } from "../../core/advisor/context-gauge.js";
import { compactFocus, renderHookAdvice } from "../../core/advisor/hook-advice.js";
import type { HookInput, ReportedUsage } from "../../core/interop/hook-protocol.js";
import { systemMessageOutput } from "../../core/interop/hook-protocol.js";
import { importClaudeCodeSession } from "../../core/interop/claude-code.js";
import { extractRangeFacts } from "../../core/summary/range-facts.js";
import { groupTurns } from "../../core/conversation/turns.js";
import { dropsEarlierReasoning, lookupModelLimits } from "../../llm/models.js";
import type { LlmClient } from "../../llm/types.js";
import { createAdvisor } from "../../query/advisor-hook.js";
import { loadPlainTokenCounter, newEventId, timestampNow } from "../../store/index.js";
import type { HookRun } from "./hook-run.js";
import { hookStatePath, loadHookState, saveHookState } from "./state.js";

const NO_MODEL =
  "no decision model is configured (conversation.compaction.advisor.model or CXC_ADVISOR_MODEL)";

/** The window of Claude Code's model, from cxc's table (dated names match their family). */
function windowOf(model: string | undefined): number {
  if (model === undefined) return ASSUMED_CONTEXT_WINDOW;
  return lookupModelLimits({ provider: "anthropic", model }).contextWindow ?? ASSUMED_CONTEXT_WINDOW;
}

/** The advice for one `Stop`, as the hook's stdout ("" when nothing is announced). */
export async function adviseInAgent(
  run: HookRun,
  input: HookInput,
  config: ConfigTable,
  usage: ReportedUsage,
): Promise<string> {
  const { settings } = readAdvisorSettings(config, run.env);
  const imported = importClaudeCodeSession(readFileSync(input.transcriptPath, "utf8"), input.transcriptPath);
  if (!imported.ok) throw new Error(imported.error);
  const events = imported.value.conversation.events;
  const statePath = hookStatePath(run.env, run.agent, input.sessionId);
  const initial = loadHookState(statePath);
  let decisionClient: LlmClient | undefined;
  let unavailable: string | undefined;
  if (settings.model === undefined) unavailable = NO_MODEL;
  else {
    try {
      const { createLlmClient } = await import("../../llm/registry.js");
      decisionClient = createLlmClient(settings.model, { config, env: run.env, retry: false });
    } catch (error) {
      unavailable = `the decision model ${settings.model} is not reachable (${(error as Error).message})`;
    }
  }
  const printed: string[] = [];
  const notes: string[] = [];
  const contextWindow = windowOf(usage.model);
  const advisor = createAdvisor({
    settings,
    decisionClient,
    // Said once per session: the record remembers it across the hook's processes.
    ...(unavailable === undefined || initial.said_unavailable ? {} : { decisionUnavailable: unavailable }),
    contextWindow,
    // The context of the next request from the usage Claude Code recorded in the transcript
    // (core/advisor/next-request.ts): its own system prompt and tools are in it.
    countTokens: await loadPlainTokenCounter(),
    requests: { dropsEarlierReasoning: dropsEarlierReasoning(usage.model ?? "", "anthropic") },
    clock: { now: timestampNow, newEventId },
    state: {
      load: () => loadHookState(statePath),
      save: (state) => saveHookState(statePath, { ...loadHookState(statePath), ...state }),
    },
    print: (text) => printed.push(text),
    hint: () => undefined,
    warn: (text) => notes.push(`cxc ${text}`),
    compactNowEnabled: false,
  });
  const controller = new AbortController();
  await advisor.adviseAtBoundary(events, { midTurn: false, signal: controller.signal });
  if (unavailable !== undefined && !initial.said_unavailable && printed.length > 0) {
    saveHookState(statePath, { ...loadHookState(statePath), said_unavailable: true });
  }
  if (printed.length === 0) return notes.length === 0 ? "" : systemMessageOutput(notes.join("\n"));
  const turns = groupTurns(events);
  const facts = extractRangeFacts(turns, input.cwd === undefined ? {} : { cwd: input.cwd });
  let liveFrom: string | undefined;
  if (decisionClient !== undefined && turns.length >= 2) {
    const candidates = cutPointCandidates({ from: 0, to: turns.length - 2 }, settings.maxTurns);
    const pick = await advisor.pickLiveFrom(events, candidates, controller.signal);
    const turn = pick === undefined || pick.confidence < CUT_POINT_CONFIDENCE ? undefined : turns[pick.turn];
    const request = turn?.events.find((event) => event.type === "chat_request");
    liveFrom = request?.type === "chat_request" ? request.content : undefined;
  }
  return systemMessageOutput(renderHookAdvice(printed, compactFocus(facts, liveFrom), notes));
}
