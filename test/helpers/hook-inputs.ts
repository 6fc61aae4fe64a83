/**
 * Inputs for cxc's agent hooks in tests: a Claude Code transcript as the hooks read it, and the
 * hook inputs Claude Code writes on stdin.
 */

/**
 * A Claude Code transcript: `turns` prompt/answer pairs (each answer an Edit of `src/f<i>.ts`), the
 * last answer with `tokens` of usage.
 */
export function claudeTranscript(turns: string[], tokens: number): string {
  const lines: string[] = [];
  let parent: string | null = null;
  turns.forEach((prompt, index) => {
    const userId = `u${index}`;
    const assistantId = `a${index}`;
    lines.push(
      JSON.stringify({
        type: "user",
        uuid: userId,
        parentUuid: parent,
        sessionId: "s1",
        timestamp: `2026-12-01T10:0${index}:00.000Z`,
        message: { role: "user", content: prompt },
      }),
      JSON.stringify({
        type: "assistant",
        uuid: assistantId,
        parentUuid: userId,
        sessionId: "s1",
        timestamp: `2026-12-01T10:0${index}:01.000Z`,
        message: {
          id: `m${index}`,
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [
            {
              type: "tool_use",
              id: `t${index}`,
              name: "Edit",
              input: { file_path: `/work/p/src/f${index}.ts`, old_string: "a", new_string: "b" },
            },
          ],
          usage: { input_tokens: 10, cache_read_input_tokens: tokens - 15, output_tokens: 5 },
        },
      }),
    );
    parent = assistantId;
  });
  return `${lines.join("\n")}\n`;
}

/** Claude Code's `Stop` input for session `s1`. */
export function stopInput(path: string, session = "s1"): Record<string, string> {
  return { hook_event_name: "Stop", session_id: session, transcript_path: path, cwd: "/work/p" };
}

/** Claude Code's (or Codex's) `SessionStart` input after a compaction. */
export function compactInput(path: string, session = "s1"): Record<string, string> {
  return {
    hook_event_name: "SessionStart",
    source: "compact",
    session_id: session,
    transcript_path: path,
    cwd: "/work/p",
  };
}
