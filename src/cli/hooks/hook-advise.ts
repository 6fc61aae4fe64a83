/**
 * The advisor inside Claude Code, at `Stop` (Gemini CLI: `AfterAgent`), once the transcript's
 * reported usage reached the notice line (run-hook.ts decides that). It is cxc's advisor
 * (src/compaction/advisor.ts) over the transcript as cxc imports it, with the count the agent
 * reported:
 *
 * - with a decision model configured (`conversation.compaction.advisor.model`, `CXC_ADVISOR_MODEL`),
 *   the four questions and the tier table; without one, the token lines only, and the first
 *   advice of the session says so;
 * - an announced tier is shown to the user (`systemMessage`) with the `/compact` line cxc suggests:
 *   what to keep (the user's binding sentences, the files modified) and, with a decision model,
 *   where the live work starts (the advisor's cut point, quoted from that request);
 * - the same tier is never shown twice in a row in a session (the record in the state directory);
 *   a failed decision call is told once, then the advisor keeps quiet; a model that failed is left
 *   out for 15 minutes (decision-skip.ts), said once.
 *
 * What this file adds around the advisor is input and output: the transcript read bounded
 * (transcript.ts), the output sanitized (hook-protocol.ts), a hand run that records nothing, and a
 * session record that cannot be written logged instead of losing the advice.
 */
import {
  CUT_POINT_CONFIDENCE,
  cutPointCandidates,
  readAdvisorSettings,
} from "../../compaction/core/advisor/advisor.js";
import type { ConfigTable } from "../../core/config.js";
import { ASSUMED_CONTEXT_WINDOW } from "../../compaction/core/advisor/context-gauge.js";
import {
  compactFocus,
  type LiveFrom,
  liveFromPick,
  renderHookAdvice,
} from "../../compaction/core/advisor/hook-advice.js";
import type { HookInput, ReportedUsage } from "../../core/interop/hook-protocol.js";
import { systemMessageOutput } from "../../core/interop/hook-protocol.js";
import { extractRangeFacts } from "../../compaction/core/summary/range-facts.js";
import { groupTurns } from "../../core/conversation/turns.js";
import { dropsEarlierReasoning, lookupModelLimits } from "../../llm/models.js";
import type { LlmClient } from "../../llm/types.js";
import { createAdvisor } from "../../compaction/advisor.js";
import { loadPlainTokenCounter, newEventId, timestampNow } from "../../store/index.js";
import type { HookRun } from "./hook-run.js";
import { recordingFailures, skippedDecision, skippedMessage } from "./decision-skip.js";
import { noteUnknownRecords } from "./hook-restore.js";
import { loadHookSession } from "./hook-sessions.js";
import {
  type DecisionFailure,
  type HookSessionState,
  hookStatePath,
  loadHookState,
  logHookFailure,
  saveHookState,
} from "./state.js";
import { createLlmClient } from "../../llm/registry.js";

const NO_MODEL =
  "no decision model is configured (conversation.compaction.advisor.model or CXC_ADVISOR_MODEL)";

/**
 * The provider and model of the agent's usage, for cxc's table of windows: opencode names both
 * (`provider/model`), the others use one provider's models.
 */
function modelOf(run: HookRun, model: string | undefined): { provider: string; model: string } | undefined {
  if (model === undefined) return undefined;
  if (run.agent === "opencode") {
    const slash = model.indexOf("/");
    return slash <= 0 ? undefined : { provider: model.slice(0, slash), model: model.slice(slash + 1) };
  }
  return {
    provider: run.agent === "gemini" ? "google" : run.agent === "codex" ? "openai" : "anthropic",
    model,
  };
}

/**
 * The window of the agent's model: the one the agent records (Codex), else cxc's table (dated
 * names match their family).
 */
function windowOf(run: HookRun, usage: ReportedUsage): number {
  if (usage.window !== undefined) return usage.window;
  const id = modelOf(run, usage.model);
  if (id === undefined) return ASSUMED_CONTEXT_WINDOW;
  return lookupModelLimits(id).contextWindow ?? ASSUMED_CONTEXT_WINDOW;
}

/** The wire the agent's model speaks, for what its requests keep of earlier reasoning. */
function wireOf(provider: string | undefined): "anthropic" | "responses" | "chat" | "google" {
  if (provider === "google") return "google";
  if (provider === "openai") return "responses";
  return provider === undefined || provider === "anthropic" ? "anthropic" : "chat";
}

/**
 * The line to type where the agent's command takes no instructions (Gemini CLI's `/compress`,
 * opencode's `/compact`): the command alone; the facts a focus would ask to keep are added after
 * the agent's summary by cxc's hook or plugin.
 */
const COMPACT_COMMANDS: Partial<Record<HookRun["agent"], string>> = {
  gemini:
    "/compress (cxc's hook adds the user's instructions and the files read and modified after Gemini's summary)",
  // Codex's /compact takes no instructions either: cxc's restore after it brings back what its
  // summary drops.
  codex:
    "/compact (cxc's hook adds the user's instructions and the files read and modified after Codex's summary)",
  opencode:
    "/compact (cxc's plugin adds the user's instructions and the files read and modified after opencode's summary)",
};

/** The advice for one `Stop`, as the hook's stdout ("" when nothing is announced). */
export async function adviseInAgent(
  run: HookRun,
  input: HookInput,
  config: ConfigTable,
  usage: ReportedUsage,
): Promise<string> {
  const { settings } = readAdvisorSettings(config, run.env);
  const session = await loadHookSession(run, input);
  noteUnknownRecords(run, input, session.summary);
  const events = session.events;
  const statePath = hookStatePath(run.env, run.agent, input.sessionId);
  const store = sessionRecord(run, statePath);
  const initial = store.load();
  let decisionClient: LlmClient | undefined;
  let unavailable: string | undefined;
  const skipped: DecisionFailure | undefined =
    settings.model === undefined ? undefined : skippedDecision(run.env, settings.model, new Date());
  if (settings.model === undefined) unavailable = NO_MODEL;
  else if (skipped !== undefined) {
    // A model that failed moments ago is left out for a while (decision-skip.ts), said once.
    unavailable = skippedMessage(skipped);
  } else {
    try {
      decisionClient = recordingFailures(
        createLlmClient(settings.model, { config, env: run.env, retry: false }),
        run.env,
      );
    } catch (error) {
      unavailable = `the decision model ${settings.model} is not reachable (${(error as Error).message})`;
    }
  }
  const toldBefore =
    skipped === undefined ? initial.said_unavailable === true : initial.said_skipped === skipped.at;
  const printed: string[] = [];
  const notes: string[] = [];
  const contextWindow = windowOf(run, usage);
  const advisor = createAdvisor({
    settings,
    decisionClient,
    // Said once per session: the record remembers it across the hook's processes.
    ...(unavailable === undefined || toldBefore ? {} : { decisionUnavailable: unavailable }),
    contextWindow,
    // The context of the next request from the usage Claude Code recorded in the transcript
    // (compaction/core/advisor/next-request.ts): its own system prompt and tools are in it.
    countTokens: await loadPlainTokenCounter(),
    requests: {
      dropsEarlierReasoning: dropsEarlierReasoning(
        modelOf(run, usage.model)?.model ?? "",
        wireOf(modelOf(run, usage.model)?.provider),
      ),
    },
    clock: { now: timestampNow, newEventId },
    state: { load: store.load, save: (state) => store.save({ ...store.load(), ...state }) },
    print: (text) => printed.push(text),
    hint: () => undefined,
    warn: (text) => notes.push(`cxc ${text}`),
    compactNowEnabled: false,
  });
  const controller = new AbortController();
  await advisor.adviseAtBoundary(events, { midTurn: false, signal: controller.signal });
  if (unavailable !== undefined && !toldBefore && printed.length > 0) {
    store.save({
      ...store.load(),
      ...(skipped === undefined ? { said_unavailable: true } : { said_skipped: skipped.at }),
    });
  }
  if (printed.length === 0) return notes.length === 0 ? "" : systemMessageOutput(notes.join("\n"));
  const command = COMPACT_COMMANDS[run.agent];
  if (command !== undefined) return systemMessageOutput(renderHookAdvice(printed, command, notes));
  const turns = groupTurns(events);
  const facts = extractRangeFacts(turns, input.cwd === undefined ? {} : { cwd: input.cwd });
  let liveFrom: LiveFrom | undefined;
  if (decisionClient !== undefined) {
    // The last turns up to the current one, whose cycles may be where the live work starts.
    const candidates = cutPointCandidates(
      { from: 0, to: turns.length - 1, toCycle: Number.MAX_SAFE_INTEGER },
      settings.maxTurns,
    );
    const pick = await advisor.pickLiveFrom(events, candidates, controller.signal);
    if (pick !== undefined && pick.confidence >= CUT_POINT_CONFIDENCE) liveFrom = liveFromPick(events, pick);
  }
  return systemMessageOutput(renderHookAdvice(printed, compactFocus(facts, liveFrom), notes));
}

/**
 * The session's record as the advice reads and writes it. Run by hand, it is read but never
 * written (a copy in memory), so a trial run does not use up the session's announcement. A record
 * that cannot be written (an unwritable state directory) costs the advice nothing: the failure is
 * logged once per run (state.ts tells it on stderr when the log cannot be written either).
 */
function sessionRecord(
  run: HookRun,
  path: string,
): { load: () => HookSessionState; save: (state: HookSessionState) => void } {
  let memory: HookSessionState | undefined;
  let told = false;
  return {
    load: () => memory ?? loadHookState(path),
    save: (state) => {
      if (run.handRun === true) {
        memory = state;
        return;
      }
      try {
        saveHookState(path, state);
      } catch (error) {
        memory = state;
        if (!told) {
          told = true;
          logHookFailure(
            run.env,
            run.agent,
            "Stop",
            `cannot record the session's advice in ${path} (${(error as Error).message}): the same advice may be shown again`,
          );
        }
      }
    },
  };
}
