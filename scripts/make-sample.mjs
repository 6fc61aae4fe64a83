#!/usr/bin/env node
/**
 * Generates fixtures/sample/: a realistic, hand-written coding session in cxc's log format
 * (a user and an assistant add a `--since` filter to `logcat`, a small TypeScript CLI).
 *
 * Deterministic: timestamps advance by fixed steps from a fixed start and ids are ULIDs built from
 * those timestamps plus a seeded generator, so re-running the script reproduces the files byte for
 * byte. Run `node scripts/make-sample.mjs` from the project root and commit both outputs
 * (`--out DIR` writes them to another directory instead).
 *
 * The long tool outputs (test runs, file listings, log excerpts) are built by small helpers so the
 * content stays reviewable here instead of being pasted as walls of text. The file is long because
 * it is mostly data: the project files of `logcat` and the script of the twenty turns.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// `--out DIR` writes elsewhere (the fixture test regenerates into a temp directory and compares).
const outArgument = process.argv.indexOf("--out");
const outputDirectory = outArgument > 0 ? process.argv[outArgument + 1] : join(root, "fixtures/sample");
const CONVERSATION_ID = "01jsample0000";
const TITLE = "Add a --since filter to logcat";
const START_MICROS = Date.UTC(2026, 2, 10, 9, 0, 0) * 1000;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A tiny xorshift generator: ULID randomness that is the same on every run. */
function createSeededGenerator(seed) {
  let state = seed >>> 0;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

function encodeTime(milliseconds) {
  let value = milliseconds;
  let text = "";
  for (let position = 0; position < 10; position++) {
    text = CROCKFORD[value % 32] + text;
    value = Math.floor(value / 32);
  }
  return text;
}

/** RFC 3339 UTC with microseconds, e.g. `2026-03-10T09:00:00.000123Z`. */
function formatMicros(micros) {
  const milliseconds = Math.floor(micros / 1000);
  const iso = new Date(milliseconds).toISOString();
  const fraction = String(micros % 1_000_000).padStart(6, "0");
  return `${iso.slice(0, 19)}.${fraction}Z`;
}

function createClock() {
  const nextRandom = createSeededGenerator(0x5eed1234);
  let micros = START_MICROS;
  let lastMillis = -1;
  let counter = 0;
  return {
    /** Advances the clock by `seconds` (fractional allowed) plus a few microseconds. */
    advance(seconds) {
      micros += Math.round(seconds * 1_000_000) + 7;
    },
    now() {
      return formatMicros(micros);
    },
    /** A ULID for the current time; ids within one millisecond stay sorted by a counter. */
    nextId() {
      const milliseconds = Math.floor(micros / 1000);
      counter = milliseconds === lastMillis ? counter + 1 : 0;
      lastMillis = milliseconds;
      let randomPart = "";
      for (let position = 0; position < 12; position++) randomPart += CROCKFORD[nextRandom() % 32];
      let counterPart = "";
      let value = counter;
      for (let position = 0; position < 4; position++) {
        counterPart = CROCKFORD[value % 32] + counterPart;
        value = Math.floor(value / 32);
      }
      return encodeTime(milliseconds) + counterPart + randomPart;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The logcat project as the assistant finds it (and as it changes during the session).
// ---------------------------------------------------------------------------------------------

const PACKAGE_JSON = `{
  "name": "logcat",
  "version": "0.4.2",
  "description": "Filter and pretty-print structured application logs",
  "type": "module",
  "bin": { "logcat": "dist/cli.js" },
  "files": ["dist"],
  "engines": { "node": ">=20" },
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "test": "vitest run",
    "typecheck": "tsc --noEmit",
    "lint": "biome check src test"
  },
  "devDependencies": {
    "@biomejs/biome": "1.9.4",
    "@types/node": "20.14.10",
    "typescript": "5.5.4",
    "vitest": "2.0.5"
  }
}
`;

const PARSE_LINE_BEFORE = `/**
 * Parses one line of an application log into a record.
 *
 * The expected shape is \`<timestamp> <LEVEL> [<logger>] <message>\`, for example
 * \`2026-03-09T17:04:11.532Z INFO [http] GET /health 200 3ms\`. Lines that do not match (stack
 * traces, wrapped JSON) become records with no timestamp and no level, so they are kept and can be
 * attached to the record above them by the caller.
 */
export type Level = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

export interface LogRecord {
  /** When the line was written, or undefined for continuation lines. */
  timestamp: Date | undefined;
  level: Level | undefined;
  logger: string | undefined;
  message: string;
  /** The original line, for \`--raw\` output. */
  raw: string;
}

const LINE_PATTERN =
  /^(\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:?\\d{2})?)\\s+(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\\s+\\[([^\\]]+)\\]\\s?(.*)$/;

export function parseLine(raw: string): LogRecord {
  const match = LINE_PATTERN.exec(raw);
  if (!match) {
    return { timestamp: undefined, level: undefined, logger: undefined, message: raw, raw };
  }
  const [, timestampText, levelText, logger, message] = match;
  return {
    timestamp: parseTimestamp(timestampText!),
    level: levelText!.toLowerCase() as Level,
    logger,
    message: message ?? "",
    raw,
  };
}

/** Parses the timestamp at the start of a line; undefined when it is not a valid date. */
export function parseTimestamp(text: string): Date | undefined {
  const date = new Date(text.replace(" ", "T"));
  return Number.isNaN(date.getTime()) ? undefined : date;
}
`;

const PARSE_LINE_AFTER = PARSE_LINE_BEFORE.replace(
  `/** Parses the timestamp at the start of a line; undefined when it is not a valid date. */
export function parseTimestamp(text: string): Date | undefined {
  const date = new Date(text.replace(" ", "T"));`,
  `const HAS_OFFSET = /(?:Z|[+-]\\d{2}:?\\d{2})$/;

/**
 * Parses the timestamp at the start of a line; undefined when it is not a valid date.
 * A timestamp without an offset is read as UTC, not local time: the production log writer runs
 * with TZ=UTC, and reading it as local time shifted \`--since\` by the machine's offset.
 */
export function parseTimestamp(text: string): Date | undefined {
  const normalized = text.replace(" ", "T");
  const date = new Date(HAS_OFFSET.test(normalized) ? normalized : \`\${normalized}Z\`);`,
);

const FILTER_BEFORE = `/**
 * Decides which records are printed. Every option narrows the output; an empty options object
 * keeps everything.
 */
import type { Level, LogRecord } from "./parse-line.js";

export interface FilterOptions {
  /** Keep records at this level or above. Continuation lines follow their parent record. */
  minLevel?: Level;
  /** Keep records whose message matches. */
  grep?: RegExp;
  /** Keep records from this logger or one of its children (\`http\` matches \`http.client\`). */
  logger?: string;
}

const LEVEL_ORDER: Record<Level, number> = {
  trace: 0,
  debug: 1,
  info: 2,
  warn: 3,
  error: 4,
  fatal: 5,
};

export type RecordFilter = (record: LogRecord) => boolean;

export function createFilter(options: FilterOptions): RecordFilter {
  let parentKept = true;
  return (record) => {
    // Continuation lines (stack traces) have no level: they share the fate of the record above.
    if (record.level === undefined) return parentKept;
    parentKept = matches(record, options);
    return parentKept;
  };
}

function matches(record: LogRecord, options: FilterOptions): boolean {
  if (options.minLevel && LEVEL_ORDER[record.level!] < LEVEL_ORDER[options.minLevel]) return false;
  if (options.grep && !options.grep.test(record.message)) return false;
  if (options.logger && !matchesLogger(record.logger, options.logger)) return false;
  return true;
}

function matchesLogger(logger: string | undefined, wanted: string): boolean {
  if (logger === undefined) return false;
  return logger === wanted || logger.startsWith(\`\${wanted}.\`);
}
`;

const READ_LINES = `/**
 * Streams the lines of a file (or stdin when the path is \`-\`) without loading it into memory.
 * Log files in production reach several gigabytes, so nothing here may buffer a whole file.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

export async function* readLines(path: string): AsyncGenerator<string> {
  const input = path === "-" ? process.stdin : createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
  }
}
`;

const CLI_BEFORE = `#!/usr/bin/env node
/**
 * logcat: filter and pretty-print application logs.
 *
 *   logcat [--level LEVEL] [--grep PATTERN] [--logger NAME] [--json] [--raw] [FILE...]
 *
 * Reads the files in order (stdin when none is given or the name is \`-\`) and prints the records
 * that pass every filter. Exit codes: 0 ok, 1 a file could not be read, 2 bad usage.
 */
import { parseArgs } from "node:util";
import { createFilter, type FilterOptions } from "./filter.js";
import { type Level, type LogRecord, parseLine } from "./parse-line.js";
import { readLines } from "./read-lines.js";

const VERSION = "0.4.2";
const LEVELS: readonly Level[] = ["trace", "debug", "info", "warn", "error", "fatal"];

const HELP = \`Usage: logcat [options] [FILE...]

Options:
  -l, --level LEVEL     only records at LEVEL or above (trace, debug, info, warn, error, fatal)
  -g, --grep PATTERN    only records whose message matches PATTERN (a regular expression)
      --logger NAME     only records from logger NAME or its children
      --json            print one JSON object per record
      --raw             print the original lines
  -h, --help            show this help
  -v, --version         show the version
\`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export class UsageError extends Error {}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    io.stderr(\`logcat: \${(error as Error).message}\\n\${HELP}\`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(HELP);
    return 0;
  }
  if (parsed.version) {
    io.stdout(\`\${VERSION}\\n\`);
    return 0;
  }
  const keep = createFilter(parsed.filter);
  const paths = parsed.files.length === 0 ? ["-"] : parsed.files;
  for (const path of paths) {
    try {
      for await (const line of readLines(path)) {
        const record = parseLine(line);
        if (keep(record)) io.stdout(formatRecord(record, parsed.output));
      }
    } catch (error) {
      io.stderr(\`logcat: cannot read \${path}: \${(error as Error).message}\\n\`);
      return 1;
    }
  }
  return 0;
}

type OutputMode = "pretty" | "json" | "raw";

function parseCommandLine(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      level: { type: "string", short: "l" },
      grep: { type: "string", short: "g" },
      logger: { type: "string" },
      json: { type: "boolean" },
      raw: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
  const filter: FilterOptions = {};
  if (values.level !== undefined) filter.minLevel = parseLevel(values.level);
  if (values.grep !== undefined) filter.grep = parsePattern(values.grep);
  if (values.logger !== undefined) filter.logger = values.logger;
  if (values.json && values.raw) throw new UsageError("--json and --raw cannot be combined");
  const output: OutputMode = values.json ? "json" : values.raw ? "raw" : "pretty";
  return { filter, output, files: positionals, help: values.help ?? false, version: values.version ?? false };
}

function parseLevel(value: string): Level {
  const level = value.toLowerCase() as Level;
  if (!LEVELS.includes(level)) throw new UsageError(\`unknown level "\${value}"\`);
  return level;
}

function parsePattern(value: string): RegExp {
  try {
    return new RegExp(value);
  } catch {
    throw new UsageError(\`invalid pattern "\${value}"\`);
  }
}

function formatRecord(record: LogRecord, output: OutputMode): string {
  if (output === "raw" || record.level === undefined) return \`\${record.raw}\\n\`;
  if (output === "json") {
    return \`\${JSON.stringify({
      timestamp: record.timestamp?.toISOString(),
      level: record.level,
      logger: record.logger,
      message: record.message,
    })}\\n\`;
  }
  const time = record.timestamp?.toISOString().slice(11, 23) ?? "            ";
  return \`\${time} \${record.level.toUpperCase().padEnd(5)} \${record.logger ?? "-"}: \${record.message}\\n\`;
}

if (import.meta.url === \`file://\${process.argv[1]}\`) {
  main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then((code) => {
    process.exitCode = code;
  });
}
`;

const SINCE_FIRST = `/**
 * Parses the value of \`--since\`: a relative duration (\`90s\`, \`15m\`, \`2h\`, \`1d\`, \`1w\`, or a
 * combination such as \`1h30m\`) counted back from \`now\`, or an absolute ISO 8601 timestamp.
 *
 * Pure: the caller passes \`now\`, so tests use a fixed clock and never sleep.
 */
export type SinceResult = { ok: true; since: Date } | { ok: false; error: string };

const UNIT_MILLISECONDS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_00,
  w: 604_800_000,
};

const DURATION_PATTERN = /^(?:\\d+[smhdw])+$/;
const DURATION_PART = /(\\d+)([smhdw])/g;
const ISO_PATTERN = /^\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?$/;

export function parseSince(value: string, now: Date): SinceResult {
  const text = value.trim();
  if (text === "") return { ok: false, error: "--since needs a value such as 2h or 2026-03-01" };
  if (DURATION_PATTERN.test(text)) {
    let milliseconds = 0;
    for (const [, amount, unit] of text.matchAll(DURATION_PART)) {
      milliseconds += Number(amount) * UNIT_MILLISECONDS[unit!]!;
    }
    if (milliseconds === 0) return { ok: false, error: \`--since \${value}: the duration is zero\` };
    return { ok: true, since: new Date(now.getTime() - milliseconds) };
  }
  if (ISO_PATTERN.test(text)) {
    const date = new Date(text);
    if (!Number.isNaN(date.getTime())) return { ok: true, since: date };
  }
  return {
    ok: false,
    error: \`--since \${value}: expected a duration (30m, 2h, 1d, 1h30m) or an ISO date (2026-03-01T12:00Z)\`,
  };
}
`;

const SINCE_FIXED = SINCE_FIRST.replace("d: 86_400_00,", "d: 86_400_000,");

const SINCE_FINAL = SINCE_FIXED.replace(
  `  if (ISO_PATTERN.test(text)) {
    const date = new Date(text);`,
  `  if (ISO_PATTERN.test(text)) {
    // Same rule as log lines: no offset means UTC, so \`--since 2026-03-01T12:00\` and a log line
    // stamped \`2026-03-01 12:00:00\` agree on every machine.
    const normalized = text.replace(" ", "T");
    const date = new Date(/(?:Z|[+-]\\d{2}:?\\d{2})$/.test(normalized) || !normalized.includes("T") ? normalized : \`\${normalized}Z\`);`,
);

const SINCE_TEST = `import { describe, expect, it } from "vitest";
import { parseSince } from "../src/since.js";

const NOW = new Date("2026-03-10T12:00:00.000Z");

function since(value: string): string {
  const result = parseSince(value, NOW);
  if (!result.ok) throw new Error(result.error);
  return result.since.toISOString();
}

describe("parseSince", () => {
  it("parses seconds", () => expect(since("90s")).toBe("2026-03-10T11:58:30.000Z"));
  it("parses minutes", () => expect(since("15m")).toBe("2026-03-10T11:45:00.000Z"));
  it("parses hours", () => expect(since("2h")).toBe("2026-03-10T10:00:00.000Z"));
  it("parses 1d", () => expect(since("1d")).toBe("2026-03-09T12:00:00.000Z"));
  it("parses weeks", () => expect(since("1w")).toBe("2026-03-03T12:00:00.000Z"));
  it("parses combined durations", () => expect(since("1h30m")).toBe("2026-03-10T10:30:00.000Z"));
  it("parses 2d12h", () => expect(since("2d12h")).toBe("2026-03-08T00:00:00.000Z"));
  it("accepts surrounding spaces", () => expect(since(" 2h ")).toBe("2026-03-10T10:00:00.000Z"));
  it("parses an ISO date", () => expect(since("2026-03-01")).toBe("2026-03-01T00:00:00.000Z"));
  it("parses an ISO timestamp with Z", () => expect(since("2026-03-01T08:15:00Z")).toBe("2026-03-01T08:15:00.000Z"));
  it("parses an ISO timestamp with an offset", () =>
    expect(since("2026-03-01T08:15:00+02:00")).toBe("2026-03-01T06:15:00.000Z"));
  it("rejects an empty value", () => expect(parseSince("", NOW).ok).toBe(false));
  it("rejects a zero duration", () => expect(parseSince("0h", NOW).ok).toBe(false));
  it("rejects an unknown unit", () => expect(parseSince("3y", NOW).ok).toBe(false));
  it("rejects words", () => expect(parseSince("yesterday", NOW).ok).toBe(false));
  it("names the bad value in the error", () => {
    const result = parseSince("soon", NOW);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain("soon");
  });
});
`;

const CLI_TEST = `import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../src/cli.js";

const LOG = [
  "2026-03-10T08:00:00.000Z INFO [http] GET /health 200 2ms",
  "2026-03-10T10:30:00.000Z WARN [db] slow query 812ms",
  "2026-03-10T11:45:00.000Z ERROR [http] POST /orders 500 41ms",
  "    at OrderService.create (src/orders.ts:88:11)",
  "2026-03-10T11:59:00.000Z INFO [http.client] GET https://payments.internal/ping 200",
].join("\\n");

async function run(args: string[]) {
  const directory = mkdtempSync(join(tmpdir(), "logcat-"));
  const file = join(directory, "app.log");
  writeFileSync(file, LOG);
  let stdout = "";
  let stderr = "";
  vi.useFakeTimers({ now: new Date("2026-03-10T12:00:00.000Z"), toFake: ["Date"] });
  try {
    const code = await main([...args, file], { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
    return { code, stdout, stderr };
  } finally {
    vi.useRealTimers();
  }
}

describe("logcat --since", () => {
  it("keeps records within the last 2h", async () => {
    const { code, stdout } = await run(["--since", "2h", "--raw"]);
    expect(code).toBe(0);
    expect(stdout.split("\\n").filter(Boolean)).toHaveLength(4);
  });
  it("keeps continuation lines with their record", async () => {
    const { stdout } = await run(["--since", "30m", "--raw"]);
    expect(stdout).toContain("OrderService.create");
  });
  it("accepts an ISO timestamp", async () => {
    const { stdout } = await run(["--since", "2026-03-10T11:50:00Z", "--raw"]);
    expect(stdout.trim()).toBe("2026-03-10T11:59:00.000Z INFO [http.client] GET https://payments.internal/ping 200");
  });
  it("combines with --level", async () => {
    const { stdout } = await run(["--since", "2h", "--level", "warn", "--raw"]);
    expect(stdout).not.toContain("/ping");
  });
  it("exits 2 on a bad value", async () => {
    const { code, stderr } = await run(["--since", "soon"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--since soon");
  });
  it("exits 2 when given twice", async () => {
    const { code, stderr } = await run(["--since", "2h", "--since", "1h"]);
    expect(code).toBe(2);
    expect(stderr).toContain("only once");
  });
});
`;

const README_SECTION = `## Filtering by time

\`--since VALUE\` keeps records written at or after a point in time:

| value | meaning |
| --- | --- |
| \`90s\`, \`15m\`, \`2h\`, \`1d\`, \`1w\` | that long before now |
| \`1h30m\`, \`2d12h\` | combined durations |
| \`2026-03-01\`, \`2026-03-01T12:00\`, \`2026-03-01T12:00:00+02:00\` | an absolute time |

Timestamps without an offset, in the log and in \`--since\`, are read as **UTC**. Lines without a
timestamp (stack traces) follow the record above them; a file that starts with such lines drops
them under \`--since\`.
`;

const CHANGELOG_BEFORE = `# Changelog

## [Unreleased]

## [0.4.2] - 2026-02-18

### Fixed

- \`--logger http\` no longer matches \`httpx\`.

## [0.4.1] - 2026-01-30

### Fixed

- Reading from stdin no longer drops the last line when it has no trailing newline.
`;

// ---------------------------------------------------------------------------------------------
// Tool output builders: realistic, long, deterministic.
// ---------------------------------------------------------------------------------------------

const PROJECT = "/home/dana/src/logcat";

const TEST_NAMES = {
  "test/parse-line.test.ts": [
    "parseLine > parses an ISO timestamp with Z",
    "parseLine > parses a space-separated timestamp",
    "parseLine > parses milliseconds",
    "parseLine > parses microseconds",
    "parseLine > parses a +02:00 offset",
    "parseLine > parses a -0500 offset",
    "parseLine > lowercases the level",
    "parseLine > reads the logger name",
    "parseLine > keeps brackets inside the message",
    "parseLine > accepts an empty message",
    "parseLine > treats a stack trace line as a continuation",
    "parseLine > treats wrapped JSON as a continuation",
    "parseLine > keeps the raw line",
    "parseTimestamp > returns undefined for 2026-13-01",
    "parseTimestamp > returns undefined for garbage",
    "parseTimestamp > round-trips toISOString",
  ],
  "test/filter.test.ts": [
    "createFilter > keeps everything without options",
    "createFilter > drops records below --level",
    "createFilter > keeps records at --level",
    "createFilter > keeps fatal under --level error",
    "createFilter > matches --grep against the message only",
    "createFilter > matches --logger exactly",
    "createFilter > matches child loggers",
    "createFilter > does not match httpx for http",
    "createFilter > keeps continuation lines of kept records",
    "createFilter > drops continuation lines of dropped records",
    "createFilter > combines level and grep",
    "createFilter > combines all options",
  ],
  "test/read-lines.test.ts": [
    "readLines > reads every line",
    "readLines > handles CRLF endings",
    "readLines > yields the last line without a newline",
    "readLines > yields nothing for an empty file",
    "readLines > streams a 50 MB file under 64 MB of heap",
  ],
  "test/cli.test.ts": [
    "logcat > prints help with --help",
    "logcat > prints the version",
    "logcat > pretty-prints records",
    "logcat > prints JSON with --json",
    "logcat > prints raw lines with --raw",
    "logcat > rejects --json with --raw",
    "logcat > rejects an unknown level",
    "logcat > rejects an invalid pattern",
    "logcat > exits 1 when a file is missing",
  ],
};

/** The parse-line tests once the UTC test is added (turn 7 onwards). */
const PARSE_LINE_NAMES = [
  ...TEST_NAMES["test/parse-line.test.ts"].slice(0, 15),
  "parseTimestamp > reads a timestamp without offset as UTC",
  ...TEST_NAMES["test/parse-line.test.ts"].slice(15),
];

const SINCE_TEST_NAMES = [
  "parseSince > parses seconds",
  "parseSince > parses minutes",
  "parseSince > parses hours",
  "parseSince > parses 1d",
  "parseSince > parses weeks",
  "parseSince > parses combined durations",
  "parseSince > parses 2d12h",
  "parseSince > accepts surrounding spaces",
  "parseSince > parses an ISO date",
  "parseSince > parses an ISO timestamp with Z",
  "parseSince > parses an ISO timestamp with an offset",
  "parseSince > rejects an empty value",
  "parseSince > rejects a zero duration",
  "parseSince > rejects an unknown unit",
  "parseSince > rejects words",
  "parseSince > names the bad value in the error",
];

const SINCE_NAIVE_TEST_NAMES = ["parseSince > reads an ISO timestamp without offset as UTC"];

const CLI_SINCE_TEST_NAMES = [
  "logcat --since > keeps records within the last 2h",
  "logcat --since > keeps continuation lines with their record",
  "logcat --since > accepts an ISO timestamp",
  "logcat --since > combines with --level",
  "logcat --since > exits 2 on a bad value",
  "logcat --since > exits 2 when given twice",
];

const FILTER_SINCE_TEST_NAMES = [
  "createFilter > keeps records at the --since instant",
  "createFilter > drops records before --since",
  "createFilter > drops records without a timestamp under --since",
];

/** Milliseconds a test "took": derived from its name so reruns look alike but not identical. */
function fakeDuration(name, salt) {
  let hash = salt;
  for (const character of name) hash = (hash * 31 + character.charCodeAt(0)) % 9973;
  return hash % 7 === 0 ? 10 + (hash % 40) : 1 + (hash % 4);
}

/**
 * A verbose vitest run. `suites` maps file → test names; `failures` maps "file > test" → the lines
 * vitest prints for that failure.
 */
function renderVitestRun({ suites, failures = {}, salt = 1, startAt }) {
  const lines = [` RUN  v2.0.5 ${PROJECT}`, ""];
  let failedFiles = 0;
  let failedTests = 0;
  let passedTests = 0;
  for (const [file, names] of Object.entries(suites)) {
    const fileFailed = names.some((name) => failures[`${file} > ${name}`]);
    if (fileFailed) failedFiles += 1;
    const total = names.reduce((sum, name) => sum + fakeDuration(name, salt), 0);
    lines.push(` ${fileFailed ? "❯" : "✓"} ${file} (${names.length}) ${total}ms`);
    for (const name of names) {
      const failed = failures[`${file} > ${name}`] !== undefined;
      if (failed) failedTests += 1;
      else passedTests += 1;
      lines.push(`   ${failed ? "×" : "✓"} ${name} ${fakeDuration(name, salt)}ms`);
    }
  }
  const failureEntries = Object.entries(failures);
  if (failureEntries.length > 0) {
    lines.push("", `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failureEntries.length} ⎯⎯⎯⎯⎯⎯⎯`, "");
    failureEntries.forEach(([name, detail], position) => {
      lines.push(` FAIL  ${name}`, ...detail, "", `⎯⎯⎯⎯⎯⎯⎯[${position + 1}/${failureEntries.length}]⎯`, "");
    });
  }
  const fileCount = Object.keys(suites).length;
  const testSummary =
    failedTests > 0 ? `${failedTests} failed | ${passedTests} passed` : `${passedTests} passed`;
  const fileSummary =
    failedFiles > 0 ? `${failedFiles} failed | ${fileCount - failedFiles} passed` : `${fileCount} passed`;
  lines.push(
    "",
    ` Test Files  ${fileSummary} (${fileCount})`,
    `      Tests  ${testSummary} (${failedTests + passedTests})`,
    `   Start at  ${startAt}`,
    `   Duration  ${600 + salt * 13}ms (transform ${80 + salt}ms, setup 0ms, collect ${140 + salt * 3}ms, tests ${31 + salt}ms, environment 0ms, prepare ${211 + salt}ms)`,
    "",
    `exit code: ${failedTests > 0 ? 1 : 0}`,
  );
  return lines.join("\n");
}

function failureDetail({ expected, received, location, source }) {
  return [
    `AssertionError: expected '${received}' to be '${expected}' // Object.is equality`,
    "",
    "- Expected",
    "+ Received",
    "",
    `- ${expected}`,
    `+ ${received}`,
    "",
    ` ❯ ${location}`,
    ...source,
  ];
}

/** A listing like `find src test -type f | xargs wc -l`. */
function renderFileListing() {
  const entries = [
    [128, "src/cli.ts"],
    [52, "src/filter.ts"],
    [47, "src/parse-line.ts"],
    [17, "src/read-lines.ts"],
    [96, "test/cli.test.ts"],
    [88, "test/filter.test.ts"],
    [121, "test/parse-line.test.ts"],
    [54, "test/read-lines.test.ts"],
    [39, "test/fixtures/app.log"],
    [12, "test/fixtures/crlf.log"],
  ];
  const total = entries.reduce((sum, [count]) => sum + count, 0);
  return [
    ...entries.map(([count, path]) => `${String(count).padStart(5)} ${path}`),
    `${String(total).padStart(5)} total`,
    "",
    "exit code: 0",
  ].join("\n");
}

/** The first lines of a production log, for the timezone discussion. */
function renderLogExcerpt(count) {
  const loggers = ["http", "db", "http.client", "jobs.invoice", "auth", "cache"];
  const messages = [
    (n) => `GET /api/orders/${4100 + n} 200 ${3 + (n % 17)}ms`,
    (n) => `query orders_by_customer took ${40 + ((n * 37) % 700)}ms rows=${n % 50}`,
    (n) => `GET https://payments.internal/v2/charges/ch_${(n * 7919).toString(36)} 200`,
    (n) => `invoice batch ${n} queued (${n % 12} items)`,
    (n) => `token refreshed for user u_${(n * 104729).toString(36)}`,
    (n) => `miss key=customer:${n * 13} ttl=300`,
  ];
  const lines = [];
  for (let n = 0; lines.length < count; n++) {
    const seconds = n * 11 + (n % 3);
    const hour = 6 + Math.floor(seconds / 3600);
    const minute = Math.floor((seconds % 3600) / 60);
    const second = seconds % 60;
    const pad = (value) => String(value).padStart(2, "0");
    const level = n % 23 === 5 ? "ERROR" : n % 9 === 4 ? "WARN" : n % 5 === 0 ? "DEBUG" : "INFO";
    const kind = n % loggers.length;
    lines.push(
      `2026-03-09 ${pad(hour)}:${pad(minute)}:${pad(second)}.${String((n * 137) % 1000).padStart(3, "0")} ${level} [${loggers[kind]}] ${messages[kind](n)}`,
    );
    if (level === "ERROR") {
      lines.push("Error: connect ECONNREFUSED 10.0.4.17:5432");
      lines.push("    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)");
      lines.push("    at Pool.connect (/srv/orders/node_modules/pg-pool/index.js:45:11)");
    }
  }
  return `${lines.slice(0, count).join("\n")}\n\nexit code: 0`;
}

function numbered(text, from = 1) {
  return text
    .split("\n")
    .map((line, position) => `${String(position + from).padStart(4)}  ${line}`)
    .join("\n");
}

const BIOME_OUTPUT = `test/cli-since.test.ts:29:51 lint/suspicious/noAssignInExpressions ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  × The assignment should not be in an expression.

    27 │   vi.useFakeTimers({ now: new Date("2026-03-10T12:00:00.000Z"), toFake: ["Date"] });
    28 │   try {
  > 29 │     const code = await main([...args, file], { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
       │                                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    30 │     return { code, stdout, stderr };
    31 │   } finally {

  i The use of assignments in expressions is confusing.
    Expressions are often considered as side-effect free.

test/cli-since.test.ts:29:98 lint/suspicious/noAssignInExpressions ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  × The assignment should not be in an expression.

  > 29 │     const code = await main([...args, file], { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
       │                                                                                                  ^^^^^^^^^^^^^^

src/cli.ts format ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  × Formatter would have printed the following content:

    86 86 │     if (values.since.length > 1) throw new UsageError("--since may be given only once");
    87    │ - ····const·result·=·parseSince(values.since[0]!,·now())
       87 │ + ····const·result·=·parseSince(values.since[0]!,·now());
    88 88 │     if (!result.ok) throw new UsageError(result.error);

Checked 11 files in 18ms. No fixes applied.
Found 3 errors.
check ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

  × Some errors were emitted while running checks.

exit code: 1`;

const FILTER_TEST = `import { describe, expect, it } from "vitest";
import { createFilter } from "../src/filter.js";
import { type LogRecord, parseLine } from "../src/parse-line.js";

function record(timestamp: string, level = "INFO", logger = "http", message = "GET /health 200"): LogRecord {
  return parseLine(\`\${timestamp} \${level} [\${logger}] \${message}\`);
}

const CONTINUATION = parseLine("    at Server.handle (src/server.ts:41:9)");

describe("createFilter", () => {
  it("keeps everything without options", () => {
    const keep = createFilter({});
    expect(keep(record("2026-03-10T10:00:00Z", "TRACE"))).toBe(true);
    expect(keep(CONTINUATION)).toBe(true);
  });
  it("drops records below --level", () => {
    expect(createFilter({ minLevel: "warn" })(record("2026-03-10T10:00:00Z", "INFO"))).toBe(false);
  });
  it("keeps records at --level", () => {
    expect(createFilter({ minLevel: "warn" })(record("2026-03-10T10:00:00Z", "WARN"))).toBe(true);
  });
  it("keeps fatal under --level error", () => {
    expect(createFilter({ minLevel: "error" })(record("2026-03-10T10:00:00Z", "FATAL"))).toBe(true);
  });
  it("matches --grep against the message only", () => {
    const keep = createFilter({ grep: /http/ });
    expect(keep(record("2026-03-10T10:00:00Z", "INFO", "http", "GET /health 200"))).toBe(false);
    expect(keep(record("2026-03-10T10:00:00Z", "INFO", "db", "calling http://x"))).toBe(true);
  });
  it("matches --logger exactly", () => {
    expect(createFilter({ logger: "db" })(record("2026-03-10T10:00:00Z", "INFO", "db"))).toBe(true);
  });
  it("matches child loggers", () => {
    expect(createFilter({ logger: "http" })(record("2026-03-10T10:00:00Z", "INFO", "http.client"))).toBe(true);
  });
  it("does not match httpx for http", () => {
    expect(createFilter({ logger: "http" })(record("2026-03-10T10:00:00Z", "INFO", "httpx"))).toBe(false);
  });
  it("keeps continuation lines of kept records", () => {
    const keep = createFilter({ minLevel: "error" });
    keep(record("2026-03-10T10:00:00Z", "ERROR"));
    expect(keep(CONTINUATION)).toBe(true);
  });
  it("drops continuation lines of dropped records", () => {
    const keep = createFilter({ minLevel: "error" });
    keep(record("2026-03-10T10:00:00Z", "INFO"));
    expect(keep(CONTINUATION)).toBe(false);
  });
  it("combines level and grep", () => {
    const keep = createFilter({ minLevel: "warn", grep: /slow/ });
    expect(keep(record("2026-03-10T10:00:00Z", "WARN", "db", "slow query 812ms"))).toBe(true);
    expect(keep(record("2026-03-10T10:00:00Z", "INFO", "db", "slow query 812ms"))).toBe(false);
  });
  it("combines all options", () => {
    const keep = createFilter({ minLevel: "warn", grep: /slow/, logger: "db" });
    expect(keep(record("2026-03-10T10:00:00Z", "WARN", "db.pool", "slow acquire 90ms"))).toBe(true);
    expect(keep(record("2026-03-10T10:00:00Z", "WARN", "cache", "slow get 90ms"))).toBe(false);
  });
});
`;

const PARSE_LINE_TEST = `import { describe, expect, it } from "vitest";
import { parseLine, parseTimestamp } from "../src/parse-line.js";

describe("parseLine", () => {
  it("parses an ISO timestamp with Z", () => {
    expect(parseLine("2026-03-09T17:04:11.532Z INFO [http] GET /health 200 3ms").timestamp?.toISOString()).toBe(
      "2026-03-09T17:04:11.532Z",
    );
  });
  it("parses a space-separated timestamp", () => {
    expect(parseLine("2026-03-09 17:04:11Z INFO [http] ok").timestamp?.toISOString()).toBe("2026-03-09T17:04:11.000Z");
  });
  it("parses milliseconds", () => {
    expect(parseLine("2026-03-09T17:04:11.5Z INFO [http] ok").timestamp?.getUTCMilliseconds()).toBe(500);
  });
  it("parses microseconds", () => {
    expect(parseLine("2026-03-09T17:04:11.123456Z INFO [http] ok").timestamp?.getUTCMilliseconds()).toBe(123);
  });
  it("parses a +02:00 offset", () => {
    expect(parseLine("2026-03-09T17:04:11+02:00 INFO [http] ok").timestamp?.toISOString()).toBe("2026-03-09T15:04:11.000Z");
  });
  it("parses a -0500 offset", () => {
    expect(parseLine("2026-03-09T17:04:11-0500 INFO [http] ok").timestamp?.toISOString()).toBe("2026-03-09T22:04:11.000Z");
  });
  it("lowercases the level", () => {
    expect(parseLine("2026-03-09T17:04:11Z WARN [db] slow").level).toBe("warn");
  });
  it("reads the logger name", () => {
    expect(parseLine("2026-03-09T17:04:11Z WARN [db.pool] slow").logger).toBe("db.pool");
  });
  it("keeps brackets inside the message", () => {
    expect(parseLine("2026-03-09T17:04:11Z INFO [jobs] queued [3 items]").message).toBe("queued [3 items]");
  });
  it("accepts an empty message", () => {
    expect(parseLine("2026-03-09T17:04:11Z INFO [jobs]").message).toBe("");
  });
  it("treats a stack trace line as a continuation", () => {
    const record = parseLine("    at OrderService.create (src/orders.ts:88:11)");
    expect(record.level).toBeUndefined();
    expect(record.timestamp).toBeUndefined();
  });
  it("treats wrapped JSON as a continuation", () => {
    expect(parseLine('  "orderId": 4411,').level).toBeUndefined();
  });
  it("keeps the raw line", () => {
    const raw = "2026-03-09T17:04:11Z INFO [http] GET / 200";
    expect(parseLine(raw).raw).toBe(raw);
  });
});

describe("parseTimestamp", () => {
  it("returns undefined for 2026-13-01", () => expect(parseTimestamp("2026-13-01T00:00:00Z")).toBeUndefined());
  it("returns undefined for garbage", () => expect(parseTimestamp("yesterday")).toBeUndefined());
  it("round-trips toISOString", () => {
    const text = "2026-03-09T17:04:11.532Z";
    expect(parseTimestamp(text)?.toISOString()).toBe(text);
  });
});
`;

const GIT_LOG = `9b1e4d7 (HEAD -> feature/since, origin/main, main) Release 0.4.2
5c03a18 Fix --logger matching httpx for http
e81f2b0 Document exit codes
77d9c3e Release 0.4.1
3aa9f61 Keep the last stdin line without a trailing newline
0de4c25 Test CRLF input
c4f1b9a Add --raw output
b2e8a04 Release 0.4.0
61a7d53 Add --logger with child matching
aa30f18 Stream input with readline instead of readFileSync
f09c7e2 Add --json output
8d2b6c1 Release 0.3.0
2ab4e90 Keep stack traces with their record
11f83c4 Add --grep
0c5d2a7 Initial commit

exit code: 0`;

/** \`grep -n -A3 ERROR logs/app.log\`: the error records of a longer excerpt, with their traces. */
function renderErrorGrep(count) {
  const lines = [];
  for (let n = 0; n < count; n++) {
    const lineNumber = 40 + n * 37;
    const minute = String(n % 60).padStart(2, "0");
    const hour = String(6 + Math.floor(n / 60)).padStart(2, "0");
    const order = 4100 + n * 3;
    lines.push(
      `${lineNumber}:2026-03-09 ${hour}:${minute}:${String((n * 17) % 60).padStart(2, "0")}.${String((n * 211) % 1000).padStart(3, "0")} ERROR [http] POST /api/orders/${order} 500 ${30 + (n % 40)}ms`,
    );
    lines.push(`${lineNumber + 1}-Error: connect ECONNREFUSED 10.0.4.17:5432`);
    lines.push(`${lineNumber + 2}-    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)`);
    lines.push(`${lineNumber + 3}-    at OrderService.create (/srv/orders/dist/orders.js:88:11)`);
    lines.push("--");
  }
  return `${lines.join("\n")}\n\nexit code: 0`;
}

function timezoneFailures() {
  return {
    "test/parse-line.test.ts > parseTimestamp > reads a timestamp without offset as UTC": failureDetail({
      expected: "2026-03-09T06:00:11.137Z",
      received: "2026-03-09T05:00:11.137Z",
      location: "test/parse-line.test.ts:58:52",
      source: [
        '     56|   it("reads a timestamp without offset as UTC", () => {',
        '     57|     const text = "2026-03-09 06:00:11.137";',
        '     58|     expect(parseTimestamp(text)?.toISOString()).toBe("2026-03-09T06:00:11.137Z");',
        "       |                                                    ^",
        "     59|   });",
      ],
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// The CLI as it changes during the session.
// ---------------------------------------------------------------------------------------------

const EDIT_IMPORT = {
  old: `import { readLines } from "./read-lines.js";`,
  new: `import { readLines } from "./read-lines.js";\nimport { parseSince } from "./since.js";`,
};
const EDIT_OPTION = {
  old: `      logger: { type: "string" },`,
  new: `      logger: { type: "string" },\n      since: { type: "string", short: "s" },`,
};
const EDIT_HELP = {
  old: "      --logger NAME     only records from logger NAME or its children",
  new: "      --logger NAME     only records from logger NAME or its children\n  -s, --since VALUE     only records since VALUE (2h, 30m, 1d, 1h30m or an ISO date; UTC)",
};
const EDIT_MAIN = {
  old: "export async function main(argv: readonly string[], io: CliIo): Promise<number> {\n  let parsed: ReturnType<typeof parseCommandLine>;\n  try {\n    parsed = parseCommandLine(argv);",
  new: "export async function main(argv: readonly string[], io: CliIo, now: () => Date = () => new Date()): Promise<number> {\n  let parsed: ReturnType<typeof parseCommandLine>;\n  try {\n    parsed = parseCommandLine(argv, now);",
};
const EDIT_SIGNATURE = {
  old: "function parseCommandLine(argv: readonly string[]) {",
  new: "function parseCommandLine(argv: readonly string[], now: () => Date) {",
};
const SINCE_BUGGY =
  "  const sinceResult = parseSince(values.since, now());\n  if (!sinceResult.ok) throw new UsageError(sinceResult.error);\n  filter.since = sinceResult.since;";
const EDIT_FILTER_BUGGY = {
  old: "  if (values.logger !== undefined) filter.logger = values.logger;",
  new: `  if (values.logger !== undefined) filter.logger = values.logger;\n${SINCE_BUGGY}`,
};
const SINCE_GUARDED =
  "  if (values.since !== undefined) {\n    const result = parseSince(values.since, now());\n    if (!result.ok) throw new UsageError(result.error);\n    filter.since = result.since;\n  }";
const SINCE_ONCE =
  '  if (values.since !== undefined) {\n    if (values.since.length > 1) throw new UsageError("--since may be given only once");\n    const result = parseSince(values.since[0]!, now())\n    if (!result.ok) throw new UsageError(result.error);\n    filter.since = result.since;\n  }';

/** A unified diff of `edits` applied to `before`, one hunk per edit with three lines of context. */
function renderDiff(path, before, edits) {
  const lines = [
    `diff --git a/${path} b/${path}`,
    "index 4be1f09..a93c2d4 100644",
    `--- a/${path}`,
    `+++ b/${path}`,
  ];
  const beforeLines = before.split("\n");
  let shift = 0;
  for (const edit of edits) {
    let start = before.slice(0, before.indexOf(edit.old)).split("\n").length - 1;
    let oldLines = edit.old.split("\n");
    let newLines = edit.new.split("\n");
    // Lines both sides share are context, as git shows them, not a removal and an addition.
    let common = 0;
    while (common < oldLines.length - 1 && oldLines[common] === newLines[common]) common += 1;
    start += common;
    oldLines = oldLines.slice(common);
    newLines = newLines.slice(common);
    if (oldLines.length === 1 && newLines[0] === oldLines[0]) {
      start += 1;
      oldLines = [];
      newLines = newLines.slice(1);
    }
    const contextBefore = beforeLines.slice(Math.max(0, start - 3), start);
    const contextAfter = beforeLines.slice(start + oldLines.length, start + oldLines.length + 3);
    const from = start - contextBefore.length + 1;
    const oldCount = contextBefore.length + oldLines.length + contextAfter.length;
    const newCount = contextBefore.length + newLines.length + contextAfter.length;
    lines.push(`@@ -${from},${oldCount} +${from + shift},${newCount} @@`);
    lines.push(...contextBefore.map((line) => ` ${line}`), ...oldLines.map((line) => `-${line}`));
    lines.push(...newLines.map((line) => `+${line}`), ...contextAfter.map((line) => ` ${line}`));
    shift += newLines.length - oldLines.length;
  }
  return lines.join("\n");
}

function applyEdits(text, edits) {
  return edits.reduce((current, edit) => current.replace(edit.old, edit.new), text);
}

const CLI_WITH_SINCE = applyEdits(CLI_BEFORE, [
  EDIT_IMPORT,
  EDIT_OPTION,
  EDIT_HELP,
  EDIT_MAIN,
  EDIT_SIGNATURE,
  EDIT_FILTER_BUGGY,
]).replace(SINCE_BUGGY, SINCE_GUARDED);

// ---------------------------------------------------------------------------------------------
// Recording events.
// ---------------------------------------------------------------------------------------------

/** Characters per token used to invent plausible provider usage numbers. */
const CHARACTERS_PER_TOKEN = 3.7;
const SYSTEM_PROMPT_TOKENS = 2_416;

function createRecorder(clock) {
  const events = [];
  let contextCharacters = 0;
  let turnStartCharacters = 0;
  let outputCharacters = 0;
  let turnNumber = 0;

  function push(type, fields, seconds) {
    clock.advance(seconds);
    const event = { id: clock.nextId(), ts: clock.now(), type, ...fields };
    events.push(event);
    return event;
  }

  function signatureFor(text) {
    let hash = 7;
    for (const character of text) hash = (hash * 131 + character.charCodeAt(0)) % 2_147_483_647;
    const seed = `${turnNumber}:${hash}:${text.length}`;
    return `Eq${Buffer.from(seed.repeat(12)).toString("base64").replace(/=+$/, "")}`;
  }

  return {
    events,
    /** Opens a turn with the user's message. */
    user(content, { secondsBefore = 40 + ((content.length * 7) % 140) } = {}) {
      turnNumber += 1;
      turnStartCharacters = contextCharacters;
      push("turn_start", {}, secondsBefore);
      push("chat_request", { content, author: "Dana Whitfield" }, 0.000004);
      contextCharacters += content.length;
      outputCharacters = 0;
    },
    think(reasoning, { signed = true, seconds = 6 } = {}) {
      const metadata = signed ? { anthropic_thinking_signature: signatureFor(reasoning) } : undefined;
      push("chat_response", metadata ? { reasoning, metadata } : { reasoning }, seconds);
      contextCharacters += reasoning.length;
      outputCharacters += reasoning.length;
    },
    say(message, { seconds = 3 } = {}) {
      push("chat_response", { message }, seconds);
      contextCharacters += message.length;
      outputCharacters += message.length;
    },
    /** A tool call and its result; `seconds` is how long the tool ran. */
    tool(name, args, content, { isError = false, seconds = 0.4 } = {}) {
      const request = push("tool_call_request", { call_id: "", name, arguments: args }, 0.01);
      request.call_id = `toolu_01${request.id.slice(10, 26)}${request.id.slice(2, 8)}`;
      push("tool_call_response", { call_id: request.call_id, content, is_error: isError }, seconds);
      contextCharacters += JSON.stringify(args).length + content.length;
      outputCharacters = 0;
    },
    configure(delta) {
      push("config_delta", { delta }, 2);
    },
    /** Puts provider usage on the turn's last chat_response, as the Anthropic adapter records it. */
    endTurn() {
      const last = events.at(-1);
      if (last.type !== "chat_response") throw new Error(`turn ${turnNumber} must end with a chat_response`);
      const output = Math.round(outputCharacters / CHARACTERS_PER_TOKEN);
      const cached = SYSTEM_PROMPT_TOKENS + Math.round(turnStartCharacters / CHARACTERS_PER_TOKEN);
      const fresh = Math.round((contextCharacters - turnStartCharacters) / CHARACTERS_PER_TOKEN) - output;
      last.metadata = {
        ...last.metadata,
        usage: {
          input_tokens: 3 + (turnNumber % 5),
          output_tokens: output,
          cache_read_input_tokens: cached,
          cache_creation_input_tokens: Math.max(fresh, 0),
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The session, turn by turn.
// ---------------------------------------------------------------------------------------------

const START_AT = (hour, minute) => `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:03`;

function sinceFailures() {
  const sourceAround = (line, text) => [
    `     ${line - 1}|   it("parses hours", () => expect(since("2h")).toBe("2026-03-10T10:00:00.000Z"));`,
    `     ${line}| ${text}`,
    "       |                                        ^",
    `     ${line + 1}|   it("parses weeks", () => expect(since("1w")).toBe("2026-03-03T12:00:00.000Z"));`,
  ];
  return {
    "test/since.test.ts > parseSince > parses 1d": failureDetail({
      expected: "2026-03-09T12:00:00.000Z",
      received: "2026-03-10T09:36:00.000Z",
      location: "test/since.test.ts:16:40",
      source: sourceAround(
        16,
        '  it("parses 1d", () => expect(since("1d")).toBe("2026-03-09T12:00:00.000Z"));',
      ),
    }),
    "test/since.test.ts > parseSince > parses 2d12h": failureDetail({
      expected: "2026-03-08T00:00:00.000Z",
      received: "2026-03-09T19:12:00.000Z",
      location: "test/since.test.ts:19:44",
      source: sourceAround(
        19,
        '  it("parses 2d12h", () => expect(since("2d12h")).toBe("2026-03-08T00:00:00.000Z"));',
      ),
    }),
  };
}

function turnsOneToFive(r) {
  r.user(
    "I want to add a `--since` option to logcat so I can say `logcat --since 2h app.log` and only see recent records. Constraints: don't add dependencies (the package has zero runtime deps and I want to keep it that way), and it must work on Node 20 because that's what our servers run. Start by having a look at the project.",
    { secondsBefore: 0.5 },
  );
  r.think(
    "The user wants a --since filter for logcat, a TypeScript CLI. Two hard constraints: no new dependencies and Node 20 support. That rules out date libraries like date-fns or dayjs, and I should stick to node:util parseArgs if that is what the CLI already uses. First I need to see the layout: where argument parsing happens, how records are parsed (do they carry a timestamp?), and how filters are composed. I'll list the files and then read package.json and src/cli.ts.",
  );
  r.say("Let me look at the project layout first.");
  r.tool("run_command", { command: "find src test -type f | sort | xargs wc -l" }, renderFileListing(), {
    seconds: 0.2,
  });
  r.tool("run_command", { command: "git log --oneline -15" }, GIT_LOG, { seconds: 0.1 });
  r.tool("read_file", { path: "package.json" }, numbered(PACKAGE_JSON));
  r.tool("read_file", { path: "src/cli.ts" }, numbered(CLI_BEFORE));
  r.think(
    "The CLI uses parseArgs from node:util, so a new option is easy to add without dependencies. main() takes argv and an io object, which is good for testing. parseCommandLine builds a FilterOptions object; --since should become a `since?: Date` field on FilterOptions and be parsed in parseCommandLine. Records come from parseLine, so I need to check whether timestamps are parsed into Date objects already.",
  );
  r.say(
    "The CLI is built on `node:util`'s `parseArgs` (no dependency), and `parseCommandLine` turns flags into a `FilterOptions` object that `createFilter` consumes. So `--since` fits as one more filter option. Before proposing anything I want to check how records carry their timestamps (src/parse-line.ts) and how filters combine (src/filter.ts).",
  );
  r.endTurn();

  r.user(
    "Go ahead and read them. For the format I'm thinking relative durations like `2h`, `30m`, `1d`, maybe combined like `1h30m`, or an absolute ISO timestamp like `2026-03-01T12:00`.",
  );
  r.think("Read parse-line.ts and filter.ts, then propose where parsing lives.");
  r.tool("read_file", { path: "src/parse-line.ts" }, numbered(PARSE_LINE_BEFORE));
  r.tool("read_file", { path: "src/filter.ts" }, numbered(FILTER_BEFORE));
  r.tool("read_file", { path: "test/filter.test.ts" }, numbered(FILTER_TEST));
  r.think(
    "parseLine already yields `timestamp: Date | undefined`, so filtering is a comparison. createFilter keeps continuation lines with their parent, which means a stack trace under a kept record stays, good. For parsing the --since value: durations are relative to now. If the parser calls new Date() itself, tests become time-dependent. Better: parseSince(value, now) as a pure function returning a result object, and the CLI passes the clock. That also makes the error message testable without exceptions. I'll put it in a new module src/since.ts.",
  );
  r.say(
    "Here's the plan.\n\n1. New module `src/since.ts` with `parseSince(value, now)` returning `{ ok: true, since }` or `{ ok: false, error }`. We'll keep the parser pure because it makes testing with a fixed clock trivial: no fake timers, no sleeping, and the error text is checked directly.\n2. `FilterOptions` gets `since?: Date`; `createFilter` drops records older than it.\n3. `parseCommandLine` parses `--since` and turns a bad value into a usage error (exit 2), like `--level` does today.\n\nDurations use the units s, m, h, d and w and may be combined (`1h30m`). Absolute values are ISO 8601 dates or timestamps. I'll write the parser and its tests first.",
  );
  r.endTurn();

  r.user("Sounds good. Write the parser first, with tests. Use a fixed `now` in the tests.");
  r.think(
    "Write src/since.ts and test/since.test.ts. Units table in milliseconds. DURATION_PATTERN validates the whole string, DURATION_PART extracts pairs. ISO pattern allows date only, date+time, optional seconds and fraction, optional offset.",
  );
  r.tool(
    "edit_file",
    { path: "src/since.ts", old: "", new: SINCE_FIRST },
    "Created src/since.ts (44 lines).",
  );
  r.tool(
    "edit_file",
    { path: "test/since.test.ts", old: "", new: SINCE_TEST },
    "Created test/since.test.ts (33 lines).",
  );
  r.say("Both files are written. Running the new tests now.");
  r.tool(
    "run_command",
    { command: "npx vitest run test/since.test.ts" },
    renderVitestRun({
      suites: { "test/since.test.ts": SINCE_TEST_NAMES },
      failures: sinceFailures(),
      salt: 2,
      startAt: START_AT(9, 4),
    }),
    { seconds: 2.1 },
  );
  r.think(
    "Two failures: 1d gives 09:36 the same day instead of the previous day at 12:00, and 2d12h is off as well. 12:00 minus 2.4 hours is 09:36, so the day constant is 8,640,000 instead of 86,400,000: I dropped a zero in `86_400_00`. Hours work, so the combination logic is fine.",
  );
  r.say(
    "Two tests fail: `parses 1d` gets `2026-03-10T09:36:00.000Z` instead of `2026-03-09T12:00:00.000Z`. That's 2.4 hours back instead of 24, so the day constant in `UNIT_MILLISECONDS` is missing a zero (`86_400_00`). The `2d12h` failure is the same bug.",
  );
  r.endTurn();

  r.user("Fix it.");
  r.tool(
    "edit_file",
    { path: "src/since.ts", old: "  d: 86_400_00,", new: "  d: 86_400_000," },
    "Edited src/since.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "npx vitest run test/since.test.ts" },
    renderVitestRun({ suites: { "test/since.test.ts": SINCE_TEST_NAMES }, salt: 3, startAt: START_AT(9, 7) }),
    { seconds: 1.9 },
  );
  r.say("Fixed: the day unit is now `86_400_000` and all 16 `parseSince` tests pass.");
  r.endTurn();

  r.user(
    "Now wire it into the CLI. Only accept one --since flag; it should not silently ignore bad values. Also add `-s` as the short form.",
  );
  r.think(
    "Add the import, the option (short s), help text, a `now` parameter on main with a default clock so tests can pass a fixed one, and parse in parseCommandLine. Bad values become UsageError, exit 2. Regarding 'only one': parseArgs with a non-multiple string option keeps the last value silently, which would violate the constraint. I'll handle it after checking types.",
  );
  for (const edit of [EDIT_IMPORT, EDIT_OPTION, EDIT_HELP, EDIT_MAIN, EDIT_SIGNATURE, EDIT_FILTER_BUGGY]) {
    r.tool("edit_file", { path: "src/cli.ts", ...edit }, "Edited src/cli.ts: 1 replacement.");
  }
  r.tool(
    "edit_file",
    {
      path: "src/filter.ts",
      old: "  logger?: string;\n}",
      new: "  logger?: string;\n  /** Keep records written at or after this instant (see since.ts for how it is parsed). */\n  since?: Date;\n}",
    },
    "Edited src/filter.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "npx tsc --noEmit" },
    "Command failed with exit code 2: npx tsc --noEmit\nsrc/cli.ts(86,34): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.\n  Type 'undefined' is not assignable to type 'string'.\n\nFound 1 error in src/cli.ts:86\n",
    { isError: true, seconds: 3.2 },
  );
  r.think(
    "values.since is optional; parseSince needs a string. Guard with `if (values.since !== undefined)`, as the other options do.",
  );
  r.tool(
    "edit_file",
    { path: "src/cli.ts", old: SINCE_BUGGY, new: SINCE_GUARDED },
    "Edited src/cli.ts: 1 replacement.",
  );
  r.tool("run_command", { command: "npx tsc --noEmit" }, "exit code: 0", { seconds: 3.0 });
  r.say(
    "`--since`/`-s` is wired in: `main` takes an optional `now` clock (defaulting to the real time) and passes it to `parseCommandLine`, which turns a bad value into a usage error (exit 2). The first typecheck failed (TS2345, `values.since` may be undefined); guarding it like the other options fixed it and `tsc --noEmit` is clean. The filter itself does not use `since` yet, and passing `--since` twice still silently keeps the last value; I'll handle both next.",
  );
  r.endTurn();
}

function turnsSixToTen(r) {
  r.user(
    "Before you go on: timestamps in our production logs have no offset, they look like `2026-03-09 06:00:11.137`. What does the parser do with those? Here's where the logs live: logs/app.log.",
  );
  r.think(
    "parseTimestamp does `new Date(text.replace(' ', 'T'))`. ECMAScript parses a date-time string without offset as local time (date-only forms are UTC). So on a developer laptop in UTC+1 these records would be shifted one hour against --since 2h which is computed from the absolute now. Let me look at the log to confirm the format.",
  );
  r.tool("run_command", { command: "head -n 300 logs/app.log" }, renderLogExcerpt(300), { seconds: 0.1 });
  r.tool("run_command", { command: "grep -n -A3 ERROR logs/app.log | head -n 150" }, renderErrorGrep(30), {
    seconds: 0.2,
  });
  r.think(
    "Confirmed: no offset. Options: (a) read as local time (current behaviour, machine-dependent), (b) read as UTC, (c) add a --timezone flag. The user said the servers write the logs; if the writer runs with TZ=UTC, (b) is correct everywhere. (c) is extra surface we do not need now. I'll recommend (b) and mention (c) as a later option.",
  );
  r.say(
    "They're read as **local time**. `parseTimestamp` passes `2026-03-09T06:00:11.137` to `new Date`, and JavaScript treats a date-time without an offset as local (date-only strings are UTC, which makes it even more confusing). On a laptop in Berlin every record would be off by an hour against `--since`, which is computed from the absolute current time.\n\nLet's treat timestamps without an offset as UTC, because the log writer in production runs with TZ=UTC; I'll document it in the README. I'll apply the same rule to `--since 2026-03-01T12:00` so both sides agree. If you ever need other zones, a `--timezone` flag could come later, but I'd rather not add it now.",
  );
  r.endTurn();

  r.user("Agreed, UTC it is. Make the change in both places and add tests for it.");
  r.think("First a failing test that shows the bug under a non-UTC zone, then the fix.");
  r.tool("read_file", { path: "test/parse-line.test.ts" }, numbered(PARSE_LINE_TEST));
  r.tool(
    "edit_file",
    {
      path: "test/parse-line.test.ts",
      old: '  it("round-trips toISOString", () => {',
      new: '  it("reads a timestamp without offset as UTC", () => {\n    const text = "2026-03-09 06:00:11.137";\n    expect(parseTimestamp(text)?.toISOString()).toBe("2026-03-09T06:00:11.137Z");\n  });\n  it("round-trips toISOString", () => {',
    },
    "Edited test/parse-line.test.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "TZ=Europe/Berlin npx vitest run test/parse-line.test.ts" },
    renderVitestRun({
      suites: { "test/parse-line.test.ts": PARSE_LINE_NAMES },
      failures: timezoneFailures(),
      salt: 9,
      startAt: START_AT(9, 27),
    }),
    { seconds: 1.8 },
  );
  r.say(
    "The new test fails under `TZ=Europe/Berlin` as expected: `2026-03-09 06:00:11.137` comes back as 05:00 UTC. Fixing both parsers now.",
  );
  r.tool(
    "edit_file",
    {
      path: "src/parse-line.ts",
      old: '/** Parses the timestamp at the start of a line; undefined when it is not a valid date. */\nexport function parseTimestamp(text: string): Date | undefined {\n  const date = new Date(text.replace(" ", "T"));',
      new: PARSE_LINE_AFTER.slice(
        PARSE_LINE_AFTER.indexOf("const HAS_OFFSET"),
        PARSE_LINE_AFTER.indexOf("  return Number.isNaN(date.getTime())"),
      ),
    },
    "Edited src/parse-line.ts: 1 replacement.",
  );
  r.tool(
    "edit_file",
    { path: "src/since.ts", old: SINCE_FIXED, new: SINCE_FINAL },
    "Edited src/since.ts: 1 replacement.",
  );
  r.tool(
    "edit_file",
    {
      path: "test/since.test.ts",
      old: '  it("rejects an empty value"',
      new: '  it("reads an ISO timestamp without offset as UTC", () =>\n    expect(since("2026-03-01T08:15")).toBe("2026-03-01T08:15:00.000Z"));\n  it("rejects an empty value"',
    },
    "Edited test/since.test.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "TZ=Europe/Berlin npx vitest run" },
    renderVitestRun({
      suites: {
        ...TEST_NAMES,
        "test/parse-line.test.ts": PARSE_LINE_NAMES,
        "test/since.test.ts": [...SINCE_TEST_NAMES, ...SINCE_NAIVE_TEST_NAMES],
      },
      salt: 4,
      startAt: START_AT(9, 31),
    }),
    { seconds: 2.6 },
  );
  r.say(
    "Done. `parseTimestamp` appends `Z` when a timestamp has no offset, and `parseSince` does the same for ISO values with a time part. I ran the whole suite under `TZ=Europe/Berlin` so a local-time regression would show up: all 60 tests pass, including the new UTC test.",
  );
  r.endTurn();

  r.user("Stop asking me before every command, just run them. Then make the filter actually use since.");
  r.configure({ conversation: { tools: { run_command: { run: "unattended" } } } });
  r.think(
    "Config changed so run_command is unattended. Now add the comparison to filter.ts `matches`, plus tests for the boundary and missing timestamps.",
  );
  r.tool(
    "edit_file",
    {
      path: "src/filter.ts",
      old: "  if (options.logger && !matchesLogger(record.logger, options.logger)) return false;",
      new: "  if (options.logger && !matchesLogger(record.logger, options.logger)) return false;\n  // A record without a timestamp under --since is dropped: we cannot tell when it was written.\n  if (options.since && (!record.timestamp || record.timestamp < options.since)) return false;",
    },
    "Edited src/filter.ts: 1 replacement.",
  );
  r.tool(
    "edit_file",
    {
      path: "test/filter.test.ts",
      old: 'describe("createFilter", () => {',
      new: 'describe("createFilter", () => {\n  const SINCE = new Date("2026-03-10T10:00:00.000Z");\n  it("keeps records at the --since instant", () => {\n    expect(createFilter({ since: SINCE })(record("2026-03-10T10:00:00.000Z"))).toBe(true);\n  });\n  it("drops records before --since", () => {\n    expect(createFilter({ since: SINCE })(record("2026-03-10T09:59:59.999Z"))).toBe(false);\n  });\n  it("drops records without a timestamp under --since", () => {\n    expect(createFilter({ since: SINCE })({ ...record("2026-03-10T10:00:00.000Z"), timestamp: undefined })).toBe(false);\n  });',
    },
    "Edited test/filter.test.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "npx vitest run" },
    renderVitestRun({
      suites: {
        ...TEST_NAMES,
        "test/parse-line.test.ts": PARSE_LINE_NAMES,
        "test/filter.test.ts": [...TEST_NAMES["test/filter.test.ts"], ...FILTER_SINCE_TEST_NAMES],
        "test/since.test.ts": [...SINCE_TEST_NAMES, ...SINCE_NAIVE_TEST_NAMES],
      },
      salt: 5,
      startAt: START_AT(9, 40),
    }),
    { seconds: 2.4 },
  );
  r.say(
    "The filter now drops records older than `since`, and records without a timestamp when `--since` is set (a lone stack-trace line at the top of a file can't be dated). 63 tests pass.",
  );
  r.endTurn();

  r.user(
    "Wait, dropping undated records: continuation lines under a kept record still show up, right? And performance matters: files can be 2 GB, so don't load the whole file into memory.",
  );
  r.think(
    "createFilter checks `record.level === undefined` first and returns parentKept, so continuation lines never reach `matches`; only a leading continuation line (no parent) is dropped because parentKept starts true... actually parentKept starts true, so a leading undated line is kept. Hmm: matches() is never called for undated lines. So the comment in matches is about records that have a level but no timestamp, which cannot happen with LINE_PATTERN. Fine, harmless. For memory: check read-lines.ts.",
  );
  r.tool("read_file", { path: "src/read-lines.ts" }, numbered(READ_LINES));
  r.say(
    "Yes: continuation lines are decided before any option is checked (`record.level === undefined` returns the parent's fate), so a stack trace under a kept record is kept. Correction to what I said: a continuation line at the very top of a file is kept too, since there is no parent yet.\n\nMemory is fine: `readLines` streams through `readline` and never buffers the file. I decided not to stop reading at the first line older than `--since`, because rotated and merged logs interleave, so an old line doesn't prove the rest is old. That keeps the filter correct at the cost of reading the whole file; it is still O(1) memory.",
  );
  r.endTurn();

  r.user("Makes sense. How long does it take on a big file? There's a 400 MB one at logs/big.log.");
  r.tool(
    "run_command",
    { command: "/usr/bin/time -v node dist/cli.js --since 2h logs/big.log > /dev/null" },
    "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/home/dana/src/logcat/dist/cli.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n    at Module._load (node:internal/modules/cjs/loader:1051:27)\n    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:174:12)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.11.1\n\tCommand being timed: \"node dist/cli.js --since 2h logs/big.log\"\n\tExit status: 1\n\nexit code: 1",
    { seconds: 0.3 },
  );
  r.say("dist/ doesn't exist yet; I need to build first.");
  r.tool(
    "run_command",
    { command: "npm run build" },
    "\n> logcat@0.4.2 build\n> tsc -p tsconfig.build.json\n\nexit code: 0",
    { seconds: 4.1 },
  );
  r.tool(
    "run_command",
    { command: "/usr/bin/time -v node dist/cli.js --since 2h logs/big.log > /dev/null" },
    '\tCommand being timed: "node dist/cli.js --since 2h logs/big.log"\n\tUser time (seconds): 6.84\n\tSystem time (seconds): 0.41\n\tPercent of CPU this job got: 103%\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:07.02\n\tMaximum resident set size (kbytes): 61244\n\tFile system inputs: 0\n\tFile system outputs: 0\n\tExit status: 0\n\nexit code: 0',
    { seconds: 7.1 },
  );
  r.say(
    "After `npm run build`: 7.0 s wall clock for 400 MB, with a peak RSS of about 60 MB, so memory stays flat. Most of the time is the regular expression in `parseLine`, not the new filter.",
  );
  r.endTurn();
}

function turnsElevenToFifteen(r) {
  r.user("Fine for now. Update the help text check and the README: document the formats and the UTC rule.");
  r.tool(
    "read_file",
    { path: "README.md" },
    numbered(
      "# logcat\n\nFilter and pretty-print structured application logs.\n\n## Install\n\n```sh\nnpm install -g logcat\n```\n\n## Usage\n\n```sh\nlogcat --level warn app.log\nlogcat --grep 'POST /orders' --json app.log | jq .\ntail -f app.log | logcat --logger http\n```\n\n## Exit codes\n\n| code | meaning |\n| --- | --- |\n| 0 | ok |\n| 1 | a file could not be read |\n| 2 | bad usage |\n",
    ),
  );
  r.tool(
    "edit_file",
    { path: "README.md", old: "## Exit codes", new: `${README_SECTION}\n## Exit codes` },
    "Edited README.md: 1 replacement.",
  );
  r.tool(
    "edit_file",
    {
      path: "README.md",
      old: "logcat --level warn app.log\n",
      new: "logcat --level warn app.log\nlogcat --since 2h --level error app.log\n",
    },
    "Edited README.md: 1 replacement.",
  );
  r.say(
    "The README has a new *Filtering by time* section with a table of accepted values and the UTC rule, plus a usage example. The `--help` text was already updated when I added the option.",
  );
  r.endTurn();

  r.user("Add an end-to-end test for the CLI: a temp log file, a fixed clock, the real `main`.");
  r.think(
    "test/cli-since.test.ts: write a small log to a temp dir, run main with a fixed now. main has a `now` parameter, but the test file I sketched uses vi.useFakeTimers for Date; passing now is cleaner but the fake timers also cover anything else using Date. Keep fake timers limited to Date. Cases: 2h window, continuation lines, ISO value, combination with --level, bad value exit 2, given twice exit 2.",
  );
  r.tool("read_file", { path: "src/cli.ts" }, numbered(CLI_WITH_SINCE));
  r.tool(
    "edit_file",
    { path: "test/cli-since.test.ts", old: "", new: CLI_TEST },
    "Created test/cli-since.test.ts (58 lines).",
  );
  r.tool(
    "run_command",
    { command: "npx vitest run test/cli-since.test.ts" },
    renderVitestRun({
      suites: { "test/cli-since.test.ts": CLI_SINCE_TEST_NAMES },
      failures: {
        "test/cli-since.test.ts > logcat --since > exits 2 when given twice": failureDetail({
          expected: "2",
          received: "0",
          location: "test/cli-since.test.ts:55:18",
          source: [
            '     53|   it("exits 2 when given twice", async () => {',
            '     54|     const { code, stderr } = await run(["--since", "2h", "--since", "1h"]);',
            "     55|     expect(code).toBe(2);",
            "       |                  ^",
            '     56|     expect(stderr).toContain("only once");',
          ],
        }).map((line) => line.replace("expected '0' to be '2'", "expected 0 to be 2")),
      },
      salt: 6,
      startAt: START_AT(10, 12),
    }),
    { seconds: 2.2 },
  );
  r.say(
    '5 of 6 pass. `exits 2 when given twice` fails with exit code 0: as I suspected, `parseArgs` keeps the last value of a repeated string option without complaint, which breaks your "only one --since" rule. I\'ll declare the option with `multiple: true` and reject more than one value.',
  );
  r.endTurn();

  r.user("Yes, do that.");
  r.tool(
    "edit_file",
    {
      path: "src/cli.ts",
      old: '      since: { type: "string", short: "s" },',
      new: '      since: { type: "string", short: "s", multiple: true },',
    },
    "Edited src/cli.ts: 1 replacement.",
  );
  r.tool(
    "edit_file",
    { path: "src/cli.ts", old: SINCE_GUARDED, new: SINCE_ONCE },
    "Edited src/cli.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "npx vitest run test/cli-since.test.ts" },
    renderVitestRun({
      suites: { "test/cli-since.test.ts": CLI_SINCE_TEST_NAMES },
      salt: 7,
      startAt: START_AT(10, 15),
    }),
    { seconds: 2.0 },
  );
  r.say(
    "Fixed: `--since` given twice now exits 2 with `--since may be given only once`, and all 6 end-to-end tests pass.",
  );
  r.endTurn();

  r.user(
    "What about `--until`? I'll need it eventually to cut a window out of an incident. Not now, but keep it in mind and tell me what it would take.",
  );
  r.think(
    "--until is symmetric: parseSince could be generalized into parseTimeBound(value, now, flagName) so error messages name the right flag. Filter adds `until?: Date` and drops records after it. Edge: --until before --since should be a usage error. Not implementing now.",
  );
  r.say(
    "Noted, not implementing it now. What it would take:\n\n- generalize `parseSince` into `parseTimeBound(value, now, flag)` so the error names the right flag;\n- add `until?: Date` to `FilterOptions` and drop records written after it (exclusive, so `--since 10:00 --until 11:00` cuts a one-hour window);\n- a usage error when `--until` is before `--since`.\n\nIt's about the size of today's change minus the parser. I'll list it as an open item at the end.",
  );
  r.endTurn();

  r.user("Add a CHANGELOG entry for this.");
  r.tool("read_file", { path: "CHANGELOG.md" }, numbered(CHANGELOG_BEFORE));
  r.tool(
    "edit_file",
    {
      path: "CHANGELOG.md",
      old: "## [Unreleased]\n",
      new: "## [Unreleased]\n\n### Added\n\n- `--since`/`-s VALUE`: keep records written since a duration ago (`2h`, `1h30m`) or an ISO time.\n\n### Changed\n\n- Timestamps without an offset are read as UTC instead of local time.\n",
    },
    "Edited CHANGELOG.md: 1 replacement.",
  );
  r.say(
    "Added an *Unreleased* entry: `--since` under Added, and the UTC reading of offset-less timestamps under Changed, since that one can change existing output for people outside UTC.",
  );
  r.endTurn();
}

function turnsSixteenToTwenty(r) {
  r.user("Run the linter.");
  r.tool("run_command", { command: "npx biome check src test" }, BIOME_OUTPUT, { seconds: 1.1 });
  r.think(
    "Two noAssignInExpressions in the test's io callbacks and a missing semicolon in cli.ts from my last edit. Fix both by hand rather than --write so the test reads clearly.",
  );
  r.tool(
    "edit_file",
    {
      path: "test/cli-since.test.ts",
      old: "{ stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) }",
      new: "{\n      stdout: (text) => {\n        stdout += text;\n      },\n      stderr: (text) => {\n        stderr += text;\n      },\n    }",
    },
    "Edited test/cli-since.test.ts: 1 replacement.",
  );
  r.tool(
    "edit_file",
    {
      path: "src/cli.ts",
      old: "parseSince(values.since[0]!, now())\n",
      new: "parseSince(values.since[0]!, now());\n",
    },
    "Edited src/cli.ts: 1 replacement.",
  );
  r.tool(
    "run_command",
    { command: "npx biome check src test" },
    "Checked 11 files in 16ms. No fixes applied.\n\nexit code: 0",
    { seconds: 0.9 },
  );
  r.say(
    "Lint is clean: I replaced the assignment-in-expression callbacks in the test with block bodies and added the missing semicolon in `src/cli.ts`.",
  );
  r.endTurn();

  r.user("Double-check it works on Node 20: show me the node version and run the whole suite.");
  r.tool(
    "run_command",
    { command: "node --version && npx vitest run" },
    `v20.11.1\n${renderVitestRun({
      suites: {
        ...TEST_NAMES,
        "test/parse-line.test.ts": PARSE_LINE_NAMES,
        "test/filter.test.ts": [...TEST_NAMES["test/filter.test.ts"], ...FILTER_SINCE_TEST_NAMES],
        "test/since.test.ts": [...SINCE_TEST_NAMES, ...SINCE_NAIVE_TEST_NAMES],
        "test/cli-since.test.ts": CLI_SINCE_TEST_NAMES,
      },
      salt: 8,
      startAt: START_AT(10, 41),
    })}`,
    { seconds: 2.9 },
  );
  r.tool(
    "run_command",
    {
      command:
        "npm run build && node dist/cli.js --help && node dist/cli.js --since 90m --level warn logs/app.log | head -n 20",
    },
    `\n> logcat@0.4.2 build\n> tsc -p tsconfig.build.json\n\n${CLI_BEFORE.slice(CLI_BEFORE.indexOf("Usage:"), CLI_BEFORE.indexOf("`;\n\nexport interface")).replace(EDIT_HELP.old, EDIT_HELP.new)}${renderLogExcerpt(
      200,
    )
      .split("\n")
      .filter((line) => / (WARN|ERROR) /.test(line))
      .slice(0, 20)
      .map(
        (line) =>
          `${line.slice(11, 23)} ${line.includes(" WARN ") ? "WARN " : "ERROR"} ${line.slice(line.indexOf("[") + 1).replace("] ", ": ")}`,
      )
      .join("\n")}\n\nexit code: 0`,
    { seconds: 5.2 },
  );
  r.say(
    "Node v20.11.1, and the full suite passes: 69 tests in 6 files. Nothing in the change needs anything newer than Node 20 (`parseArgs` with `multiple` has been stable since 18.11).",
  );
  r.endTurn();

  r.user("Show me the diff summary.");
  r.tool(
    "run_command",
    { command: "git diff --stat" },
    " CHANGELOG.md           |  8 ++++++++\n README.md              | 17 +++++++++++++++++\n src/cli.ts             | 14 ++++++++++++--\n src/filter.ts          |  4 ++++\n src/parse-line.ts      | 11 +++++++++--\n src/since.ts           | 47 +++++++++++++++++++++++++++++++++++++++++++++++\n test/cli-since.test.ts | 64 ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n test/filter.test.ts    | 10 ++++++++++\n test/since.test.ts     | 35 +++++++++++++++++++++++++++++++++++\n 9 files changed, 206 insertions(+), 4 deletions(-)\n\nexit code: 0",
    { seconds: 0.1 },
  );
  r.tool(
    "run_command",
    { command: "git diff -- src/cli.ts src/filter.ts" },
    `${renderDiff("src/cli.ts", CLI_BEFORE, [EDIT_IMPORT, EDIT_HELP, EDIT_MAIN, EDIT_SIGNATURE, { old: EDIT_OPTION.old, new: EDIT_OPTION.new.replace('short: "s" }', 'short: "s", multiple: true }') }, { old: EDIT_FILTER_BUGGY.old, new: EDIT_FILTER_BUGGY.new.replace(SINCE_BUGGY, SINCE_ONCE.replace("now())\n", "now());\n")) }])}\n${renderDiff(
      "src/filter.ts",
      FILTER_BEFORE,
      [
        {
          old: "  logger?: string;\n}",
          new: "  logger?: string;\n  /** Keep records written at or after this instant (see since.ts for how it is parsed). */\n  since?: Date;\n}",
        },
        {
          old: "  if (options.logger && !matchesLogger(record.logger, options.logger)) return false;",
          new: "  if (options.logger && !matchesLogger(record.logger, options.logger)) return false;\n  // A record without a timestamp under --since is dropped: we cannot tell when it was written.\n  if (options.since && (!record.timestamp || record.timestamp < options.since)) return false;",
        },
      ],
    )}\n\nexit code: 0`,
    { seconds: 0.1 },
  );
  r.tool("read_file", { path: "src/since.ts" }, numbered(SINCE_FINAL));
  r.say(
    "Nine files, 206 lines added and 4 removed; the new code is `src/since.ts` and the rest is wiring, tests and docs.",
  );
  r.endTurn();

  r.user("Commit it with a sensible message.");
  r.tool(
    "run_command",
    { command: 'git add -A && git commit -m "Add --since filter (durations and ISO times, UTC)"' },
    "[feature/since 3f9c2a1] Add --since filter (durations and ISO times, UTC)\n 9 files changed, 206 insertions(+), 4 deletions(-)\n create mode 100644 src/since.ts\n create mode 100644 test/cli-since.test.ts\n create mode 100644 test/since.test.ts\n\nexit code: 0",
    { seconds: 0.3 },
  );
  r.say("Committed on `feature/since` as 3f9c2a1.");
  r.endTurn();

  r.user(
    "Great. Can you also make `--since` accept `yesterday` and `today`? And remind me what's left before I open the PR.",
  );
  r.think(
    "yesterday/today need a day boundary: midnight in which zone? We said UTC for timestamps, so midnight UTC is consistent but may surprise users in other zones. That is a product question for the user; I should not decide it silently. List the open items: --until, the timezone question for named days, asking ops whether every service logs in UTC, and the early-exit optimisation we decided against.",
  );
  r.say(
    "Before adding `yesterday` and `today` I need one decision from you: should they mean midnight **UTC** (consistent with how we read log timestamps) or midnight in the machine's local zone (what people usually expect)? Tell me which and I'll add them to `parseSince` with tests.\n\nWhat's left before the PR:\n\n- TODO: decide the day boundary for `yesterday`/`today`, then implement them.\n- TODO: `--until` (see the outline above); it can be a follow-up PR.\n- Next step: ask the ops team to confirm that every service writes logs with TZ=UTC; the UTC rule in `parseTimestamp` depends on it.\n- Open question: a `--timezone` flag if some services don't log in UTC.\n- The performance note stands: we read whole files because rotated logs interleave; 400 MB takes about 7 s.",
  );
  r.endTurn();
}

function buildConversation(clock) {
  const recorder = createRecorder(clock);
  turnsOneToFive(recorder);
  turnsSixToTen(recorder);
  turnsElevenToFifteen(recorder);
  turnsSixteenToTwenty(recorder);
  return recorder.events;
}

function main() {
  const clock = createClock();
  const createdAt = clock.now();
  const events = buildConversation(clock);
  const header = { cxc: "conversation-log", version: 1, id: CONVERSATION_ID, created_at: createdAt };
  const lines = [header, ...events].map((value) => JSON.stringify(value));
  mkdirSync(outputDirectory, { recursive: true });
  writeFileSync(join(outputDirectory, "coding-session.jsonl"), `${lines.join("\n")}\n`);
  const meta = { id: CONVERSATION_ID, title: TITLE, created_at: createdAt, updated_at: events.at(-1).ts };
  writeFileSync(join(outputDirectory, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
  const size = lines.reduce((total, line) => total + line.length + 1, 0);
  console.log(`wrote ${events.length} events, ${(size / 1024).toFixed(1)} KB`);
}

main();
