/**
 * The transcript `cxc mcp` reads, followed as the agent appends to it (docs/recall.md, "What it
 * keeps in memory"). The first call reads the file whole; each later one reads only the bytes
 * appended since, parses the whole lines among them (core/interop/session-lines.ts keeps every
 * parsed record) and converts only those, going on from where the last call's conversion stopped
 * (`SessionLines.events`). The text after the last newline is read as the file's last line at
 * this call (the agent may still be writing it) and read again next time.
 * The file is read whole again when it is another file (device or inode changed: replaced or
 * rotated), when it is shorter than what was read (truncated), or when the bytes just before where
 * the last read ended changed (rewritten in place).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { analyzeRecall, type RecallAnalysis } from "../../core/conversation/recall.js";
import {
  CLAUDE_CODE_LINES,
  CODEX_LINES,
  type SessionFormat,
  SessionLines,
} from "../../core/interop/session-lines.js";

/** Bytes kept from before the end of the last read, to notice a file rewritten in place. */
const CHECK_BYTES = 256;

/** What is kept of one transcript between calls. */
interface Followed {
  readonly dev: number;
  readonly ino: number;
  /** The file's size and time at the last call: both unchanged, the last analysis is reused. */
  readonly size: number;
  readonly mtimeMs: number;
  /** The bytes read and parsed: every line before it is in `lines`. */
  readonly offset: number;
  /** The last bytes before `offset`. */
  readonly check: Buffer;
  readonly lines: SessionLines;
  readonly analysis: RecallAnalysis;
}

/** How a call read the transcript (for the bench and the tests). */
export type TranscriptRead = "unchanged" | "appended" | "whole";

/** The transcripts a server has read (the latest two: a `/clear` starts another), each followed as it grows. */
export class TranscriptFollower {
  readonly #followed = new Map<string, Followed>();
  #lastRead: TranscriptRead | undefined;

  constructor(
    private readonly agent: "claude-code" | "codex",
    private readonly analyze: (lines: SessionLines, fragment: string) => RecallAnalysis,
  ) {}

  /** How the last `analysis` read its file. */
  get lastRead(): TranscriptRead | undefined {
    return this.#lastRead;
  }

  /** The recall analysis of the transcript at `path` as it is now; throws when it cannot be read or converted. */
  analysis(path: string): RecallAnalysis {
    const fd = openSync(path, "r");
    try {
      const stat = fstatSync(fd);
      let kept = this.#followed.get(path);
      if (kept !== undefined && !sameFile(fd, kept, stat)) kept = undefined;
      if (kept !== undefined && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) {
        this.#lastRead = "unchanged";
        return kept.analysis;
      }
      const start = kept?.offset ?? 0;
      const bytes = readRange(fd, start, stat.size);
      const whole = bytes.lastIndexOf(0x0a) + 1;
      const lines = kept?.lines ?? new SessionLines(formatOf(this.agent), path);
      // A line that is not a record keeps nothing of what was appended (the kept state stands).
      const appended = whole === 0 ? { ok: true as const } : lines.append(bytes.toString("utf8", 0, whole));
      if (!appended.ok) throw new Error(appended.message);
      let analysis: RecallAnalysis;
      try {
        analysis = this.analyze(lines, bytes.toString("utf8", whole));
      } catch (error) {
        // The lines are kept but not the offset: the next call reads the file whole again.
        this.#followed.delete(path);
        throw error;
      }
      const offset = start + whole;
      const check =
        whole >= CHECK_BYTES || kept === undefined
          ? Buffer.from(bytes.subarray(Math.max(0, whole - CHECK_BYTES), whole))
          : Buffer.concat([kept.check, bytes.subarray(0, whole)]).subarray(-CHECK_BYTES);
      this.#followed.delete(path);
      this.#followed.set(path, {
        dev: stat.dev,
        ino: stat.ino,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        offset,
        check,
        lines,
        analysis,
      });
      while (this.#followed.size > 2) this.#followed.delete(this.#followed.keys().next().value!);
      this.#lastRead = kept === undefined ? "whole" : "appended";
      return analysis;
    } finally {
      closeSync(fd);
    }
  }
}

/** The recall analysis of a followed transcript, as `cxc conversation import` converts it. */
export function transcriptAnalyzer(
  options: Parameters<typeof analyzeRecall>[1],
): (lines: SessionLines, fragment: string) => RecallAnalysis {
  return (lines, fragment) => {
    const events = lines.events(fragment);
    if (!events.ok) throw new Error(events.message);
    return analyzeRecall(events.value, options);
  };
}

function formatOf(agent: "claude-code" | "codex"): SessionFormat {
  return agent === "codex" ? CODEX_LINES : CLAUDE_CODE_LINES;
}

/** Whether the open file is the one `kept` read, grown or as it was (see the module comment). */
function sameFile(fd: number, kept: Followed, stat: { dev: number; ino: number; size: number }): boolean {
  if (stat.dev !== kept.dev || stat.ino !== kept.ino || stat.size < kept.offset) return false;
  const check = kept.check;
  if (check.length === 0) return true;
  return readRange(fd, kept.offset - check.length, kept.offset).equals(check);
}

/** The bytes of the file from `start` to `end`. */
function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.allocUnsafe(Math.max(0, end - start));
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, start + done);
    if (read === 0) break;
    done += read;
  }
  return buffer.subarray(0, done);
}
