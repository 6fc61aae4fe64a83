/**
 * The restore after the agent compacts (`SessionStart` with source `compact`): the facts of the
 * conversation being compacted, built from the transcript as it stands, handed to the model as
 * context after the agent's own summary (docs/inside-agents.md, "Restore after compacting").
 *
 * In the pinned Claude Code this hook runs after `PreCompact` and before the summary reaches the
 * transcript, so the transcript holds exactly the history being compacted; Codex runs it before
 * its next request. cxc converts the transcript as it does on import and extracts the range facts
 * of its raw turns (src/core/summary/range-facts.ts): the user's binding sentences verbatim and the
 * files the tool calls modified. The files read are left out (Claude Code re-reads and
 * re-attaches the files it was working on). The whole raw history is covered, not only what came
 * after an earlier compaction: a rule said in the first turn must hold after every compaction,
 * and an earlier restore is itself among what is compacted now.
 *
 * The block is at most `hooks.restore.max_characters` long (default 4000; the least important
 * facts go first, and it says how many were left out).
 */
import { readFileSync } from "node:fs";
import type { ConfigTable } from "../../core/config.js";
import { type HookInput, sessionContextOutput } from "../../core/interop/hook-protocol.js";
import { importClaudeCodeSession } from "../../core/interop/claude-code.js";
import { importCodexSession } from "../../core/interop/codex.js";
import { extractRangeFacts, renderRangeFacts } from "../../core/summary/range-facts.js";
import { groupTurns } from "../../core/conversation/turns.js";
import type { HookRun } from "./hook-run.js";

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
  const text = readFileSync(input.transcriptPath, "utf8");
  const imported =
    run.agent === "codex"
      ? importCodexSession(text, input.transcriptPath)
      : importClaudeCodeSession(text, input.transcriptPath);
  if (!imported.ok) throw new Error(imported.error);
  const facts = extractRangeFacts(
    groupTurns(imported.value.conversation.events),
    input.cwd === undefined ? {} : { cwd: input.cwd },
  );
  const rendered = renderRangeFacts(
    { ...facts, filesRead: [] },
    { maxCharacters: restoreBudget(config), heading: HEADING },
  );
  return rendered.text === "" ? "" : sessionContextOutput(rendered.text);
}
