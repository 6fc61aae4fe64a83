/**
 * Where opencode's sessions are read from: its SQLite database (`opencode.db` in its data folder,
 * `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`), or a document `opencode export`
 * printed. The conversion is src/core/interop/opencode.ts; this module reads rows.
 *
 * The database is opened read-only through Node's own SQLite (`node:sqlite`, Node 22.13 and later;
 * 22.5 to 22.12 with `--experimental-sqlite`)
 * with a busy timeout, each session's rows read in one transaction, so a running opencode is never
 * disturbed and never seen half-way through a write. Where Node has no SQLite (Node 20), the rows
 * are read through opencode's own command, `opencode db --pure "<query>" --format json`, with
 * `OPENCODE_DB` naming the file (two runs of it: the sessions, then every message and part): the
 * `opencode` on PATH must be installed. A database another
 * process holds locked past the timeout is one error, and nothing is imported.
 */
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { findOnPath } from "./files.js";
import { checkOpencodeDocument, type OpencodeDocument } from "../core/interop/opencode.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../core/json-syntax.js";
import { CxcError } from "../errors.js";
import type { Parsed } from "../core/parsed.js";

type Json = Record<string, unknown>;

/** How long a read waits for a lock another process holds. */
const BUSY_TIMEOUT_MS = 3000;

/** The sessions of a source and a way to load each. */
export interface OpencodeSource {
  /** The file read: the database, or the document. */
  readonly path: string;
  /** The sessions' `info`, subagent sessions (with a parent) included. */
  readonly sessions: readonly Json[];
  /** The ids of the sessions holding a user message (the others hold nothing to import). */
  readonly prompted: ReadonlySet<string>;
  /** A session's messages and parts, in the export's shape. */
  load(sessionId: string): Parsed<OpencodeDocument>;
  close(): void;
}

const SQLITE_HEADER = "SQLite format 3\u0000";

/** The database a path stands for: an `opencode*.db` file, or the data folder holding `opencode.db`. */
export function opencodeDatabase(path: string): string | undefined {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  if (stats.isDirectory()) {
    const inside = join(path, "opencode.db");
    if (existsSync(inside)) return inside;
    const channel = readdirSync(path).find((name) => /^opencode(-[\w.-]+)?\.db$/.test(name));
    return channel === undefined ? undefined : join(path, channel);
  }
  if (!/\.db$/.test(path) || !/opencode/.test(path)) return undefined;
  return startsWith(path, SQLITE_HEADER) ? path : undefined;
}

/** Whether a `.json` file is a document `opencode export` printed. */
export function isOpencodeDocument(path: string): boolean {
  if (!path.endsWith(".json")) return false;
  const head = readHead(path, 64 * 1024);
  return head !== undefined && /"info"\s*:/.test(head) && /"id"\s*:\s*"ses_/.test(head);
}

/**
 * Opens an opencode database or document for reading. Throws a `CxcError` saying what is wrong.
 * `env` gives the PATH where `opencode` is looked for (Node without SQLite).
 */
export function openOpencodeSource(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): OpencodeSource {
  const database = opencodeDatabase(path);
  if (database !== undefined) return openDatabase(resolve(database), env);
  return openDocument(path);
}

function openDocument(path: string): OpencodeSource {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CxcError("import-invalid", `${path}: cannot read it (${(error as Error).message})`);
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new CxcError(
      "import-invalid",
      `${path}: nested more than ${MAX_JSON_DEPTH} levels deep, which no session needs`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message.replace(/\s*in JSON at position \d+.*$/s, "");
    throw new CxcError("import-invalid", `${path}: not valid JSON (${reason}); not an opencode session`);
  }
  const document = checkOpencodeDocument(value, path);
  if (!document.ok) throw new CxcError("import-invalid", document.message);
  const info = document.value.info;
  const prompted = document.value.messages.some((message) => message.info.role === "user");
  return {
    path,
    sessions: [info],
    prompted: new Set(prompted ? [String(info.id)] : []),
    load: () => document,
    close: () => {},
  };
}

/** The few methods of `node:sqlite` cxc uses (Node 20's types do not have the module). */
interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): { all(...parameters: unknown[]): Record<string, unknown>[] };
  close(): void;
}
interface SqliteModule {
  readonly DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => SqliteDatabase;
}

/** `node:sqlite`, when this Node has it (22.5 and later, without a flag from 22.13). */
function nodeSqlite(): SqliteModule | undefined {
  const get = (process as { getBuiltinModule?: (name: string) => unknown }).getBuiltinModule;
  if (get === undefined) return undefined;
  // Loading it warns that SQLite is experimental on the Node versions that still say so.
  const listeners = process.listeners("warning");
  process.removeAllListeners("warning");
  try {
    return (get("node:sqlite") as SqliteModule | undefined) ?? undefined;
  } catch {
    return undefined;
  } finally {
    for (const listener of listeners) process.on("warning", listener);
  }
}

type Row = Record<string, unknown>;

/** Reads rows: through `node:sqlite`, or through `opencode db`. */
interface RowReader {
  /** The sessions, each with `prompted` 1 when it holds a user message. */
  sessions(): Row[];
  /** One session's messages and parts, read together (one transaction). */
  session(id: string): { messages: Row[]; parts: Row[] };
  close(): void;
}

const SESSIONS =
  "SELECT id, parent_id, slug, project_id, directory, title, version, revert, time_created, time_updated, " +
  "EXISTS (SELECT 1 FROM message WHERE message.session_id = session.id AND json_extract(message.data, '$.role') = 'user') AS prompted " +
  "FROM session ORDER BY time_created";
const MESSAGES = "SELECT id, session_id, data FROM message WHERE session_id = ? ORDER BY id";
const PARTS = "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id";

function openDatabase(path: string, env: Readonly<Record<string, string | undefined>>): OpencodeSource {
  const sqlite = nodeSqlite();
  const reader = sqlite === undefined ? opencodeCommand(path, env) : sqliteReader(sqlite, path);
  const rows = reader.sessions();
  const sessions = rows.map(sessionInfo);
  const prompted = new Set(rows.filter((row) => Number(row.prompted) === 1).map((row) => String(row.id)));
  return {
    path,
    sessions,
    prompted,
    load: (sessionId) => loadSession(reader, path, sessions.find((info) => info.id === sessionId)!),
    close: () => reader.close(),
  };
}

function sqliteReader(sqlite: SqliteModule, path: string): RowReader {
  let database: SqliteDatabase;
  try {
    database = new sqlite.DatabaseSync(path, { readOnly: true });
    database.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    throw databaseError(path, error);
  }
  const transaction = <T>(read: () => T): T => {
    try {
      database.exec("BEGIN");
      try {
        return read();
      } finally {
        database.exec("COMMIT");
      }
    } catch (error) {
      throw databaseError(path, error);
    }
  };
  return {
    sessions: () => transaction(() => database.prepare(SESSIONS).all()),
    session: (id) =>
      transaction(() => ({
        messages: database.prepare(MESSAGES).all(id),
        parts: database.prepare(PARTS).all(id),
      })),
    close: () => database.close(),
  };
}

/** The one error for a database that cannot be read (locked by a running opencode, or not opencode's). */
function databaseError(path: string, error: unknown): CxcError {
  const message = (error as Error).message ?? String(error);
  if (/locked|busy/i.test(message)) {
    return new CxcError(
      "import-invalid",
      `${path}: the database is locked (a running opencode is writing to it); nothing was imported`,
      {
        hint: "try again in a moment, or when opencode is idle",
      },
    );
  }
  if (/no such table/i.test(message)) {
    return new CxcError("import-invalid", `${path}: not an opencode database (${message})`);
  }
  return new CxcError("import-invalid", `${path}: cannot read the database (${message})`);
}

/**
 * Rows through opencode's own `opencode db` (Node without SQLite): the sessions' query at once,
 * and all messages and parts in one query each, the first time a session is loaded.
 */
function opencodeCommand(path: string, env: Readonly<Record<string, string | undefined>>): RowReader {
  const binary = findOnPath("opencode", env.PATH ?? "");
  if (binary === undefined) {
    throw new CxcError(
      "import-invalid",
      `${path}: reading opencode's database needs Node 22.13 or later (node:sqlite), or the opencode command on PATH; this is Node ${process.versions.node} and no opencode was found`,
      {
        hint: "run cxc with a newer Node, or export the session with `opencode export <id> > session.json` and import that file",
      },
    );
  }
  const run = (sql: string): Record<string, unknown>[] => {
    let output: string;
    try {
      output = execFileSync(binary, ["db", "--pure", sql, "--format", "json"], {
        env: { ...env, OPENCODE_DB: path },
        encoding: "utf8",
        maxBuffer: 1 << 30,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? "");
      throw databaseError(path, new Error(stderr.trim().split("\n").at(-1) || (error as Error).message));
    }
    const trimmed = output.trim();
    if (trimmed === "") return [];
    try {
      const rows: unknown = JSON.parse(trimmed);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    } catch {
      throw new CxcError("import-invalid", `${path}: opencode db printed something that is not JSON rows`);
    }
  };
  const bySession = new Map<
    string,
    { messages: Record<string, unknown>[]; parts: Record<string, unknown>[] }
  >();
  let loaded = false;
  const loadAll = () => {
    if (loaded) return;
    loaded = true;
    const group = (rows: Record<string, unknown>[], table: "messages" | "parts") => {
      for (const row of rows) {
        const session = String(row.session_id);
        const entry = bySession.get(session) ?? { messages: [], parts: [] };
        entry[table].push(row);
        bySession.set(session, entry);
      }
    };
    // Both tables in one run of opencode (each costs a start of it).
    const rows = run(
      "SELECT 'message' AS kind, id, session_id, NULL AS message_id, data FROM message " +
        "UNION ALL SELECT 'part' AS kind, id, session_id, message_id, data FROM part ORDER BY kind, message_id, id",
    );
    group(
      rows.filter((row) => row.kind === "message"),
      "messages",
    );
    group(
      rows.filter((row) => row.kind === "part"),
      "parts",
    );
  };
  return {
    sessions: () => run(SESSIONS),
    session: (id) => {
      loadAll();
      return bySession.get(id) ?? { messages: [], parts: [] };
    },
    close: () => {},
  };
}

/** A `session` row as the `info` of `opencode export`. */
function sessionInfo(row: Record<string, unknown>): Json {
  const info: Json = {
    id: row.id,
    slug: row.slug,
    projectID: row.project_id,
    directory: row.directory,
    title: row.title,
    version: row.version,
    time: { created: Number(row.time_created), updated: Number(row.time_updated) },
  };
  if (typeof row.parent_id === "string" && row.parent_id !== "") info.parentID = row.parent_id;
  if (typeof row.revert === "string" && row.revert !== "") {
    try {
      info.revert = JSON.parse(row.revert);
    } catch {
      // A revert cxc cannot read hides nothing.
    }
  }
  return info;
}

/** A session's rows in the shape of `opencode export`. */
function loadSession(reader: RowReader, path: string, info: Json): Parsed<OpencodeDocument> {
  const label = `${path}#${String(info.id)}`;
  const parse = (row: Record<string, unknown>, what: string): Parsed<Json> => {
    const text = typeof row.data === "string" ? row.data : "";
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return {
        ok: false,
        message: `${label}: ${what} ${String(row.id)} is nested more than ${MAX_JSON_DEPTH} levels deep`,
      };
    }
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value))
        return { ok: true, value: value as Json };
    } catch {
      // Said below.
    }
    return { ok: false, message: `${label}: the data of ${what} ${String(row.id)} is not a JSON object` };
  };
  const messages: { info: Json; parts: Json[] }[] = [];
  const byId = new Map<string, Json[]>();
  const rows = reader.session(String(info.id));
  for (const row of rows.messages) {
    const data = parse(row, "message");
    if (!data.ok) return data;
    const parts: Json[] = [];
    byId.set(String(row.id), parts);
    // The parsed row is this function's own: its ids are set on it, not on a copy.
    const message = data.value;
    message.id = row.id;
    message.sessionID = info.id;
    messages.push({ info: message, parts });
  }
  for (const row of rows.parts) {
    const data = parse(row, "part");
    if (!data.ok) return data;
    const part = data.value;
    part.id = row.id;
    part.messageID = row.message_id;
    part.sessionID = info.id;
    byId.get(String(row.message_id))?.push(part);
  }
  return checkOpencodeDocument({ info, messages }, label);
}

function readHead(path: string, length: number): string | undefined {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    const buffer = Buffer.alloc(length);
    const read = readSync(descriptor, buffer, 0, length, 0);
    return buffer.subarray(0, read).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

function startsWith(path: string, prefix: string): boolean {
  return readHead(path, prefix.length) === prefix;
}
