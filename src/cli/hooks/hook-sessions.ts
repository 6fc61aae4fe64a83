/**
 * The agent session a hook job works on, converted as `cxc conversation import` converts it: a
 * transcript file (Claude Code, Codex, Gemini CLI) read bounded (transcript.ts), or opencode's
 * session read from its database (read-only, with a busy timeout: src/store/opencode-source.ts).
 * What the reader did not know is noted once per session (hook-restore.ts).
 */
import type { ConversationEvent } from "../../core/conversation/events.js";
import type { AgentImportSummary } from "../../core/interop/agent-session.js";
import { importClaudeCodeSession } from "../../core/interop/claude-code.js";
import { importCodexSession } from "../../core/interop/codex.js";
import { importGeminiSession } from "../../core/interop/gemini.js";
import type { HookInput } from "../../core/interop/hook-protocol.js";
import { convertOpencodeSession } from "../../core/interop/opencode.js";
import { loadOpencodeSource } from "../../store/index.js";
import type { HookRun } from "./hook-run.js";
import { logHookNote } from "./state.js";
import { readTranscript, type TranscriptText } from "./transcript.js";

/** A session as the hook's jobs read it. */
export interface HookSession {
  readonly events: readonly ConversationEvent[];
  readonly summary: AgentImportSummary;
  /** The transcript's text, for the agents that have one. */
  readonly transcript?: TranscriptText;
}

/** The note for a transcript read from its end only. */
export function readInPart(transcript: TranscriptText): string {
  const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return `the transcript is ${mib(transcript.size)}: read its last ${mib(transcript.size - transcript.skipped)}, so what came before (${mib(transcript.skipped)}) is not covered`;
}

/** Reads and converts the session of the hook's input; throws what went wrong. */
export async function loadHookSession(
  run: HookRun,
  input: HookInput,
  transcript?: TranscriptText,
): Promise<HookSession> {
  const event = `${input.event} ${input.source ?? ""}`.trim();
  if (run.agent === "opencode") {
    const { openOpencodeSource } = await loadOpencodeSource();
    const source = openOpencodeSource(input.transcriptPath, run.env);
    try {
      const document = source.load(input.sessionId);
      if (!document.ok) throw new Error(document.message);
      const converted = convertOpencodeSession(document.value, `${source.path}#${input.sessionId}`);
      if (!converted.ok) throw new Error(converted.message);
      return { events: converted.value.events, summary: converted.value.summary };
    } finally {
      source.close();
    }
  }
  const text = transcript ?? readTranscript(input.transcriptPath, { keepHead: run.agent !== "claude-code" });
  if (text.skipped > 0) logHookNote(run.env, run.agent, event, readInPart(text));
  const imported =
    run.agent === "codex"
      ? importCodexSession(text.text, input.transcriptPath)
      : run.agent === "gemini"
        ? importGeminiSession(text.text, input.transcriptPath)
        : importClaudeCodeSession(text.text, input.transcriptPath);
  if (!imported.ok) throw new Error(imported.message);
  return { events: imported.value.conversation.events, summary: imported.value.summary, transcript: text };
}
