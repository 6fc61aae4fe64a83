/**
 * How `cxc mcp` follows its transcript (src/cli/mcp/transcript.ts): the first call reads it whole,
 * a later one only the bytes appended since (whole lines; the text after the last newline is read
 * at that call and again at the next), and a file replaced, truncated or rewritten in place is
 * read whole again. The analyzer here counts what it is handed; test/cli/mcp.test.ts runs the
 * server itself.
 */
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RecallAnalysis } from "../../src/core/conversation/recall.js";
import { analyzeRecall, recallIndexText } from "../../src/core/conversation/recall.js";
import type { SessionLines } from "../../src/core/interop/session-lines.js";
import { TranscriptFollower, transcriptAnalyzer } from "../../src/cli/mcp/transcript.js";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { PROJECT_ROOT } from "../helpers/cli.js";

const FIXTURE = readFileSync(
  join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl"),
  "utf8",
);
const LINES = FIXTURE.match(/[^\n]*\n/g)!;

let directory: string;
let path: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "cxc-transcript-"));
  path = join(directory, "session.jsonl");
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** A follower whose analyzer records the lines kept and the fragment at each call. */
function follower() {
  const seen: { lines: number; fragment: string; events: number }[] = [];
  const follow = new TranscriptFollower(
    "claude-code",
    (lines: SessionLines, fragment: string): RecallAnalysis => {
      const imported = lines.convert(fragment);
      if (!imported.ok) throw new Error(imported.message);
      seen.push({ lines: lines.length, fragment, events: imported.value.conversation.events.length });
      return analyzeRecall(imported.value.conversation.events);
    },
  );
  return { follow, seen };
}

describe("TranscriptFollower", () => {
  it("reads the file whole once, then only what was appended; an unchanged file is not read again", () => {
    writeFileSync(path, LINES.slice(0, 20).join(""));
    const { follow, seen } = follower();
    const first = follow.analysis(path);
    expect(follow.lastRead).toBe("whole");
    expect(seen.at(-1)).toMatchObject({ lines: 20, fragment: "" });
    expect(follow.analysis(path)).toBe(first);
    expect(follow.lastRead).toBe("unchanged");
    expect(seen).toHaveLength(1);

    // Half a line: read at this call as the last line, not kept.
    const next = LINES[20]!;
    appendFileSync(path, next.slice(0, 30));
    follow.analysis(path);
    expect(follow.lastRead).toBe("appended");
    expect(seen.at(-1)).toMatchObject({ lines: 20, fragment: next.slice(0, 30) });
    appendFileSync(path, next.slice(30) + LINES.slice(21).join(""));
    follow.analysis(path);
    expect(follow.lastRead).toBe("appended");
    expect(seen.at(-1)).toMatchObject({ lines: LINES.length, fragment: "" });
    // The same conversation as a follower that reads the whole file at once.
    const { follow: fresh, seen: freshSeen } = follower();
    fresh.analysis(path);
    expect(freshSeen[0]).toEqual(seen.at(-1));
  });

  it("reads a file replaced, truncated or rewritten in place whole again", () => {
    writeFileSync(path, FIXTURE);
    const { follow, seen } = follower();
    follow.analysis(path);
    // Replaced by another file (another inode), longer than the first.
    const replacement = join(directory, "other.jsonl");
    writeFileSync(replacement, FIXTURE + LINES.slice(0, 4).join(""));
    renameSync(replacement, path);
    follow.analysis(path);
    expect(follow.lastRead).toBe("whole");
    expect(seen.at(-1)!.lines).toBe(LINES.length + 4);
    // Truncated in place.
    writeFileSync(path, LINES.slice(0, 30).join(""));
    follow.analysis(path);
    expect(follow.lastRead).toBe("whole");
    expect(seen.at(-1)!.lines).toBe(30);
    // Rewritten in place and grown: the last bytes before where the last read ended changed
    // (the end of line 30; a change further back than CHECK_BYTES is not seen: docs/recall.md).
    const kept = LINES.slice(0, 30).join("");
    const at = kept.search(/[a-z][^a-z]*$/);
    expect(kept.length - at).toBeLessThan(256);
    const rewritten = `${kept.slice(0, at)}${kept[at]!.toUpperCase()}${kept.slice(at + 1)}`;
    writeFileSync(path, rewritten + LINES.slice(30).join(""));
    follow.analysis(path);
    expect(follow.lastRead).toBe("whole");
    expect(seen.at(-1)!.lines).toBe(LINES.length);
  });

  it("an appended line that is not a record is an error naming it; what was kept stands", () => {
    writeFileSync(path, FIXTURE);
    const { follow, seen } = follower();
    follow.analysis(path);
    appendFileSync(path, '{"type": "user", \n');
    expect(() => follow.analysis(path)).toThrow(
      new RegExp(`^${path.replaceAll("/", "\\/")}:${LINES.length + 1}: not valid JSON`),
    );
    expect(seen).toHaveLength(1);
  });

  it("follows a Codex rollout as the server does: Codex's compaction appended hides the turns before it", () => {
    const rollout = readFileSync(join(PROJECT_ROOT, "fixtures", "agents", "codex", "session.jsonl"), "utf8");
    const lines = rollout.match(/[^\n]*\n/g)!;
    const compacted = lines.findIndex((line) => line.includes('"type":"compacted"'));
    expect(compacted).toBeGreaterThan(0);
    writeFileSync(path, lines.slice(0, compacted).join(""));
    const follow = new TranscriptFollower("codex", transcriptAnalyzer({}));
    expect(recallIndexText(follow.analysis(path))).toBeUndefined();
    appendFileSync(path, lines.slice(compacted).join(""));
    const analysis = follow.analysis(path);
    expect(follow.lastRead).toBe("appended");
    const imported = importCodexSession(rollout, path);
    expect(imported.ok && analysis.events).toStrictEqual(imported.ok && imported.value.conversation.events);
    const whole = new TranscriptFollower("codex", transcriptAnalyzer({})).analysis(path);
    expect(recallIndexText(analysis)).toBe(recallIndexText(whole));
    expect(recallIndexText(analysis)).toMatch(/^\[Recall index/);
  });
});
