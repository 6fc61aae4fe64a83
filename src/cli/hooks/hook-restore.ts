/**
 * The restore after the agent compacts (`SessionStart` with source `compact`): the facts of the
 * conversation being compacted, built from the transcript as it stands, handed to the model as
 * context after the agent's own summary (docs/inside-agents.md, "Restore after compacting").
 *
 * In the pinned Claude Code this hook runs after `PreCompact` and before the summary reaches the
 * transcript, so the transcript holds exactly the history being compacted; Codex runs it before
 * its next request. cxc converts the transcript as it does on import and extracts the range facts
 * of its raw turns (src/compaction/core/summary/range-facts.ts): the user's binding sentences verbatim and the
 * files the tool calls modified. The files read are left out (Claude Code re-reads and
 * re-attaches the files it was working on). The whole raw history is covered, not only what came
 * after an earlier compaction: a rule said in the first turn must hold after every compaction,
 * and an earlier restore is itself among what is compacted now.
 *
 * The block is at most `hooks.restore.max_characters` long (default 4000; the least important
 * facts go first, and it says how many were left out; a budget too small for any fact is logged).
 * A transcript past 16 MiB is read from its end (transcript.ts), and the log says so.
 *
 * Then the pinned messages of a session cxc exported (`cxc conversation keep`), verbatim and whole
 * whatever the budget: the pinned sections cxc wrote after its summaries, and the messages its
 * export marked pinned where they stood (core/conversation/summary-message.ts).
 */
import type { ConfigTable } from "../../core/config.js";
import {
  beforeModelContextOutput,
  contextOutput,
  geminiCompressionSummaries,
  type HookInput,
  sessionContextOutput,
} from "../../core/interop/hook-protocol.js";
import { CXC_PINNED_KEY } from "../../core/interop/agents.js";
import { compactionPolicies } from "../../core/conversation/cycles.js";
import { type ConversationEvent, isTurnEvent, type ToolCallRequest } from "../../core/conversation/events.js";
import {
  type PinnedMessage,
  pinnedSectionOf,
  renderPinnedMessages,
} from "../../core/conversation/summary-message.js";
import { extractRangeFacts, renderRangeFacts } from "../../compaction/core/summary/range-facts.js";
import { assignTurnIndices, groupTurns } from "../../core/conversation/turns.js";
import type { HookRun } from "./hook-run.js";
import { hookStatePath, loadHookState, logHookNote, saveHookState } from "./state.js";
import type { AgentImportSummary } from "../../core/interop/agent-session.js";
import { describeUnknown } from "../../core/interop/agent-versions.js";
import { type HookSession, loadHookSession } from "./hook-sessions.js";
import { readTranscript } from "./transcript.js";
import { agentCompactionIndex } from "../../core/conversation/recall.js";
import { type RecallSettings, readRecallSettings, recallOptions } from "../../tools/recall.js";

/**
 * Logs, once per session, what the reader did not know of the transcript (records of a newer
 * agent), named with the version that wrote them (agent-versions.ts).
 */
export function noteUnknownRecords(run: HookRun, input: HookInput, summary: AgentImportSummary): void {
  const line = describeUnknown(summary);
  if (line === undefined) return;
  const path = hookStatePath(run.env, run.agent, input.sessionId);
  const state = loadHookState(path);
  if (state.said_unknown === line) return;
  logHookNote(run.env, run.agent, `${input.event} ${input.source ?? ""}`.trim(), line);
  if (run.handRun === true) return;
  try {
    saveHookState(path, { ...state, said_unknown: line });
  } catch {
    // Said again next time: a repeated note, nothing worse.
  }
}

/** The restore's budget when none is configured. */
export const DEFAULT_RESTORE_CHARACTERS = 4000;

const HEADING =
  "cxc kept these facts of the conversation before this compaction, from its raw turns, in case the summary left them out:";

/** `hooks.restore.max_characters`, or the default; a value that is not a positive integer is the default. */
export function restoreBudget(config: ConfigTable): number {
  const hooks = config.hooks;
  const restore =
    typeof hooks === "object" && hooks !== null && !Array.isArray(hooks) ? hooks.restore : undefined;
  const value =
    typeof restore === "object" && restore !== null && !Array.isArray(restore)
      ? restore.max_characters
      : undefined;
  return typeof value === "number" && Number.isInteger(value) && value > 0
    ? value
    : DEFAULT_RESTORE_CHARACTERS;
}

/** The restore as the hook's stdout ("" when there are no facts). */
export async function restoreAfterCompaction(
  run: HookRun,
  input: HookInput,
  config: ConfigTable,
): Promise<string> {
  const restored = restoreText(run, input, config, await loadHookSession(run, input));
  return restored === "" ? "" : sessionContextOutput(restored);
}

/**
 * The restore inside opencode, asked by cxc's plugin (src/cli/opencode/plugin.ts): at
 * `experimental.chat.messages.transform` when the request holds opencode's summary, the facts and
 * pinned messages the plugin adds after it; at `experimental.session.compacting`, the same for
 * opencode's summarizer prompt, only when `hooks.restore.compaction_prompt` is true. The session
 * is read from opencode's database.
 */
export async function restoreInOpencode(
  run: HookRun,
  input: HookInput,
  config: ConfigTable,
): Promise<string> {
  if (input.event === "experimental.session.compacting" && !restoreInCompactionPrompt(config)) return "";
  const restored = restoreText(run, input, config, await loadHookSession(run, input));
  return restored === "" ? "" : contextOutput(input.event, restored);
}

/** `hooks.restore.compaction_prompt`: the facts given to the agent's summarizer too (opencode). */
export function restoreInCompactionPrompt(config: ConfigTable): boolean {
  const hooks = config.hooks;
  const restore =
    typeof hooks === "object" && hooks !== null && !Array.isArray(hooks) ? hooks.restore : undefined;
  return (
    typeof restore === "object" &&
    restore !== null &&
    !Array.isArray(restore) &&
    restore.compaction_prompt === true
  );
}

/**
 * The restore inside Gemini CLI, at `BeforeModel` when the request opens with Gemini's compression
 * (run-hook.ts finds it): the same facts and pinned messages, added after Gemini's summary in this
 * request and every later one until the next compression. Gemini CLI has no event after it
 * compresses and no hook that adds to the history there, so the facts go into each request
 * instead of the history; they are built once per compression (the session's record keeps them
 * with the summary) and handed back from the record after that. A summary Gemini did not
 * write in this session file (one a resumed cxc export opens with, which carries cxc's own facts)
 * gets none.
 */
export async function restoreInGeminiRequest(
  run: HookRun,
  input: HookInput,
  summary: { readonly index: number; readonly text: string },
  config: ConfigTable,
): Promise<string> {
  const path = hookStatePath(run.env, run.agent, input.sessionId);
  const state = loadHookState(path);
  // Gemini sends its context message and the summary as one content: the summary ends it.
  const known = state.gemini_restore;
  let restored = known !== undefined && summary.text.endsWith(known.summary) ? known.text : undefined;
  if (restored === undefined) {
    const transcript = readTranscript(input.transcriptPath, { keepHead: true });
    const own = [...geminiCompressionSummaries(transcript.text)].find(
      (recorded) => recorded !== "" && summary.text.endsWith(recorded),
    );
    restored =
      own === undefined ? "" : restoreText(run, input, config, await loadHookSession(run, input, transcript));
    if (run.handRun !== true) {
      try {
        saveHookState(path, {
          ...loadHookState(path),
          gemini_restore: { summary: own ?? summary.text, text: restored },
        });
      } catch (error) {
        // Built again at the next request: slower, never wrong.
        logHookNote(
          run.env,
          run.agent,
          input.event,
          `cannot record the restore in ${path} (${(error as Error).message})`,
        );
      }
    }
  }
  return restored === "" || input.llmRequest === undefined
    ? ""
    : beforeModelContextOutput(input.llmRequest, summary.index, restored);
}

/** The facts and pinned messages of the session as one block ("" when there are none). */
function restoreText(run: HookRun, input: HookInput, config: ConfigTable, session: HookSession): string {
  const event = `${input.event} ${input.source ?? ""}`.trim();
  noteUnknownRecords(run, input, session.summary);
  const facts = extractRangeFacts(
    groupTurns(session.events),
    input.cwd === undefined ? {} : { cwd: input.cwd },
  );
  const budget = restoreBudget(config);
  // Claude Code and Codex re-read the files they were working on; Gemini CLI and opencode do not.
  const kept = run.agent === "gemini" || run.agent === "opencode" ? facts : { ...facts, filesRead: [] };
  const rendered = renderRangeFacts(kept, { maxCharacters: budget, heading: HEADING });
  const factCount = kept.filesModified.length + kept.bindingSentences.length + kept.filesRead.length;
  if (rendered.text === "" && factCount > 0) {
    logHookNote(
      run.env,
      run.agent,
      event,
      `hooks.restore.max_characters is ${budget}, too small for the restore's heading (${HEADING.length} characters) and one fact: all ${factCount} facts were left out; raise it (the default is ${DEFAULT_RESTORE_CHARACTERS})`,
    );
  }
  const pinned = pinnedInTranscript(session.events);
  // The index takes what the facts leave of the budget, its call lines first to go.
  const index = fitIndex(restoreIndex(run, config, session.events), budget - rendered.text.length - 2);
  if (rendered.text === "" && pinned.length === 0 && index === undefined) return "";
  return [
    rendered.text === "" ? HEADING : rendered.text,
    ...pinned,
    ...(index === undefined ? [] : [index]),
  ].join("\n\n");
}

/** The index cut to `room` characters, whole lines from its end; undefined when its first two do not fit. */
function fitIndex(index: string | undefined, room: number): string | undefined {
  if (index === undefined) return undefined;
  const lines = index.split("\n");
  while (lines.length > 2 && lines.join("\n").length > room) lines.pop();
  const text = lines.join("\n");
  return text.length > room ? undefined : text;
}

/**
 * The recall index of the compaction under way, where `cxc mcp` serves `recall` over the
 * transcript (Claude Code, Codex) and recall is on: the turns the agent's summary stands for and
 * their largest calls, each with the reference `recall` reads (docs/recall.md).
 */
function restoreIndex(
  run: HookRun,
  config: ConfigTable,
  events: readonly ConversationEvent[],
): string | undefined {
  if (run.agent !== "claude-code" && run.agent !== "codex") return undefined;
  let settings: RecallSettings;
  try {
    settings = readRecallSettings(config);
  } catch (error) {
    logHookNote(run.env, run.agent, "SessionStart compact", (error as Error).message);
    return undefined;
  }
  if (!settings.enabled) return undefined;
  return agentCompactionIndex(events, recallOptions(settings));
}

/**
 * The pinned messages of a transcript cxc exported, each section once: those its summaries carry
 * (their pinned section), then those its records mark (`cxc_pinned`), in order.
 */
function pinnedInTranscript(events: readonly ConversationEvent[]): string[] {
  const sections = new Set<string>();
  const marked: PinnedMessage[] = [];
  const indices = assignTurnIndices(events);
  events.forEach((event, position) => {
    const texts =
      event.type === "chat_request"
        ? [event.content]
        : event.type === "chat_response" && event.message !== undefined
          ? [event.message]
          : event.type === "compaction"
            ? [compactionPolicies(event).summary?.summary ?? ""]
            : [];
    for (const text of texts) {
      const section = pinnedSectionOf(text);
      if (section !== undefined) sections.add(section);
    }
    if (isTurnEvent(event) && event.metadata?.[CXC_PINNED_KEY] === true)
      marked.push({ turn: indices[position]!, event });
  });
  const requests = new Map<string, ToolCallRequest>();
  for (const event of events) if (event.type === "tool_call_request") requests.set(event.call_id, event);
  return [...sections, ...(marked.length === 0 ? [] : [renderPinnedMessages(marked, requests)])];
}
