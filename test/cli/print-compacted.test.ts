/**
 * The projected views: `print --compacted` (headers in raw turn numbers, selection on raw numbers
 * before projection, a summary turn shown when its origin overlaps), `print --format
 * anthropic|openai` (the projected view as a request body), and `fork -k`.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { compactionsOf, homeWithSample } from "./compact-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

async function compactSample(): Promise<void> {
  const strip = await home.run(["conversation", "compact", "-r", "-t", "--turn", "2..3"]);
  expect(strip.exitCode, strip.stderr).toBe(0);
  const summary = await home.run(["conversation", "compact", "-m", "builtin/digest", "-k", "s:5..8"]);
  expect(summary.exitCode, summary.stderr).toBe(0);
}

describe("cxc conversation print --compacted", () => {
  it("prints the projected view with raw turn numbers in the headers", async () => {
    home = await homeWithSample();
    await compactSample();
    const result = await home.run(["--format", "json", "conversation", "print", "--compacted"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    const headers = document.turns.map((turn: { header: string }) => turn.header);
    expect(headers.slice(0, 6)).toEqual([
      "turn 1",
      "turn 2",
      "turn 3",
      "turn 4",
      "turns 5..8 (summary)",
      "turn 9",
    ]);
    expect(headers).toHaveLength(17);
    expect(document.turns[4].turns).toEqual([5, 6, 7, 8]);
    const stripped = JSON.stringify(document.turns[1].events);
    expect(stripped).toContain("[compacted] ");
    expect(stripped).not.toContain('"reasoning"');

    const text = await home.run(["conversation", "print", "--compacted", "--turn", "6"]);
    expect(text.stdout).toMatch(
      /^── turns 5..8 \(summary\) ──\n\[user\]\n\[Summary of previous conversation\]\n/,
    );
    expect(text.stdout).not.toContain("── turn 9");
    const selected = await home.run([
      "--format",
      "json",
      "conversation",
      "print",
      "--compacted",
      "--turn",
      "4..9",
    ]);
    expect(JSON.parse(selected.stdout).turns.map((turn: { header: string }) => turn.header)).toEqual([
      "turn 4",
      "turns 5..8 (summary)",
      "turn 9",
    ]);
    const none = await home.run(["conversation", "print", "--compacted", "--last", "0"]);
    expect(none.stdout).toBe("");
  });

  it("prints the projected view as an Anthropic, Chat Completions or Responses request body", async () => {
    home = await homeWithSample();
    await compactSample();
    const anthropic = await home.run(["--format", "anthropic", "conversation", "print"]);
    expect(anthropic.exitCode, anthropic.stderr).toBe(0);
    const body = JSON.parse(anthropic.stdout);
    expect(body.model).toBe("claude-sonnet-4-6");
    expect(body.messages[0].role).toBe("user");
    const messages = JSON.stringify(body.messages);
    expect(messages).toContain("[Summary of previous conversation]");
    expect(messages).toContain("## Digest of turns 5..8 (builtin/digest)");
    for (let position = 1; position < body.messages.length; position++) {
      expect(body.messages[position].role).not.toBe(body.messages[position - 1].role);
    }
    const openai = await home.run([
      "--format",
      "openai",
      "-c",
      "assistant.instructions=Be brief.",
      "conversation",
      "print",
      "--last",
      "2",
    ]);
    expect(openai.exitCode, openai.stderr).toBe(0);
    const chat = JSON.parse(openai.stdout);
    expect(chat.model).toBe("gpt-5");
    expect(chat.messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(chat.messages[1]).toEqual({ role: "user", content: "Commit it with a sensible message." });
    expect(JSON.stringify(chat.messages)).not.toContain("Summary of previous conversation");
    const responses = await home.run([
      "--format",
      "responses",
      "-c",
      "assistant.instructions=Be brief.",
      "conversation",
      "print",
    ]);
    expect(responses.exitCode, responses.stderr).toBe(0);
    const wire = JSON.parse(responses.stdout);
    expect(wire).toMatchObject({ model: "gpt-5", instructions: "Be brief.", stream: true, store: false });
    expect(wire.input[0]).toMatchObject({ type: "message", role: "user" });
    expect(JSON.stringify(wire.input)).toContain("## Digest of turns 5..8 (builtin/digest)");
    expect(wire.input).toContainEqual({
      type: "message",
      role: "user",
      content: "Commit it with a sensible message.",
    });
    const refused = await home.run(["--format", "codex", "conversation", "print"]);
    expect(refused.exitCode).toBe(2);
  });
});

describe("cxc conversation fork -k", () => {
  it("compacts the new fork after filtering, silently, leaving the source alone", async () => {
    home = await homeWithSample();
    const result = await home.run([
      "--format",
      "json",
      "conversation",
      "fork",
      "--first",
      "10",
      "-k",
      "r+t:..-2",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    const fork = JSON.parse(result.stdout);
    expect(fork.turns).toBe(10);
    expect(compactionsOf(home)).toEqual([]);
    const [compaction, ...rest] = compactionsOf(home, fork.id);
    expect(rest).toEqual([]);
    expect(compaction).toMatchObject({ from_turn: 0, to_turn: 7, reasoning: "strip", source: "user" });
  });
});
