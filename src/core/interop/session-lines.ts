/**
 * A session file followed as it grows (`cxc mcp` reads the agent's transcript at every recall).
 * Pure: the shell reads the bytes appended since the last call (src/cli/mcp/transcript.ts) and
 * hands over the whole lines among them; `SessionLines` parses each line once and keeps its record,
 * and `convert` runs the reader's two passes over the kept records, without the text: pass 1 builds
 * its small index again, pass 2 maps the records the plan wants. Both are cheap beside reading and
 * parsing the file (bench/recall.mjs measures them), and running them whole keeps every rule of the
 * readers (a compaction appended later covers earlier turns; a rewind moves the chain's leaf) with
 * no second, incremental version of them to keep in step.
 */
import type { ConversationEvent } from "../conversation/events.js";
import type { Parsed } from "../parsed.js";
import { isOneJsonValue } from "../json-syntax.js";
import {
  type AgentImport,
  type AgentFormat,
  convertSession,
  parseRecordLine,
  type SessionConverter,
  type SessionLineIndexer,
} from "./agent-session.js";
import { ClaudeCodeSessionReader, withoutToolUseResult } from "./claude-code.js";
import { isRecord } from "./jp-encoding.js";
import { CodexSessionReader } from "./codex.js";

type Json = Record<string, unknown>;

/** One line as parsed: its record, or undefined for a blank line. */
export type ParsedLine = Json | undefined;

/** How one agent's session is followed: its reader, and what of a record is worth keeping. */
export interface SessionFormat {
  readonly agent: AgentFormat;
  /**
   * A fresh pass-1 reader that keeps no records of its own (`SessionLines` holds them), whose
   * converter takes records (`SessionConverter.addRecord`), and that does not check its events
   * against the event schemas: they are read for recall, never written.
   */
  readonly reader: (label: string) => SessionLineIndexer;
  /** The part of a record the reader uses (the rest is dropped to save memory). */
  readonly keep: (record: Json) => Json;
}

/** Claude Code's JSONL: a record's `toolUseResult` (a second copy of a tool's output, for its UI) is never read. */
export const CLAUDE_CODE_LINES: SessionFormat = {
  agent: "claude-code",
  reader: (label) => unvalidated(new ClaudeCodeSessionReader(label, false)),
  keep: withoutToolUseResult,
};

/** The Codex rollout. */
export const CODEX_LINES: SessionFormat = {
  agent: "codex",
  reader: (label) => unvalidated(new CodexSessionReader(label, false)),
  keep: (record) => record,
};

/** The converter `events` goes on with, and what it has handed out. */
interface LiveConversion {
  readonly converter: SessionConverter;
  /** The lines fed to it (every kept line up to this one was offered). */
  converted: number;
  /** The events it handed out so far (`peek` adds the ones it still holds). */
  readonly events: ConversationEvent[];
}

/** The reader, its events not checked against the event schemas (`SessionLineIndexer.validateEvents`). */
function unvalidated<T extends SessionLineIndexer>(reader: T): T {
  reader.validateEvents = false;
  return reader;
}

/** The parsed lines of one session file, in order; line N of the file is `lines[N - 1]`. */
export class SessionLines {
  readonly #lines: ParsedLine[] = [];
  #live: LiveConversion | undefined;
  /** How the last `events` call converted: going on from the call before, or from the first line. */
  lastConversion: "resumed" | "whole" | undefined;

  constructor(
    private readonly format: SessionFormat,
    private readonly label: string,
  ) {}

  /** How many lines are kept. */
  get length(): number {
    return this.#lines.length;
  }

  /**
   * Parses and keeps `text`: whole lines, each ending in a newline (the shell keeps the text after
   * the last newline back: the agent may still be writing it). An error names the first line that
   * is not a record of the agent's, and then nothing of `text` is kept.
   */
  append(text: string): Parsed<void> {
    const parts = text.split("\n");
    parts.pop();
    const parsed: ParsedLine[] = [];
    for (const part of parts) {
      // The common case without building the line's `file:line` name (an error names it).
      let value: unknown;
      try {
        value = JSON.parse(part);
      } catch {
        value = undefined;
      }
      if (isRecord(value) && typeof value.type === "string") {
        parsed.push(this.format.keep(value));
        continue;
      }
      if (part.trim() === "") {
        parsed.push(undefined);
        continue;
      }
      const where = `${this.label}:${this.#lines.length + parsed.length + 1}`;
      const record = parseRecordLine(part, where, this.format.agent);
      if (!record.ok) return record;
      parsed.push(this.format.keep(record.value));
    }
    for (const line of parsed) this.#lines.push(line);
    return { ok: true, value: undefined };
  }

  /**
   * The session as `cxc conversation import` converts it: the kept lines, then `fragment`, the
   * text after the file's last newline (read as a line when it is whole JSON, as an import reads
   * it, else left out with a warning).
   */
  /**
   * The events of `convert(fragment)`, converting only the lines kept since the last call when it
   * can: pass 1 runs again over every kept record (a small index: the chain, the session's
   * identity), and when its plan converts the lines fed before as the last plan did (the reader's
   * `rebase` says), the converter kept from the last call goes on with the new lines and hands out
   * what it still holds without finishing (`peek`). Otherwise (the chain moved to another branch,
   * an encrypted compaction changed how Codex is read) it converts from the first line again. A
   * `fragment` that is whole JSON is converted with the rest by `convert`, the kept converter left
   * as it was: the fragment is read again next time.
   */
  events(fragment = ""): Parsed<readonly ConversationEvent[]> {
    if (fragment.trim() !== "" && isOneJsonValue(fragment)) {
      this.lastConversion = "whole";
      const whole = this.convert(fragment);
      return whole.ok ? { ok: true, value: whole.value.conversation.events } : whole;
    }
    const lines = this.#lines;
    const indexer = this.format.reader(this.label);
    for (const line of lines) {
      const added = indexer.addParsedLine(line);
      if (!added.ok) return added;
    }
    const plan = indexer.finish();
    if (!plan.ok) return plan;
    const fresh = plan.value.convert();
    let live = this.#live;
    this.#live = undefined;
    const resumed = live !== undefined && live.converter.rebase?.(fresh, live.converted) === true;
    if (!resumed || live === undefined) live = { converter: fresh, converted: 0, events: [] };
    this.lastConversion = resumed ? "resumed" : "whole";
    const last = Math.min(lines.length, plan.value.lines);
    for (let line = live.converted + 1; line <= last; line++) {
      if (!plan.value.wants(line)) continue;
      const converted = convertRecord(live.converter, lines[line - 1], line);
      if (!converted.ok) return converted;
      for (const event of converted.value) live.events.push(event);
    }
    live.converted = lines.length;
    if (live.converter.peek === undefined)
      throw new Error("SessionLines needs a reader whose converter can peek");
    const held = live.converter.peek();
    if (!held.ok) return held;
    this.#live = live;
    return {
      ok: true,
      value: held.value.length === 0 ? live.events.slice() : live.events.concat(held.value),
    };
  }

  convert(fragment = ""): Parsed<AgentImport> {
    const lines = this.#lines;
    const indexer = this.format.reader(this.label);
    for (const line of lines) {
      const added = indexer.addParsedLine(line);
      if (!added.ok) return added;
    }
    const last = indexer.addFinalFragment(fragment);
    if (!last.ok) return last;
    return convertSession(indexer, lines.length + 1, (converter, line) =>
      line > lines.length
        ? converter.addLine(fragment, line)
        : convertRecord(converter, lines[line - 1], line),
    );
  }
}

function convertRecord(
  converter: SessionConverter,
  record: ParsedLine,
  line: number,
): Parsed<ConversationEvent[]> {
  if (record === undefined) return { ok: true, value: [] };
  if (converter.addRecord === undefined)
    throw new Error("SessionLines needs a reader whose converter takes parsed records");
  return converter.addRecord(record, line);
}
