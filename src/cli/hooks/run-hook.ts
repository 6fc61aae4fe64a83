/**
 * `cxc hook claude-code`, `cxc hook codex` and `cxc hook gemini`: what runs when the agent calls
 * cxc's hook (docs/inside-agents.md). It reads the agent's hook input, does one of two jobs, and
 * returns what to print on stdout:
 *
 * - `Stop` (Claude Code, Codex), `AfterAgent` (Gemini CLI): the transcript's last reported usage
 *   (Codex's rollout: its `token_usage_record`), an upper bound of the context of the next
 *   request, against the advisor's notice line. Below it, it prints nothing, having read only the
 *   transcript's tail and the configuration; at the line and above, the advisor's tier is shown to
 *   the user (hook-advise.ts).
 * - opencode, through cxc's plugin (src/cli/opencode/plugin.ts): `session.idle` advises with the
 *   usage the plugin saw; the restore is asked when a request holds opencode's summary.
 * - `SessionStart` with source `compact`: the facts of the conversation being compacted, as
 *   context for the model after the agent's own summary (hook-restore.ts). Gemini CLI has no event
 *   after it compresses: its `BeforeModel` request is looked at instead, and one that opens with
 *   Gemini's compression gets the facts after the summary; any other goes out as it is, having
 *   cost the hook one parse of its input.
 *
 * It fails open: any error (garbage on stdin, no transcript, a bad configuration, a model that
 * fails) gives no output and one line in the state directory's `hooks.log`. It never blocks the
 * agent and never writes into the agent's files. The two jobs load their code only when needed,
 * so the silent path stays as light as reading a file's tail.
 */
import { readAdvisorSettings } from "../../compaction/core/advisor/settings.js";
import {
  geminiRequestSummary,
  type HookInput,
  lastCodexUsage,
  lastGeminiUsage,
  lastReportedUsage,
  parseHookInput,
  type ReportedUsage,
} from "../../core/interop/hook-protocol.js";
import { loadConfig } from "../config.js";
import { logHookFailure, logHookNote } from "./state.js";
import type { HookRun } from "./hook-run.js";
import { searchTail } from "./transcript.js";

export { HOOK_AGENTS, type HookAgent, type HookRun } from "./hook-run.js";

/** Runs the hook; resolves with its stdout ("" for none). Never rejects. */
export async function runAgentHook(run: HookRun): Promise<string> {
  let event = "input";
  try {
    const parsed = parseHookInput(run.stdin);
    if (!parsed.ok) throw new Error(parsed.error);
    const input = parsed.input;
    event = input.source === undefined ? input.event : `${input.event} ${input.source}`;
    if (run.agent === "gemini") return await geminiEvent(run, input);
    if (run.agent === "opencode") return await opencodeEvent(run, input);
    // The session of this agent process, for its `cxc mcp` server (agent-process.ts).
    if (input.event === "Stop" || input.event === "SessionStart") await recordSession(run, input);
    if (input.event === "Stop") return await advise(run, input);
    if (input.event === "SessionStart" && input.source === "compact") {
      const { restoreAfterCompaction } = await import("./jobs.js");
      return await restoreAfterCompaction(
        run,
        input,
        loadConfig({ cwd: input.cwd ?? run.cwd, env: run.env }).values,
      );
    }
    return "";
  } catch (error) {
    logHookFailure(run.env, run.agent, event, (error as Error).message ?? String(error));
    return "";
  }
}

/**
 * Each `SessionStart` (a new or resumed session, a `/clear`, a compaction) and each `Stop` (the
 * end of every turn) records the session under the agent's process id, for the `cxc mcp` server
 * the same process runs (agent-process.ts): from its start on, its server knows it. A failure is
 * logged and the job goes on.
 */
async function recordSession(run: HookRun, input: HookInput): Promise<void> {
  if (run.handRun === true) return;
  const event = `${input.event} ${input.source ?? ""}`.trim();
  try {
    const { recordAgentSession } = await import("./agent-process.js");
    if (recordAgentSession(run.env, run.agent, input) === undefined)
      logHookNote(
        run.env,
        run.agent,
        event,
        "cannot tell the agent's process: cxc mcp will not know this session",
      );
  } catch (error) {
    logHookFailure(
      run.env,
      run.agent,
      event,
      `cannot record the session for cxc mcp: ${(error as Error).message}`,
    );
  }
}

/** Gemini CLI's events: `AfterAgent` advises, `BeforeModel` restores after a compression. */
async function geminiEvent(run: HookRun, input: HookInput): Promise<string> {
  if (input.event === "AfterAgent") return await advise(run, input);
  if (input.event !== "BeforeModel" || input.llmRequest === undefined) return "";
  const summary = geminiRequestSummary(input.llmRequest);
  if (summary === undefined) return "";
  const { restoreInGeminiRequest } = await import("./jobs.js");
  return await restoreInGeminiRequest(
    run,
    input,
    summary,
    loadConfig({ cwd: input.cwd ?? run.cwd, env: run.env }).values,
  );
}

/**
 * What cxc's opencode plugin asks (src/cli/opencode/plugin.ts): `session.idle` advises, with the
 * usage the plugin saw; `experimental.chat.messages.transform` and
 * `experimental.session.compacting` restore, from opencode's database.
 */
async function opencodeEvent(run: HookRun, input: HookInput): Promise<string> {
  if (input.event === "session.idle") return await advise(run, input);
  if (
    input.event !== "experimental.chat.messages.transform" &&
    input.event !== "experimental.session.compacting"
  )
    return "";
  const { restoreInOpencode } = await import("./jobs.js");
  return await restoreInOpencode(run, input, loadConfig({ cwd: input.cwd ?? run.cwd, env: run.env }).values);
}

/** The agent's last reported usage: its transcript's tail, or what the plugin handed over. */
function reportedUsage(run: HookRun, input: HookInput): ReportedUsage | undefined {
  if (run.agent === "opencode") {
    return input.contextTokens === undefined || input.contextTokens === 0
      ? undefined
      : { tokens: input.contextTokens, ...(input.model === undefined ? {} : { model: input.model }) };
  }
  return searchTail(
    input.transcriptPath,
    run.agent === "gemini" ? lastGeminiUsage : run.agent === "codex" ? lastCodexUsage : lastReportedUsage,
  );
}

/** The `Stop` (`AfterAgent`, `session.idle`) job: silent below the notice line; see the module comment. */
async function advise(run: HookRun, input: HookInput): Promise<string> {
  const config = loadConfig({ cwd: input.cwd ?? run.cwd, env: run.env }).values;
  const { settings } = readAdvisorSettings(config, run.env);
  if (!settings.enabled) return "";
  const usage = reportedUsage(run, input);
  if (usage === undefined || usage.tokens < settings.lines.notice) return "";
  const { adviseInAgent } = await import("./jobs.js");
  return adviseInAgent(run, input, config, usage);
}
