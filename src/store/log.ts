/**
 * The conversation event log: `events.jsonl`, append-only JSON Lines.
 *
 * Line 1 is a versioned header; every further line is one event. Reading validates every line:
 * a malformed line in the middle is an error naming file and line, never skipped. A final line
 * without its newline is the trace of an append interrupted by a crash (appends write a whole batch
 * and its newlines in one write, then fsync): it is set aside with a warning. The next append, under
 * the lock, moves those bytes to `events.jsonl.torn-<n>` before writing, so nothing is lost and
 * nothing good is overwritten.
 *
 * Validation stamp. Validating every event against the schemas is most of what loading a large
 * log costs, and a log changes only by appends. Every line cxc writes is in canonical form: the
 * exact JSON of the schema's output for it (validated on the way out, see `serializeLines`). When a
 * load validates a whole log and finds every line canonical and none torn, it writes
 * `events.validated.json` naming the file's identity at that moment: inode, size, and modification
 * and change times in nanoseconds. A later load whose file still has exactly that identity reads
 * the lines with `JSON.parse` alone; the schemas would return the same objects. An append by cxc
 * (under the lock) moves the stamp along when it matched before the append. Any other change to
 * the file (an editor, a copy, a truncation) changes its change time, so the next load validates
 * everything again. The stamp is a cache: it is written without fsync, and a missing, torn or
 * stale stamp only means a full validation.
 *
 * The stamp also names the event schemas it was made under (`schemaFingerprint`): an upgrade of
 * cxc that adds a field, changes a default or tightens a check makes every stamp it finds stale,
 * so old logs are validated (and, if still canonical, stamped) again under the new schemas.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  type BigIntStats,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { version as zodVersion } from "zod/v4/core";
import type { ZodMiniType } from "zod/mini";
import {
  type ConversationEvent,
  eventSchemasByKind,
  isCanonicalEvent,
  isKnownEventType,
  LOG_FORMAT_VERSION,
  parseEvent,
  serializeEvent,
} from "../core/conversation/events.js";
import { locateJsonError, MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";
import { CxcError } from "../errors.js";
import { appendDurably, TOO_DEEP, unreadable, writeAll, writeFileAtomic } from "./files.js";
import { EVENTS_FILE } from "./paths.js";
import type { LoadedLog, LogHeader } from "./port.js";

/** The validation stamp beside a log (see the header). */
export const VALIDATED_STAMP_FILE = "events.validated.json";

export function headerLine(id: string, createdAt: string): string {
  const header: LogHeader = {
    cxc: "conversation-log",
    version: LOG_FORMAT_VERSION,
    id,
    created_at: createdAt,
  };
  return `${JSON.stringify(header)}\n`;
}

/** Bytes a staged log gathers before it writes them. */
const STAGED_WRITE_BYTES = 1 << 20;

/**
 * A new log written a batch of events at a time (`Store.stage`), in a staging directory nobody
 * reads: the header, then the events as they come, gathered into large writes; `finish` makes it
 * durable (one fsync). Fails at once if the directory holds a log already.
 */
export class StagedLog {
  /** Events written so far. */
  events = 0;
  private descriptor: number | undefined;
  /** The bytes gathered, encoded line by line as they come (never one string of them all). */
  private buffer = Buffer.allocUnsafe(STAGED_WRITE_BYTES);
  private used = 0;

  constructor(directory: string, id: string, createdAt: string) {
    this.descriptor = openSync(join(directory, EVENTS_FILE), "wx", 0o644);
    this.append(headerLine(id, createdAt), false);
  }

  write(events: readonly ConversationEvent[]): void {
    for (const event of events) this.append(serializeLine(event), true);
    this.events += events.length;
  }

  finish(): void {
    this.flush();
    fsyncSync(this.open());
    this.close();
  }

  close(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
  }

  /** Encodes `text` after the bytes gathered, and a newline after it when `newline`. */
  private append(text: string, newline: boolean): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    const room = text.length * 3 + 1;
    if (this.used + room > this.buffer.length) {
      this.flush();
      if (room > this.buffer.length) this.buffer = Buffer.allocUnsafe(room);
    }
    this.used += this.buffer.write(text, this.used, "utf8");
    if (newline) this.buffer[this.used++] = 0x0a;
  }

  private flush(): void {
    if (this.used === 0) return;
    writeAll(this.open(), this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private open(): number {
    if (this.descriptor === undefined) throw new CxcError("internal", "the staged log is closed");
    return this.descriptor;
  }
}

/**
 * The log lines for `events`, each the canonical JSON of the event: what the schema returns for
 * it, so a later load's validation returns the same object. An event that fails its schema is
 * never written: that is a bug in cxc, reported as an internal error.
 */
export function serializeLines(events: readonly ConversationEvent[]): string {
  let text = "";
  for (const event of events) text += `${serializeLine(event)}\n`;
  return text;
}

/** `serializeLines` of one event, without its newline. */
function serializeLine(event: ConversationEvent): string {
  // An event its schema returned, known by its shape, is written as it is (events.ts).
  let checked = event;
  if (!isCanonicalEvent(event)) {
    const parsed = parseEvent(serializeEvent(event));
    if (!parsed.ok) throw new CxcError("internal", `refusing to write an invalid event: ${parsed.error}`);
    checked = parsed.event;
  }
  const line = JSON.stringify(serializeEvent(checked));
  // What no load would accept is never written (the model's tool arguments are checked first).
  if (nestsDeeperThan(line, MAX_JSON_DEPTH))
    throw new CxcError("internal", `refusing to write an event ${TOO_DEEP}`);
  return line;
}

/** Reads a log: validated line by line, unless its validation stamp matches (see the header). */
export function readLog(directory: string): LoadedLog {
  const path = join(directory, EVENTS_FILE);
  let bytes: Buffer;
  let identity: string;
  // Whether the file kept the identity it had while it was read: only then may a stamp name it.
  let stable: boolean;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    const stats = fstatSync(descriptor, { bigint: true });
    identity = identityOf(stats);
    // At most the bytes the identity describes: an append racing this read is left for next time.
    // Fewer, if a writer cut a torn tail meanwhile (readers take no lock): what is there is read.
    const size = Number(stats.size);
    bytes = Buffer.allocUnsafe(size);
    const read = readUpTo(descriptor, bytes, size);
    bytes = bytes.subarray(0, read);
    stable = read === size && identityOf(fstatSync(descriptor, { bigint: true })) === identity;
  } catch (error) {
    throw error instanceof CxcError ? error : unreadable(path, error);
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
  // A stamp names a file without a torn tail, and such a file only ever grows: the bytes below
  // the stamped size cannot change under a reader.
  const trusted = readStamp(directory) === identity;
  const log = parseLog(bytes, path, { trusted });
  if (!trusted && stable && log.canonical && log.warnings.length === 0) writeStamp(directory, identity);
  return log;
}

/** Reads up to `length` bytes from the start of the file; fewer if it ends first. */
function readUpTo(descriptor: number, buffer: Buffer, length: number): number {
  let offset = 0;
  while (offset < length) {
    const read = readSync(descriptor, buffer, offset, length - offset, offset);
    if (read === 0) break;
    offset += read;
  }
  return offset;
}

export interface ParseLogOptions {
  /**
   * The lines are known to be valid and canonical (the validation stamp matched): parse them with
   * `JSON.parse` alone.
   */
  readonly trusted?: boolean;
}

export interface ParsedLog extends LoadedLog {
  /** Every event line is exactly the JSON of its validated event (false when `trusted`). */
  readonly canonical: boolean;
}

export function parseLog(content: string | Buffer, path: string, options: ParseLogOptions = {}): ParsedLog {
  const warnings: string[] = [];
  const { lines, tornBytes } = typeof content === "string" ? splitText(content) : splitBytes(content);
  const lineCount = lines.length;
  if (tornBytes > 0) {
    warnings.push(
      `${path}: the last line (${tornBytes} bytes) was cut off by an interrupted write and is set aside; the events before it are intact`,
    );
  }
  if (lineCount === 0)
    throw new CxcError("corrupt-log", `${path}: the log has no header line`, { hint: recoverHint(path) });
  const header = parseHeader(lines.at(0), path);
  const events: ConversationEvent[] = [];
  const trusted = options.trusted === true;
  let canonical = !trusted;
  for (let index = 1; index < lineCount; index++) {
    const line = lines.at(index);
    if (line.trim() === "") {
      canonical = false;
      continue;
    }
    // The store's one depth limit (files.ts), before anything parses the line or walks it:
    // a line nested thousands of levels deep would overflow the stack of the canonical check.
    if (!trusted && nestsDeeperThan(line, MAX_JSON_DEPTH)) throw corruptLine(path, index + 1, TOO_DEEP);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Name the column and a reason, never a snippet of the line (JSON.parse's message quotes it).
      const error = locateJsonError(line);
      const where = error === undefined ? "" : `:${error.column}`;
      throw corruptLine(path, `${index + 1}${where}`, `not valid JSON (${error?.reason ?? "unreadable"})`);
    }
    if (trusted) {
      const record = value as Record<string, unknown>;
      events.push(
        isKnownEventType(record.type)
          ? (record as unknown as ConversationEvent)
          : { type: "unknown", raw: record },
      );
      continue;
    }
    const parsed = parseEvent(value);
    if (!parsed.ok) {
      if (parsed.newer === true) {
        throw new CxcError("unsupported-version", `${path}:${index + 1}: ${parsed.error}`, {
          hint: "upgrade cxc to read this conversation; nothing was changed",
        });
      }
      throw corruptLine(path, index + 1, parsed.error);
    }
    if (canonical && JSON.stringify(serializeEvent(parsed.event)) !== line) canonical = false;
    events.push(parsed.event);
  }
  return { header, events, warnings, canonical };
}

interface SplitLines {
  /** The complete lines, without their newlines. */
  readonly lines: { readonly length: number; at(index: number): string };
  /** The size in bytes of a final line without its newline (0 when the log ends with one). */
  readonly tornBytes: number;
}

function splitText(text: string): SplitLines {
  const lastNewline = text.lastIndexOf("\n");
  const tornBytes =
    lastNewline === text.length - 1 ? 0 : Buffer.byteLength(text.slice(lastNewline + 1), "utf8");
  const split = text.slice(0, lastNewline + 1).split("\n");
  split.pop(); // the empty string after the final newline
  return { lines: { length: split.length, at: (index) => split[index]! }, tornBytes };
}

/**
 * Splits raw log bytes into lines, each decoded only when it is read: V8 keeps a line of ASCII
 * (most of a log) as a one-byte string, where decoding the whole file at once would make every
 * line as wide as its widest character, and a line read and parsed at once is garbage before the
 * next collection, instead of a copy the collector carries along. A newline byte never occurs
 * inside a multi-byte UTF-8 sequence.
 */
function splitBytes(bytes: Buffer): SplitLines {
  const ends: number[] = [];
  for (let end = bytes.indexOf(0x0a); end >= 0; end = bytes.indexOf(0x0a, end + 1)) ends.push(end);
  const complete = ends.length === 0 ? 0 : ends[ends.length - 1]! + 1;
  return {
    lines: {
      length: ends.length,
      at: (index) => bytes.toString("utf8", index === 0 ? 0 : ends[index - 1]! + 1, ends[index]),
    },
    tornBytes: bytes.length - complete,
  };
}

/** A log file's identity for the validation stamp: inode, size, modification and change times. */
function identityOf(stats: BigIntStats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * A fingerprint of event schemas: a hash of what zod keeps as their definitions (`_zod.def`: kinds,
 * fields, optionality, defaults, checks and their limits), with the source text of refinements,
 * and zod's version. Any change to what validating a line accepts or returns changes it (and so
 * may a change that does not: that costs one full validation per log, nothing else).
 */
export function schemaFingerprint(schemas: Readonly<Record<string, ZodMiniType>>): string {
  const description = JSON.stringify([zodVersion, schemas], (_key, value: unknown) => {
    if (typeof value === "function") return String(value);
    if (typeof value === "object" && value !== null && "_zod" in value) {
      return (value as ZodMiniType)._zod.def;
    }
    return value;
  });
  // FNV-1a (32 bits): the stamp only asks "the same schemas as when it was written?".
  let hash = 0x811c9dc5;
  for (let index = 0; index < description.length; index++) {
    hash ^= description.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${(hash >>> 0).toString(16).padStart(8, "0")}-${description.length}`;
}

/**
 * `schemaFingerprint(eventSchemasByKind())`, computed by the build (tsup.config.ts defines it), since
 * computing it costs a command a few milliseconds; where no build defined it (tests that run the
 * sources), it is computed on first use.
 */
declare const CXC_EVENT_SCHEMA_FINGERPRINT: string | undefined;

let currentFingerprint: string | undefined;

/** The fingerprint of this cxc's event schemas. */
function eventSchemaFingerprint(): string {
  currentFingerprint ??=
    typeof CXC_EVENT_SCHEMA_FINGERPRINT === "string"
      ? CXC_EVENT_SCHEMA_FINGERPRINT
      : schemaFingerprint(eventSchemasByKind());
  return currentFingerprint;
}

/** The log identity a stamp names, if it was made under this cxc's event schemas. */
function readStamp(directory: string): string | undefined {
  try {
    const value = JSON.parse(readFileSync(join(directory, VALIDATED_STAMP_FILE), "utf8")) as {
      log?: unknown;
      schemas?: unknown;
    };
    if (value.schemas !== eventSchemaFingerprint()) return undefined;
    return typeof value.log === "string" ? value.log : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the stamp (temporary file, then rename; no fsync: it is a cache). Never throws. */
function writeStamp(directory: string, identity: string): void {
  const path = join(directory, VALIDATED_STAMP_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify({ log: identity, schemas: eventSchemaFingerprint() })}\n`);
    renameSync(temporary, path);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // A read-only store keeps no stamp; loads validate every time.
    }
  }
}

function parseHeader(line: string, path: string): LogHeader {
  let value: Partial<LogHeader>;
  try {
    value = JSON.parse(line) as Partial<LogHeader>;
  } catch {
    throw corruptLine(path, 1, "the header line is not valid JSON");
  }
  if (value.cxc !== "conversation-log" || typeof value.version !== "number" || typeof value.id !== "string") {
    throw corruptLine(path, 1, "the header line is not a cxc conversation-log header");
  }
  if (value.version > LOG_FORMAT_VERSION) {
    throw new CxcError(
      "unsupported-version",
      `${path} was written by a newer cxc (log format ${value.version}; this cxc reads up to ${LOG_FORMAT_VERSION})`,
      {
        hint: "upgrade cxc to read this conversation",
      },
    );
  }
  return {
    cxc: "conversation-log",
    version: value.version,
    id: value.id,
    created_at: String(value.created_at ?? ""),
  };
}

/**
 * Appends events durably. The caller holds the conversation's lock. A torn tail left by an earlier
 * crash is first copied to a side file and cut off, so the new lines start on a line boundary.
 */
export function appendEvents(directory: string, events: readonly ConversationEvent[]): void {
  if (events.length === 0) return;
  const path = join(directory, EVENTS_FILE);
  const lines = serializeLines(events);
  setAsideTornTail(path);
  try {
    const stamped = readStamp(directory) === identityOf(statSync(path, { bigint: true }));
    appendDurably(path, lines);
    // The log was valid and canonical before, and these lines are: so is the whole.
    if (stamped) writeStamp(directory, identityOf(statSync(path, { bigint: true })));
  } catch (error) {
    throw unreadable(path, error);
  }
}

/** Moves an unterminated final line to `events.jsonl.torn-<n>`; returns its path if there was one. */
export function setAsideTornTail(path: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, "r+");
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const size = fstatSync(descriptor).size;
    if (size === 0) return undefined;
    const last = Buffer.alloc(1);
    readExactly(descriptor, last, 1, size - 1);
    if (last[0] === 0x0a) return undefined;
    const cut = findLineStart(descriptor, size);
    // Truncating to zero would drop the header and leave a log nothing can read: refuse instead.
    if (cut === 0) throw corruptLine(path, 1, "the header line is cut off (no complete line in the log)");
    const tail = Buffer.alloc(size - cut);
    readExactly(descriptor, tail, tail.length, cut);
    let sidePath = "";
    for (let counter = 1; ; counter++) {
      sidePath = `${path}.torn-${counter}`;
      if (!existsSync(sidePath)) break;
    }
    // The raw bytes, not decoded text: a tail cut inside a multi-byte character must be kept exactly.
    writeFileAtomic(sidePath, tail);
    ftruncateSync(descriptor, cut);
    return sidePath;
  } finally {
    closeSync(descriptor);
  }
}

const SCAN_CHUNK_BYTES = 65_536;

/**
 * The offset just after the last newline before `size` (0 if there is none). Reads backwards in
 * chunks, so recovering a torn tail costs the size of the tail, not of the whole log.
 */
function findLineStart(descriptor: number, size: number): number {
  const chunk = Buffer.alloc(SCAN_CHUNK_BYTES);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - SCAN_CHUNK_BYTES);
    readExactly(descriptor, chunk, end - start, start);
    const index = chunk.subarray(0, end - start).lastIndexOf(0x0a);
    if (index >= 0) return start + index + 1;
    end = start;
  }
  return 0;
}

/** Reads exactly `length` bytes at `position` (one readSync may return fewer). */
function readExactly(descriptor: number, buffer: Buffer, length: number, position: number): void {
  let offset = 0;
  while (offset < length) {
    const read = readSync(descriptor, buffer, offset, length - offset, position + offset);
    if (read === 0) throw new Error(`unexpected end of file at byte ${position + offset}`);
    offset += read;
  }
}

function corruptLine(path: string, line: number | string, reason: string): CxcError {
  return new CxcError("corrupt-log", `${path}:${line}: ${reason}`, { hint: recoverHint(path) });
}

function recoverHint(path: string): string {
  return `cxc never rewrites a log to repair it; fix or remove that line by hand (keep a copy of ${path} first)`;
}
