#!/usr/bin/env node
/**
 * Regenerates the agent session fixtures in fixtures/agents/ by running the real agents.
 *
 *   npm ci --prefix agents                       # once: installs Claude Code, pi and Gemini CLI
 *   npm ci --prefix agents/codex                 # once: installs Codex
 *   npm ci --prefix agents/opencode              # once: installs opencode (see .ci/run for its env)
 *   node scripts/make-agent-fixtures.mjs [--agent claude-code|pi|codex|gemini|opencode] [--keep]
 *
 * Each agent runs offline in a temporary HOME against the loopback fake provider, which plays
 * the model from the scripts below: a multi-turn session with tool calls (parallel ones, a failing
 * one), a thinking block, and the agent's own compaction (`claude -p /compact`; pi's `compact`
 * RPC command; Codex's automatic compaction, told its window is small; Gemini CLI's compression,
 * after a reply that reports over half its window; opencode's automatic compaction, its window
 * made small), then one more turn. opencode keeps its sessions in a SQLite database: its fixture is
 * the document `opencode export` prints (`session.json`), which `opencode import` reads back. The session file the agent wrote is then made committable:
 *
 * - records holding the agent's own text (Claude Code's system prompt, tool, skill and agent
 *   descriptions: `api-request*` records and those attachments) are dropped, and the records that
 *   hung off a dropped one are linked to its nearest kept ancestor; pi stores none; Codex's
 *   `base_instructions`, developer messages (also inside its compaction) and `world_state`;
 *   Gemini CLI writes none (its context message names the machine and the folder, made
 *   placeholders like every path; its project hash is made the placeholder folder's);
 * - the temporary paths become placeholders (/home/user, /home/user/project).
 *
 * Finally the fixture is replayed: its placeholders are filled with another temporary HOME, and
 * the agent resumes it for one more turn; the script fails unless that request carries the
 * agent's summary and the last turn, and no longer carries what the summary replaced.
 * `scenario.json` beside each fixture records what the model was scripted to say, for the tests.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadTsModule } from "../test/helpers/load-ts.mjs";
import { trimClaudeSession } from "./trim-claude-session.mjs";

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: options } = parseArgs({
  options: { agent: { type: "string" }, keep: { type: "boolean", default: false } },
});
const { startFakeProvider } = await loadTsModule(join(projectRoot, "test/helpers/fake-provider.ts"));
const agents = await loadTsModule(join(projectRoot, "test/helpers/agents.ts"));

const FILES = { "notes.txt": "remember the milk\n", "todo.md": "- write the parser\n- add tests\n" };
const THINKING = { text: "The user wants the listing and both files.", signature: "sig-fixture-1" };
const text = (value) => ({ blocks: [{ type: "text", text: value }] });

/** A fresh temporary HOME and working directory holding FILES. */
function makePlace(label) {
  const root = mkdtempSync(join(tmpdir(), `cxc-agent-${label}-`));
  const place = { home: join(root, "home"), cwd: join(root, "project") };
  mkdirSync(place.home, { recursive: true });
  mkdirSync(place.cwd, { recursive: true });
  for (const [name, content] of Object.entries(FILES)) writeFileSync(join(place.cwd, name), content);
  return { root, place };
}

function binary(name) {
  const path = agents.agentBinary(projectRoot, name);
  if (path === undefined)
    throw new Error(
      `${name} is missing: run npm ci --prefix ${name === "codex" ? "agents/codex" : "agents"}`,
    );
  return path;
}

/** The version an agent reports (`2.1.332 (Claude Code)`, `codex-cli 0.169.0` → the number). */
async function versionOf(path, env) {
  const result = await agents.runAgent(path, ["--version"], { cwd: projectRoot, env });
  const text = result.stdout.trim() || result.stderr.trim();
  return /\d+\.\d+\.\d+/.exec(text)?.[0] ?? text.split(/\s/)[0];
}

function check(condition, message) {
  if (!condition) throw new Error(`fixture check failed: ${message}`);
}

function assertNoMachinePaths(content, root, label) {
  check(!content.includes(root), `${label} still holds the temporary path ${root}`);
  check(!content.includes(tmpdir() + "/cxc-agent"), `${label} still holds a temporary path`);
}

function readJsonLines(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
}

/** The JSON text of every message the agent sent in a recorded request. */
const messagesText = (request) => JSON.stringify(request.body?.messages ?? []);

// ---------------------------------------------------------------------------------------------
// Claude Code

const CLAUDE_MODEL = "claude-sonnet-4-5";
const CLAUDE_COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far";
const CLAUDE_SUMMARY =
  "The user listed the project: notes.txt says remember the milk, todo.md lists the parser and tests. There is no CHANGELOG.md.";

async function makeClaudeCode() {
  const claude = binary("claude");
  const { root, place } = makePlace("claude");
  const fake = await startFakeProvider({
    routes: [
      {
        bodyIncludes: CLAUDE_COMPACT_PROMPT,
        reply: text(
          `<analysis>Three turns about the project files.</analysis>\n<summary>${CLAUDE_SUMMARY}</summary>`,
        ),
      },
    ],
  });
  const env = agents.claudeCodeEnvironment(place, fake.url);
  const run = async (prompt, extra = []) => {
    const result = await agents.runAgent(
      claude,
      [
        "-p",
        prompt,
        "--output-format",
        "json",
        "--model",
        CLAUDE_MODEL,
        "--allowedTools",
        "Bash Read",
        ...extra,
      ],
      { cwd: place.cwd, env },
    );
    check(
      result.code === 0,
      `claude exited ${result.code}: ${result.stderr.slice(0, 500)} ${result.stdout.slice(0, 500)}`,
    );
    return JSON.parse(result.stdout);
  };
  const scenario = {
    agent: "claude-code",
    version: await versionOf(claude, env),
    model: CLAUDE_MODEL,
    prompts: [
      "What files are here? And what do my notes say: @notes.txt",
      "Is there a changelog?",
      "What should I do first?",
    ],
    answers: [
      "Two files: notes.txt (remember the milk) and todo.md (the parser, then tests).",
      "There is no CHANGELOG.md.",
      "Write the parser first.",
    ],
    thinking: THINKING,
    toolCalls: [
      { id: "toolu_fixture_ls", name: "Bash", input: { command: "ls", description: "List the files" } },
      { id: "toolu_fixture_todo", name: "Read", input: { file_path: `${place.cwd}/todo.md` } },
      {
        id: "toolu_fixture_changelog",
        name: "Bash",
        input: { command: "cat CHANGELOG.md", description: "Show the changelog" },
      },
    ],
    summary: CLAUDE_SUMMARY,
  };
  const [ls, todo, changelog] = scenario.toolCalls;
  const call = (spec) => ({ type: "tool-call", id: spec.id, name: spec.name, arguments: spec.input });
  fake.enqueue(
    {
      blocks: [
        { type: "thinking", ...THINKING },
        { type: "text", text: "I'll list the files and read the todo." },
        call(ls),
        call(todo),
      ],
    },
    text(scenario.answers[0]),
  );
  const first = await run(scenario.prompts[0]);
  const sessionId = first.session_id;
  fake.enqueue({ blocks: [call(changelog)] }, text(scenario.answers[1]));
  await run(scenario.prompts[1], ["--resume", sessionId]);
  await run("/compact", ["--resume", sessionId]);
  check(
    fake.requests.some((request) => request.route === 0),
    "Claude Code never asked for its summary",
  );
  fake.enqueue(text(scenario.answers[2]));
  await run(scenario.prompts[2], ["--resume", sessionId]);
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  await fake.close();

  const sessionPath = join(agents.claudeProjectDirectory(place), `${sessionId}.jsonl`);
  const records = trimClaudeSession(readJsonLines(sessionPath));
  check(
    records.some((record) => record.subtype === "compact_boundary"),
    "no compact_boundary record",
  );
  check(
    records.some((record) => record.isCompactSummary === true),
    "no compact summary record",
  );
  const content = agents.toPlaceholders(
    `${records.map((record) => JSON.stringify(record)).join("\n")}\n`,
    place,
  );
  assertNoMachinePaths(content, root, "the Claude Code fixture");
  const fixtureScenario = JSON.parse(
    agents.toPlaceholders(JSON.stringify({ ...scenario, sessionId }), place),
  );
  await replayClaudeCode(content, fixtureScenario);
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return { content, scenario: fixtureScenario };
}

/** Resumes the fixture in another HOME and checks the request Claude Code sends. */
async function replayClaudeCode(content, scenario) {
  const { root, place } = makePlace("claude-replay");
  const directory = agents.claudeProjectDirectory(place);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, `${scenario.sessionId}.jsonl`), agents.fromPlaceholders(content, place));
  const fake = await startFakeProvider({ replies: [text("Replayed.")] });
  const result = await agents.runAgent(
    binary("claude"),
    [
      "-p",
      "Anything else?",
      "--output-format",
      "json",
      "--model",
      CLAUDE_MODEL,
      "--resume",
      scenario.sessionId,
    ],
    { cwd: place.cwd, env: agents.claudeCodeEnvironment(place, fake.url) },
  );
  await fake.close();
  check(result.code === 0, `the replayed session did not resume: ${result.stderr.slice(0, 500)}`);
  const sent = messagesText(fake.requests.at(-1));
  check(sent.includes(CLAUDE_SUMMARY), "the resumed request lacks Claude Code's summary");
  check(sent.includes(scenario.answers[2]), "the resumed request lacks the last answer");
  check(!sent.includes(THINKING.text), "the resumed request still carries the compacted thinking");
  if (!options.keep) rmSync(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// pi

const PI_SUMMARY_SYSTEM = "You are a context summarization assistant";
const PI_SUMMARY = "## Goal\nLook at the project files.\n\n## Progress\n- notes.txt says remember the milk";

async function makePi() {
  const pi = binary("pi");
  const { root, place } = makePlace("pi");
  const fake = await startFakeProvider({
    routes: [{ bodyIncludes: PI_SUMMARY_SYSTEM, reply: text(PI_SUMMARY) }],
  });
  // A small budget of recent tokens so that pi's compaction summarizes the first turn and keeps
  // the second, whose long prompt is where the budget runs out (pi cuts at that user message).
  agents.writePiConfig(place.home, fake.url, { compaction: { keepRecentTokens: 60 } });
  const env = agents.piEnvironment(place);
  const model = ["--provider", agents.PI_PROVIDER, "--model", agents.PI_MODEL];
  const scenario = {
    agent: "pi",
    version: await versionOf(pi, env),
    model: `${agents.PI_PROVIDER}/${agents.PI_MODEL}`,
    prompts: [
      "What files are here, and what do the notes say?",
      "Is there a changelog? And please read todo.md in this project directory and tell me, in one short sentence, what it says we should work on next, since I plan the afternoon around it.",
      "What should I do first?",
    ],
    answers: [
      "Two files; notes.txt says to remember the milk.",
      "No changelog; the todo says to write the parser.",
      "Write the parser first.",
    ],
    thinking: THINKING,
    toolCalls: [
      { id: "toolu_fixture_ls", name: "bash", input: { command: "ls" } },
      { id: "toolu_fixture_notes", name: "read", input: { path: "notes.txt" } },
      { id: "toolu_fixture_changelog", name: "bash", input: { command: "cat CHANGELOG.md" } },
      { id: "toolu_fixture_todo", name: "read", input: { path: "todo.md" } },
    ],
    summary: PI_SUMMARY,
  };
  const [ls, notes, changelog, todo] = scenario.toolCalls;
  const call = (spec) => ({ type: "tool-call", id: spec.id, name: spec.name, arguments: spec.input });
  const run = async (args) => {
    const result = await agents.runAgent(pi, [...model, ...args], { cwd: place.cwd, env });
    check(result.code === 0, `pi exited ${result.code}: ${result.stderr.slice(0, 500)}`);
  };
  fake.enqueue(
    {
      blocks: [
        { type: "thinking", ...THINKING },
        { type: "text", text: "Let me look." },
        call(ls),
        call(notes),
      ],
    },
    text(scenario.answers[0]),
  );
  await run(["-p", scenario.prompts[0]]);
  const directory = agents.piSessionDirectory(place);
  const [fileName] = readdirSync(directory);
  const sessionPath = join(directory, fileName);
  fake.enqueue({ blocks: [call(changelog), call(todo)] }, text(scenario.answers[1]));
  await run(["--session", sessionPath, "-p", scenario.prompts[1]]);
  const rpc = new agents.PiRpc(pi, [...model, "--session", sessionPath], { cwd: place.cwd, env });
  const compacted = await rpc.command({ type: "compact" });
  check(compacted.success === true, `pi's compaction failed: ${JSON.stringify(compacted)}`);
  fake.enqueue(text(scenario.answers[2]));
  await rpc.prompt(scenario.prompts[2]);
  await rpc.close();
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  await fake.close();

  const entries = readJsonLines(sessionPath);
  const compaction = entries.find((entry) => entry.type === "compaction");
  check(compaction !== undefined, "no compaction entry");
  const kept = entries.find((entry) => entry.id === compaction.firstKeptEntryId);
  check(
    kept?.message?.role === "user" && kept.message.content[0]?.text === scenario.prompts[1],
    "pi's compaction did not keep the second turn from its prompt",
  );
  const content = agents.toPlaceholders(readFileSync(sessionPath, "utf8"), place);
  assertNoMachinePaths(content, root, "the pi fixture");
  const header = entries[0];
  const fixtureScenario = JSON.parse(
    agents.toPlaceholders(JSON.stringify({ ...scenario, sessionId: header.id }), place),
  );
  await replayPi(content, fixtureScenario);
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return { content, scenario: fixtureScenario };
}

/** Resumes the fixture in another HOME and checks the request pi sends. */
async function replayPi(content, scenario) {
  const { root, place } = makePlace("pi-replay");
  const fake = await startFakeProvider({ replies: [text("Replayed.")] });
  agents.writePiConfig(place.home, fake.url);
  const directory = agents.piSessionDirectory(place);
  mkdirSync(directory, { recursive: true });
  const sessionPath = join(directory, `replay_${scenario.sessionId}.jsonl`);
  writeFileSync(sessionPath, agents.fromPlaceholders(content, place));
  const result = await agents.runAgent(
    binary("pi"),
    [
      "--provider",
      agents.PI_PROVIDER,
      "--model",
      agents.PI_MODEL,
      "--session",
      sessionPath,
      "-p",
      "Anything else?",
    ],
    { cwd: place.cwd, env: agents.piEnvironment(place) },
  );
  await fake.close();
  check(result.code === 0, `the replayed session did not resume: ${result.stderr.slice(0, 500)}`);
  const sent = messagesText(fake.requests.at(-1));
  check(sent.includes(JSON.stringify(PI_SUMMARY).slice(1, -1)), "the resumed request lacks pi's summary");
  check(sent.includes(scenario.answers[2]), "the resumed request lacks the last answer");
  check(!sent.includes(THINKING.text), "the resumed request still carries the compacted thinking");
  if (!options.keep) rmSync(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Codex (pinned in agents/codex: npm ci --prefix agents/codex)

/** The summary the fake model writes when Codex compacts. */
const CODEX_SUMMARY = "The user listed the files, read notes.txt (remember the milk) and found no changelog.";
/** What Codex's compaction request asks for (it is answered by a route, not the queue). */
const CODEX_COMPACT_PROMPT = "CONTEXT CHECKPOINT COMPACTION";

/** Records and fields holding Codex's own text, dropped from the fixture. */
function trimCodexSession(records) {
  const ownText = (item) => item?.role === "developer";
  return records.flatMap((record) => {
    if (record.type === "world_state") return [];
    if (record.type === "response_item" && ownText(record.payload)) return [];
    if (record.type === "session_meta") {
      const { base_instructions: _instructions, ...payload } = record.payload;
      return [{ ...record, payload }];
    }
    if (record.type === "compacted") {
      const history = record.payload.replacement_history;
      const kept = Array.isArray(history)
        ? history.flatMap((item, index) => (ownText(item) ? [] : [index]))
        : [];
      const pick = (list) => (Array.isArray(list) ? kept.map((index) => list[index]) : list);
      return [
        {
          ...record,
          payload: {
            ...record.payload,
            replacement_history: pick(history),
            replacement_history_metadata: pick(record.payload.replacement_history_metadata),
          },
        },
      ];
    }
    return [record];
  });
}

async function makeCodex() {
  const codex = binary("codex");
  const { root, place } = makePlace("codex");
  const fake = await startFakeProvider({
    routes: [{ bodyIncludes: CODEX_COMPACT_PROMPT, reply: text(CODEX_SUMMARY) }],
  });
  agents.writeCodexConfig(place.home, fake.url);
  const env = agents.codexEnvironment(place);
  const run = async (args, config = []) => {
    const flags = config.flatMap((value) => ["-c", value]);
    const result = await agents.runAgent(
      codex,
      ["exec", "--skip-git-repo-check", "--json", ...flags, ...args],
      {
        cwd: place.cwd,
        env,
      },
    );
    check(result.code === 0, `codex exited ${result.code}: ${result.stderr.slice(-500)}`);
    return result.stdout;
  };
  const scenario = {
    agent: "codex",
    version: await versionOf(codex, env),
    model: `fake/${agents.CODEX_MODEL}`,
    prompts: [
      "What files are here, and what do the notes say?",
      "Is there a changelog?",
      "What should I do first?",
    ],
    answers: [
      "Two files; notes.txt says to remember the milk.",
      "There is no CHANGELOG.md.",
      "Write the parser first.",
    ],
    thinking: { text: "List the files, then read the notes.", signature: "enc-fixture-1" },
    toolCalls: [
      { id: "call_fixture_ls", name: "exec_command", input: { cmd: "ls" } },
      { id: "call_fixture_notes", name: "exec_command", input: { cmd: "cat notes.txt" } },
      { id: "call_fixture_changelog", name: "exec_command", input: { cmd: "cat CHANGELOG.md" } },
    ],
    summary: CODEX_SUMMARY,
  };
  const call = (spec) => ({ type: "tool-call", id: spec.id, name: spec.name, arguments: spec.input });
  const [ls, notes, changelog] = scenario.toolCalls;
  fake.enqueue(
    { blocks: [{ type: "thinking", ...scenario.thinking }, call(ls), call(notes)] },
    text(scenario.answers[0]),
  );
  const first = await run([scenario.prompts[0]]);
  const sessionId = /"thread_id":"([^"]+)"/.exec(first)?.[1];
  check(sessionId !== undefined, "codex printed no thread id");
  // The second answer reports a full window, so Codex compacts before the third turn.
  fake.enqueue({ blocks: [call(changelog)] }, { ...text(scenario.answers[1]), usage: { inputTokens: 9000 } });
  await run(["resume", sessionId, scenario.prompts[1]]);
  fake.enqueue(text(scenario.answers[2]));
  await run(
    ["resume", sessionId, scenario.prompts[2]],
    ["model_auto_compact_token_limit=8000", "model_context_window=20000"],
  );
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  const last = messagesText({ body: { messages: fake.requests.at(-1).body.input } });
  check(last.includes(CODEX_SUMMARY), "Codex's request after compacting lacks its summary");
  check(!last.includes("remember the milk\n"), "Codex's request after compacting still carries tool output");
  await fake.close();

  const sessions = agents.codexSessionDirectory(place);
  const file = readdirSync(sessions, { recursive: true }).find((name) =>
    String(name).endsWith(`${sessionId}.jsonl`),
  );
  check(file !== undefined, "no rollout file for the session");
  const records = trimCodexSession(readJsonLines(join(sessions, String(file))));
  check(
    records.some((record) => record.type === "compacted"),
    "Codex did not compact",
  );
  const content = agents.toPlaceholders(
    `${records.map((record) => JSON.stringify(record)).join("\n")}\n`,
    place,
  );
  assertNoMachinePaths(content, root, "the Codex fixture");
  const fixtureScenario = JSON.parse(
    agents.toPlaceholders(JSON.stringify({ ...scenario, sessionId }), place),
  );
  await replayCodex(content, fixtureScenario);
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return { content, scenario: fixtureScenario };
}

/** Resumes the fixture in another HOME (`codex exec resume`) and checks the request Codex sends. */
async function replayCodex(content, scenario) {
  const { root, place } = makePlace("codex-replay");
  const fake = await startFakeProvider({ replies: [text("Replayed.")] });
  agents.writeCodexConfig(place.home, fake.url);
  const directory = join(agents.codexSessionDirectory(place), "2026", "01", "01");
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, `rollout-2026-01-01T00-00-00-${scenario.sessionId}.jsonl`),
    agents.fromPlaceholders(content, place),
  );
  const result = await agents.runAgent(
    binary("codex"),
    ["exec", "--skip-git-repo-check", "--json", "resume", scenario.sessionId, "Anything else?"],
    { cwd: place.cwd, env: agents.codexEnvironment(place) },
  );
  await fake.close();
  check(result.code === 0, `the replayed session did not resume: ${result.stderr.slice(-500)}`);
  const sent = messagesText({ body: { messages: fake.requests.at(-1).body.input } });
  check(sent.includes(CODEX_SUMMARY), "the resumed request lacks Codex's summary");
  check(sent.includes(scenario.answers[2]), "the resumed request lacks the last answer");
  check(!sent.includes(scenario.thinking.text), "the resumed request still carries the compacted reasoning");
  if (!options.keep) rmSync(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI

const GEMINI_SNAPSHOT =
  "<state_snapshot>The user listed the files and read notes.txt (remember the milk); there is no changelog.</state_snapshot>";

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

async function makeGemini() {
  const gemini = binary("gemini");
  const { root, place } = makePlace("gemini");
  const fake = await startFakeProvider({
    routes: [
      { bodyIncludes: "generate the updated <state_snapshot>", reply: text(GEMINI_SNAPSHOT) },
      { bodyIncludes: "Critically evaluate the <state_snapshot>", reply: text(GEMINI_SNAPSHOT) },
    ],
  });
  agents.writeGeminiSettings(place.home);
  const env = agents.geminiEnvironment(place, fake.url);
  const run = async (args) => {
    const result = await agents.runAgent(
      gemini,
      ["-m", agents.GEMINI_MODEL, "--yolo", "-o", "json", ...args],
      { cwd: place.cwd, env },
    );
    check(result.code === 0, `gemini exited ${result.code}: ${result.stderr.slice(-500)}`);
    return JSON.parse(result.stdout).session_id;
  };
  const scenario = {
    agent: "gemini",
    version: await versionOf(gemini, env),
    model: `google/${agents.GEMINI_MODEL}`,
    prompts: [
      "Never touch the migrations folder. What do my notes and my todo list say?",
      "Is there a changelog?",
      "What should I do first?",
    ],
    answers: [
      "Your notes say to remember the milk; the todo list says to write the parser, then add tests.",
      "There is no CHANGELOG.md.",
      "Write the parser first.",
    ],
    thinking: { text: "Read both files at once.", signature: "sig-fixture-gemini" },
    toolCalls: [
      { name: "read_file", input: { file_path: "notes.txt" } },
      { name: "read_file", input: { file_path: "todo.md" } },
      {
        name: "run_shell_command",
        input: { command: "cat CHANGELOG.md", description: "Read the changelog." },
      },
    ],
    summary: GEMINI_SNAPSHOT,
  };
  const call = (spec) => ({ type: "tool-call", id: "unused", name: spec.name, arguments: spec.input });
  const [notes, todo, changelog] = scenario.toolCalls;
  fake.enqueue(
    { blocks: [{ type: "thinking", ...scenario.thinking }, call(notes), call(todo)] },
    text(scenario.answers[0]),
  );
  const sessionId = await run(["-p", scenario.prompts[0]]);
  fake.enqueue({ blocks: [call(changelog)] }, text(scenario.answers[1]));
  await run(["--resume", sessionId, "-p", scenario.prompts[1]]);
  // The first reply reports over half of the window: Gemini CLI compresses before its next call.
  fake.enqueue(
    {
      blocks: [call({ name: "read_file", input: { file_path: "notes.txt" } })],
      usage: { inputTokens: 600000 },
    },
    text(scenario.answers[2]),
  );
  await run(["--resume", sessionId, "-p", scenario.prompts[2]]);
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  const last = JSON.stringify(fake.requests.at(-1).body.contents);
  check(last.includes(GEMINI_SNAPSHOT), "Gemini CLI's request after compressing lacks its snapshot");
  check(
    !last.includes(scenario.answers[0]),
    "Gemini CLI's request after compressing still carries the first answer",
  );
  await fake.close();

  const chats = join(agents.geminiTempDirectory(place), "project", "chats");
  const file = readdirSync(chats).find(
    (name) =>
      name.endsWith(`-${sessionId.slice(0, 8)}.jsonl`) &&
      readFileSync(join(chats, name), "utf8").includes(scenario.prompts[2]),
  );
  check(file !== undefined, "no session file for the session");
  const raw = readFileSync(join(chats, file), "utf8");
  check(raw.includes(GEMINI_SNAPSHOT), "Gemini CLI did not compress");
  const content = agents
    .toPlaceholders(raw, place)
    .split(sha256(place.cwd))
    .join(sha256(agents.PLACEHOLDER_CWD));
  assertNoMachinePaths(content, root, "the Gemini CLI fixture");
  const fixtureScenario = JSON.parse(
    agents.toPlaceholders(JSON.stringify({ ...scenario, sessionId, file }), place),
  );
  await replayGemini(content, fixtureScenario);
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return { content, scenario: fixtureScenario };
}

/** Resumes the fixture in another HOME (`gemini --resume`) and checks the request Gemini CLI sends. */
async function replayGemini(content, scenario) {
  const { root, place } = makePlace("gemini-replay");
  const fake = await startFakeProvider({ replies: [text("Replayed.")] });
  agents.writeGeminiSettings(place.home);
  const folder = join(agents.geminiTempDirectory(place), "project");
  mkdirSync(join(folder, "chats"), { recursive: true });
  writeFileSync(join(folder, ".project_root"), place.cwd);
  writeFileSync(join(folder, "chats", scenario.file), agents.fromPlaceholders(content, place));
  const result = await agents.runAgent(
    binary("gemini"),
    ["-m", agents.GEMINI_MODEL, "-o", "json", "--resume", scenario.sessionId, "-p", "Anything else?"],
    { cwd: place.cwd, env: agents.geminiEnvironment(place, fake.url) },
  );
  await fake.close();
  check(result.code === 0, `the replayed session did not resume: ${result.stderr.slice(-500)}`);
  const sent = JSON.stringify(fake.requests.at(-1).body.contents);
  check(sent.includes(GEMINI_SNAPSHOT), "the resumed request lacks Gemini CLI's snapshot");
  check(sent.includes(scenario.answers[2]), "the resumed request lacks the last answer");
  check(!sent.includes(scenario.answers[0]), "the resumed request still carries the compressed turns");
  if (!options.keep) rmSync(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// opencode

const OPENCODE_SUMMARY =
  "The user listed the files, read notes.txt (remember the milk) and found no changelog.";

async function makeOpencode() {
  const opencode = binary("opencode");
  const { root, place } = makePlace("opencode");
  const fake = await startFakeProvider({
    routes: [
      { bodyIncludes: agents.OPENCODE_TITLE_PROMPT, reply: text("Notes and the changelog") },
      { bodyIncludes: agents.OPENCODE_COMPACT_PROMPT, reply: text(OPENCODE_SUMMARY) },
    ],
  });
  agents.writeOpencodeConfig(place.home, fake.url, { context: 20000, output: 4096 });
  const env = agents.opencodeEnvironment(place);
  const run = async (args) => {
    const result = await agents.runAgent(opencode, args, { cwd: place.cwd, env });
    check(result.code === 0, `opencode exited ${result.code}: ${result.stderr.slice(-500)}`);
    return result.stdout;
  };
  const scenario = {
    agent: "opencode",
    version: await versionOf(opencode, env),
    model: agents.OPENCODE_MODEL,
    prompts: [
      "Never touch the migrations folder. What do my notes and my todo list say?",
      "Is there a changelog?",
      "What should I do first?",
    ],
    answers: [
      "Your notes say to remember the milk; the todo list says to write the parser, then add tests.",
      "There is no CHANGELOG.md.",
      "Write the parser first.",
    ],
    continued: "Carrying on after the compaction.",
    thinking: { text: "Read both files at once.", signature: "sig-fixture-opencode" },
    toolCalls: [
      { id: "toolu_fixture_notes", name: "read", input: { filePath: join(place.cwd, "notes.txt") } },
      { id: "toolu_fixture_todo", name: "read", input: { filePath: join(place.cwd, "todo.md") } },
      {
        id: "toolu_fixture_changelog",
        name: "bash",
        input: { command: "cat CHANGELOG.md", description: "Read the changelog" },
      },
    ],
    summary: OPENCODE_SUMMARY,
  };
  const call = (spec) => ({ type: "tool-call", id: spec.id, name: spec.name, arguments: spec.input });
  const [notes, todo, changelog] = scenario.toolCalls;
  fake.enqueue(
    { blocks: [{ type: "thinking", ...scenario.thinking }, call(notes), call(todo)] },
    text(scenario.answers[0]),
  );
  await run(["run", ...scenario.prompts[0].split(" ")]);
  const sessions = JSON.parse(await run(["session", "list", "--format", "json"]));
  const sessionId = sessions[0].id;
  // The answer reports most of the (small) window: opencode compacts, then goes on by itself.
  fake.enqueue(
    { blocks: [call(changelog)] },
    { ...text(scenario.answers[1]), usage: { inputTokens: 18000 } },
    text(scenario.continued),
  );
  await run(["run", "--session", sessionId, ...scenario.prompts[1].split(" ")]);
  fake.enqueue(text(scenario.answers[2]));
  await run(["run", "--session", sessionId, ...scenario.prompts[2].split(" ")]);
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  const last = messagesText(fake.requests.at(-1));
  check(last.includes(OPENCODE_SUMMARY), "opencode's request after compacting lacks its summary");
  check(
    !last.includes("remember the milk\n"),
    "opencode's request after compacting still carries tool output",
  );
  await fake.close();
  const exported = await run(["export", sessionId]);
  const document = JSON.parse(exported.slice(exported.indexOf("{")));
  check(
    document.messages.some((message) => message.parts.some((part) => part.type === "compaction")),
    "opencode did not compact",
  );
  const content = agents.toPlaceholders(`${JSON.stringify(document, null, 2)}\n`, place);
  assertNoMachinePaths(content, root, "the opencode fixture");
  const fixtureScenario = JSON.parse(
    agents.toPlaceholders(JSON.stringify({ ...scenario, sessionId }), place),
  );
  await replayOpencode(content, fixtureScenario);
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return { content, scenario: fixtureScenario, file: "session.json" };
}

/** Imports the fixture into another HOME (`opencode import`), resumes it, and checks the request. */
async function replayOpencode(content, scenario) {
  const { root, place } = makePlace("opencode-replay");
  const fake = await startFakeProvider({
    replies: [text("Replayed.")],
    routes: [{ bodyIncludes: agents.OPENCODE_TITLE_PROMPT, reply: text("t") }],
  });
  agents.writeOpencodeConfig(place.home, fake.url);
  const env = agents.opencodeEnvironment(place);
  const file = join(root, "session.json");
  writeFileSync(file, agents.fromPlaceholders(content, place));
  const imported = await agents.runAgent(binary("opencode"), ["import", file], { cwd: place.cwd, env });
  check(
    imported.code === 0 && imported.stdout.includes(scenario.sessionId),
    `opencode import failed: ${imported.stderr.slice(-500)}`,
  );
  const result = await agents.runAgent(
    binary("opencode"),
    ["run", "--session", scenario.sessionId, "Anything", "else?"],
    {
      cwd: place.cwd,
      env,
    },
  );
  await fake.close();
  check(result.code === 0, `the replayed session did not resume: ${result.stderr.slice(-500)}`);
  const sent = messagesText(fake.requests.filter((request) => request.route === undefined).at(-1));
  check(sent.includes(OPENCODE_SUMMARY), "the resumed request lacks opencode's summary");
  check(sent.includes(scenario.answers[2]), "the resumed request lacks the last answer");
  check(!sent.includes(scenario.answers[0]), "the resumed request still carries the compacted turns");
  if (!options.keep) rmSync(root, { recursive: true, force: true });
}

const makers = {
  "claude-code": makeClaudeCode,
  pi: makePi,
  codex: makeCodex,
  gemini: makeGemini,
  opencode: makeOpencode,
};
const chosen = options.agent === undefined ? Object.keys(makers) : [options.agent];
for (const agent of chosen) {
  const make = makers[agent];
  if (make === undefined)
    throw new Error(`--agent must be one of ${Object.keys(makers).join(", ")}, not ${agent}`);
  const { content, scenario, file = "session.jsonl" } = await make();
  const directory = join(projectRoot, "fixtures", "agents", agent);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, file), content);
  writeFileSync(join(directory, "scenario.json"), `${JSON.stringify(scenario, null, 2)}\n`);
  console.log(`${agent}: fixtures/agents/${agent}/${file} (${Buffer.byteLength(content)} bytes)`);
}
