/**
 * A session followed as it grows (core/interop/session-lines.ts), as `cxc mcp` follows the agent's
 * transcript: lines parsed once and kept, appended in pieces, and converted exactly as an import
 * of the whole text converts it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importClaudeCodeSession } from "../../src/core/interop/claude-code.js";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { CLAUDE_CODE_LINES, CODEX_LINES, SessionLines } from "../../src/core/interop/session-lines.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "agents");
const CLAUDE = readFileSync(join(FIXTURES, "claude-code", "session.jsonl"), "utf8");
const CODEX = readFileSync(join(FIXTURES, "codex", "session.jsonl"), "utf8");
const CODEX_ENCRYPTED = readFileSync(join(FIXTURES, "codex-encrypted", "session.jsonl"), "utf8");
const CODEX_MID_TURN = readFileSync(join(FIXTURES, "codex-encrypted", "mid-turn.jsonl"), "utf8");
const CLAUDE_EDITS = readFileSync(join(FIXTURES, "claude-code", "edits.jsonl"), "utf8");

/** What `events` gives, and what `convert` gives for the same lines, for comparison. */
function bothWays(lines: SessionLines, fragment = "") {
  const full = lines.convert(fragment);
  return {
    events: lines.events(fragment),
    expected: full.ok ? { ok: true, value: full.value.conversation.events } : full,
  };
}

/** The text's lines, each with its newline. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n/g) ?? [];
}

/** A session's lines appended in pieces of `sizes` lines (then the rest). */
function follow(lines: SessionLines, text: string, sizes: readonly number[]): void {
  const all = linesOf(text);
  let at = 0;
  for (const size of [...sizes, all.length]) {
    const piece = all.slice(at, at + size).join("");
    at += size;
    if (piece === "") continue;
    const appended = lines.append(piece);
    if (!appended.ok) throw new Error(appended.message);
  }
}

describe("SessionLines", () => {
  it.each([
    ["claude-code", CLAUDE_CODE_LINES, CLAUDE, importClaudeCodeSession],
    ["codex", CODEX_LINES, CODEX, importCodexSession],
  ] as const)(
    "converts %s lines appended in pieces exactly as an import of the whole text (which checks its events against the schemas)",
    (_, format, text, importer) => {
      const expected = importer(text, "session.jsonl");
      expect(expected.ok).toBe(true);
      for (const sizes of [[], [1], [1, 1, 1, 1], [3, 5, 2]]) {
        const lines = new SessionLines(format, "session.jsonl");
        follow(lines, text, sizes);
        expect(lines.length).toBe(linesOf(text).length);
        expect(lines.convert()).toStrictEqual(expected);
      }
    },
  );

  it("reads the text after the last newline as the last line when it is whole, as an import does", () => {
    const all = linesOf(CLAUDE);
    const last = all.at(-1)!.slice(0, -1);
    const lines = new SessionLines(CLAUDE_CODE_LINES, "session.jsonl");
    follow(lines, all.slice(0, -1).join(""), []);
    const whole = lines.convert(last);
    expect(whole).toEqual(importClaudeCodeSession(all.slice(0, -1).join("") + last, "session.jsonl"));
    // Half of it (the agent still writing): left out with a warning, as an import leaves it out.
    const half = lines.convert(last.slice(0, 40));
    expect(half).toEqual(
      importClaudeCodeSession(all.slice(0, -1).join("") + last.slice(0, 40), "session.jsonl"),
    );
    expect(
      half.ok && half.value.warnings.some((warning) => warning.includes("the last line is incomplete")),
    ).toBe(true);
  });

  it("sees what later lines change in earlier turns: Claude Code's compaction appended after the turns it covers", () => {
    const all = linesOf(CLAUDE);
    const boundary = all.findIndex((line) => line.includes('"compact_boundary"'));
    expect(boundary).toBeGreaterThan(0);
    const lines = new SessionLines(CLAUDE_CODE_LINES, "session.jsonl");
    follow(lines, all.slice(0, boundary).join(""), []);
    const before = lines.convert();
    expect(before.ok && before.value.conversation.events.some((event) => event.type === "compaction")).toBe(
      false,
    );
    follow(lines, all.slice(boundary).join(""), []);
    const after = lines.convert();
    expect(after.ok && after.value.conversation.events.some((event) => event.type === "compaction")).toBe(
      true,
    );
    expect(after).toEqual(importClaudeCodeSession(CLAUDE, "session.jsonl"));
  });

  it("keeps nothing of an appended piece with a line that is not a record, and names that line", () => {
    const all = linesOf(CODEX);
    const lines = new SessionLines(CODEX_LINES, "rollout.jsonl");
    follow(lines, all.slice(0, 3).join(""), []);
    const before = lines.convert();
    const appended = lines.append(`${all[3]}{"type": "event_msg", "payload": \n${all[4]}`);
    expect(appended).toEqual({
      ok: false,
      message: expect.stringMatching(/^rollout\.jsonl:5: not valid JSON \(.*\); not a Codex session line$/),
    });
    expect(lines.length).toBe(3);
    expect(lines.convert()).toEqual(before);
    expect(lines.append("[1, 2]\n")).toEqual({
      ok: false,
      message: "rollout.jsonl:4: a Codex session line is a JSON object",
    });
  });

  it("keeps a Claude Code record without its toolUseResult, which the reader never reads", () => {
    const record = { type: "user", uuid: "u", toolUseResult: { stdout: "x".repeat(100) }, message: {} };
    expect(CLAUDE_CODE_LINES.keep(record)).toEqual({ type: "user", uuid: "u", message: {} });
    const plain = { type: "user", uuid: "u", message: {} };
    expect(CLAUDE_CODE_LINES.keep(plain)).toBe(plain);
  });

  it.each([
    ["claude-code", CLAUDE_CODE_LINES, CLAUDE],
    ["claude-code (edits)", CLAUDE_CODE_LINES, CLAUDE_EDITS],
    ["codex", CODEX_LINES, CODEX],
    ["codex (encrypted compaction)", CODEX_LINES, CODEX_ENCRYPTED],
    ["codex (encrypted compaction mid-turn)", CODEX_LINES, CODEX_MID_TURN],
  ] as const)(
    "events of %s, a line at a time, go on from the last call and equal a whole conversion at every line",
    (_, format, text) => {
      const lines = new SessionLines(format, "session.jsonl");
      const resumed: boolean[] = [];
      for (const line of linesOf(text)) {
        expect(lines.append(line).ok).toBe(true);
        const { events, expected } = bothWays(lines);
        expect(events).toEqual(expected);
        if (events.ok) resumed.push(lines.lastConversion === "resumed");
      }
      // Once the session converts, nearly every later line is taken in without converting again.
      expect(resumed.filter(Boolean).length).toBeGreaterThan(resumed.length - 4);
    },
  );

  it("converts again from the first line when the chain moves (a prompt rewound to an earlier turn)", () => {
    const lines = new SessionLines(CLAUDE_CODE_LINES, "session.jsonl");
    follow(lines, CLAUDE, []);
    expect(lines.events().ok).toBe(true);
    const turnOneEnd = "e0fe8999-6fca-4811-b9f6-424b203790f3";
    const record = JSON.parse(
      linesOf(CLAUDE).find(
        (line) => line.includes('"type":"user"') && line.includes('"What should I do first?"'),
      )!,
    );
    const rewound = {
      ...record,
      uuid: "rewound-prompt",
      parentUuid: turnOneEnd,
      message: { role: "user", content: "Start over from here." },
    };
    expect(linesOf(CLAUDE).some((line) => line.includes(`"uuid":"${turnOneEnd}"`))).toBe(true);
    expect(
      lines.append(
        `${JSON.stringify(rewound)}\n${JSON.stringify({ type: "last-prompt", leafUuid: "rewound-prompt" })}\n`,
      ).ok,
    ).toBe(true);
    const { events, expected } = bothWays(lines);
    expect(lines.lastConversion).toBe("whole");
    expect(events).toEqual(expected);
    expect(
      events.ok &&
        events.value.some(
          (event) => event.type === "chat_request" && event.content === "Start over from here.",
        ),
    ).toBe(true);
    expect(
      events.ok &&
        events.value.some(
          (event) => event.type === "chat_request" && event.content === "Is there a changelog?",
        ),
    ).toBe(false);
  });

  it("a whole-JSON fragment is converted with the lines and read again next time; the kept conversion goes on", () => {
    const all = linesOf(CLAUDE);
    const lines = new SessionLines(CLAUDE_CODE_LINES, "session.jsonl");
    follow(lines, all.slice(0, -10).join(""), []);
    lines.events();
    const fragment = all.at(-10)!.slice(0, -1);
    expect(bothWays(lines, fragment).events).toEqual(bothWays(lines, fragment).expected);
    follow(lines, all.slice(-10).join(""), []);
    const { events, expected } = bothWays(lines);
    expect(lines.lastConversion).toBe("resumed");
    expect(events).toEqual(expected);
  });
});
