/**
 * Which agent session a `cxc mcp` server serves (docs/recall.md, "Inside Claude Code and Codex").
 *
 * The agent runs cxc twice, both times as its own child: the hooks (through a shell or not) and
 * the MCP server. The server is not told its session by the agent, so the `SessionStart` hook
 * (a new session, a resumed one, a `/clear`, a compaction) and the `Stop` hook (the end of every
 * turn) record `session → transcript` under the agent's process id, and the server, a child of
 * the same process, looks it up there. Two sessions in one project are two agent processes: each
 * server finds only its own. A record holds the agent process's start time too, so a process id
 * used again by a later process never finds a stale record.
 *
 * The agent process is the nearest ancestor that is not a shell. Linux reads `/proc`; elsewhere
 * `ps` is asked. Records live in the state directory, `mcp/<agent>-<pid>.json`, replaced
 * atomically; a `/clear` or a resume in the same process records the new session over the old
 * when it starts. A Claude Code process resumed on a named session (`--resume ID`) whose hooks
 * predate the `SessionStart` entry for every start is known from its command line.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { claudeCodeProjectFolder } from "../../core/interop/agent-session.js";
import { ensureDirectory } from "../../store/index.js";
import { stateDirectory } from "./state.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The process names that stand between an agent and the command it runs. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "busybox", "env"]);

/** One process: its parent, its command name, when it started (an opaque, comparable text). */
interface ProcessInfo {
  readonly parent: number;
  readonly name: string;
  readonly started: string;
}

function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // `pid (name) state ppid … starttime(22nd)`: the name may hold spaces and parentheses.
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat
      .slice(close + 2)
      .trim()
      .split(" ");
    return { parent: Number(fields[1]), name, started: fields[19] ?? "" };
  } catch {
    if (process.platform === "linux") return undefined;
  }
  try {
    const line = execFileSync("ps", ["-o", "ppid=,lstart=,comm=", "-p", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    }).trim();
    const match = /^(\d+)\s+(\S+\s+\S+\s+\d+\s+[\d:]+\s+\d+)\s+(.*)$/.exec(line);
    if (match === null) return undefined;
    const command = match[3]!.split("/").pop() ?? "";
    return { parent: Number(match[1]), name: command, started: match[2]! };
  } catch {
    return undefined;
  }
}

/** The agent process above this one: the nearest ancestor that is not a shell. */
export function agentProcess(from: number = process.ppid): { pid: number; started: string } | undefined {
  let pid = from;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const info = processInfo(pid);
    if (info === undefined) return undefined;
    if (!SHELLS.has(info.name.replace(/^-/, ""))) return { pid, started: info.started };
    pid = info.parent;
  }
  return undefined;
}

/** What the hook records of a session. */
export interface SessionRecord {
  readonly agent: string;
  readonly session_id: string;
  readonly transcript_path: string;
  readonly cwd?: string;
  readonly pid: number;
  readonly started: string;
  readonly recorded_at: string;
}

function recordsDirectory(env: Environment): string {
  return join(stateDirectory(env), "mcp");
}

function recordPath(env: Environment, agent: string, pid: number): string {
  return join(recordsDirectory(env), `${agent}-${pid}.json`);
}

/** Records the session of the agent process above (the `Stop` and `SessionStart` hooks). */
export function recordAgentSession(
  env: Environment,
  agent: string,
  session: { readonly sessionId: string; readonly transcriptPath: string; readonly cwd?: string },
  from?: number,
): SessionRecord | undefined {
  const owner = agentProcess(from);
  if (owner === undefined) return undefined;
  const record: SessionRecord = {
    agent,
    session_id: session.sessionId,
    transcript_path: session.transcriptPath,
    ...(session.cwd === undefined ? {} : { cwd: session.cwd }),
    pid: owner.pid,
    started: owner.started,
    recorded_at: new Date().toISOString(),
  };
  const path = recordPath(env, agent, owner.pid);
  ensureDirectory(recordsDirectory(env));
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  pruneRecords(env);
  return record;
}

/** The session the agent process above recorded, or why there is none. */
export function lookupAgentSession(
  env: Environment,
  agent: string,
  from?: number,
): { ok: true; record: SessionRecord } | { ok: false; reason: string } {
  const owner = agentProcess(from);
  if (owner === undefined)
    return { ok: false, reason: "cxc cannot tell which agent process started this server" };
  let record: SessionRecord;
  try {
    record = JSON.parse(readFileSync(recordPath(env, agent, owner.pid), "utf8")) as SessionRecord;
  } catch {
    const resumed = agent === "claude-code" ? resumedClaudeSession(env, owner) : undefined;
    if (resumed !== undefined) return { ok: true, record: resumed };
    return {
      ok: false,
      reason: `no session is recorded yet for this ${agent} process (pid ${owner.pid}): cxc's hooks record it when the session starts (SessionStart) and at the end of each turn (Stop); finish this turn and call again, or install the hooks with \`cxc hooks install --agent ${agent}\``,
    };
  }
  if (record.started !== owner.started)
    return {
      ok: false,
      reason: `the session recorded for pid ${owner.pid} belongs to an earlier process; cxc's hook records this one at the end of this turn: call again then`,
    };
  return { ok: true, record };
}

/**
 * A Claude Code process started on a named session (`--resume ID`, `-r ID`, `--session-id ID`)
 * before its first turn ended (so before its first `Stop` recorded it): the session its command
 * line names, in the project folder of its working directory, when that transcript exists. Read
 * from `/proc` (Linux); elsewhere, undefined.
 */
function resumedClaudeSession(
  env: Environment,
  owner: { pid: number; started: string },
): SessionRecord | undefined {
  try {
    const argv = readFileSync(`/proc/${owner.pid}/cmdline`, "utf8").split("\0");
    let id: string | undefined;
    for (let index = 0; index < argv.length - 1; index++)
      if (["--resume", "-r", "--session-id"].includes(argv[index]!)) id = argv[index + 1];
    if (id === undefined || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const cwd = readlinkSync(`/proc/${owner.pid}/cwd`);
    const configDirectory = env.CLAUDE_CONFIG_DIR || join(env.HOME ?? homedir(), ".claude");
    const path = join(configDirectory, "projects", claudeCodeProjectFolder(cwd), `${id}.jsonl`);
    if (!existsSync(path)) return undefined;
    return {
      agent: "claude-code",
      session_id: id,
      transcript_path: path,
      cwd,
      pid: owner.pid,
      started: owner.started,
      recorded_at: new Date().toISOString(),
    };
  } catch {
    return undefined;
  }
}

/** Removes records older than a week (their processes are long gone). */
function pruneRecords(env: Environment): void {
  const directory = recordsDirectory(env);
  const cutoff = Date.now() - 7 * 24 * 3600 * 1000;
  try {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    }
  } catch {
    // A record left behind costs a few bytes.
  }
}
