#!/usr/bin/env node
/**
 * Regenerates the agent sessions that change files, `fixtures/agents/<agent>/edits.jsonl`, by
 * running the real agents offline against the loopback fake provider (as make-agent-fixtures.mjs
 * does; install the pinned agents first: `npm ci --prefix agents`):
 *
 *   node scripts/make-edit-fixtures.mjs [--agent claude-code|pi] [--keep]
 *
 * Two turns: the user says a binding sentence and asks for a fix (the agent reads a file and
 * edits it), then asks for a README (the agent writes it and runs `sed -i` on the file it
 * edited). The range facts' tests (test/core/range-facts.test.ts) read what the agents stored.
 * Claude Code's own text is dropped and paths become placeholders, as in the other fixtures.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const PROMPTS = [
  "Never touch the migrations folder. Fix the greeting in src/app.ts.",
  "Now add a README, and use hi instead of hello.",
];
const text = (value) => ({ blocks: [{ type: "text", text: value }] });
const call = (id, name, input) => ({ blocks: [{ type: "tool-call", id, name, arguments: input }] });

function makePlace(label) {
  const root = mkdtempSync(join(tmpdir(), `cxc-edits-${label}-`));
  const place = { home: join(root, "home"), cwd: join(root, "project") };
  mkdirSync(join(place.cwd, "src"), { recursive: true });
  mkdirSync(join(place.cwd, "migrations"), { recursive: true });
  mkdirSync(place.home, { recursive: true });
  writeFileSync(join(place.cwd, "src", "app.ts"), 'export const greeting = "helo";\n');
  writeFileSync(join(place.cwd, "migrations", "0001.sql"), "create table t (id int);\n");
  return { root, place };
}

function binary(name) {
  const path = agents.agentBinary(projectRoot, name);
  if (path === undefined)
    throw new Error(`agents/node_modules/.bin/${name} is missing: run npm ci --prefix agents`);
  return path;
}

function check(condition, message) {
  if (!condition) throw new Error(`fixture check failed: ${message}`);
}

/** The replies of the two turns, with the agent's own tool names and argument keys. */
function script(place, names) {
  const app = names.absolute ? join(place.cwd, "src", "app.ts") : "src/app.ts";
  const readme = names.absolute ? join(place.cwd, "README.md") : "README.md";
  return [
    [
      call("toolu_edits_read", names.read, { [names.path]: app }),
      call("toolu_edits_edit", names.edit, {
        [names.path]: app,
        ...names.replace('"helo"', '"hello"'),
      }),
      text("Fixed the greeting."),
    ],
    [
      call("toolu_edits_write", names.write, { [names.path]: readme, content: "# app\n" }),
      call("toolu_edits_sed", names.bash, { command: "sed -i 's/hello/hi/' src/app.ts" }),
      text("Added the README and changed the greeting."),
    ],
  ];
}

async function makeClaudeCode() {
  const claude = binary("claude");
  const { root, place } = makePlace("claude");
  const fake = await startFakeProvider();
  const env = agents.claudeCodeEnvironment(place, fake.url);
  const turns = script(place, {
    absolute: true,
    path: "file_path",
    read: "Read",
    edit: "Edit",
    write: "Write",
    bash: "Bash",
    replace: (old, now) => ({ old_string: old, new_string: now }),
  });
  let sessionId;
  for (const [index, prompt] of PROMPTS.entries()) {
    fake.enqueue(...turns[index]);
    const resume = sessionId === undefined ? [] : ["--resume", sessionId];
    const result = await agents.runAgent(
      claude,
      [
        "-p",
        prompt,
        "--output-format",
        "json",
        "--model",
        "claude-sonnet-4-5",
        "--allowedTools",
        "Read Edit Write Bash",
        ...resume,
      ],
      { cwd: place.cwd, env },
    );
    check(result.code === 0, `claude failed: ${result.stderr.slice(0, 300)}`);
    sessionId ??= JSON.parse(result.stdout).session_id;
  }
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  await fake.close();
  check(readFileSync(join(place.cwd, "src", "app.ts"), "utf8").includes('"hi"'), "the edits did not land");
  const file = join(agents.claudeProjectDirectory(place), `${sessionId}.jsonl`);
  const records = trimClaudeSession(
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  );
  const content = agents.toPlaceholders(
    `${records.map((record) => JSON.stringify(record)).join("\n")}\n`,
    place,
  );
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return content;
}

async function makePi() {
  const pi = binary("pi");
  const { root, place } = makePlace("pi");
  const fake = await startFakeProvider();
  agents.writePiConfig(place.home, fake.url);
  const turns = script(place, {
    absolute: false,
    path: "path",
    read: "read",
    edit: "edit",
    write: "write",
    bash: "bash",
    replace: (old, now) => ({ oldText: old, newText: now }),
  });
  const rpc = new agents.PiRpc(pi, ["--provider", agents.PI_PROVIDER, "--model", agents.PI_MODEL], {
    cwd: place.cwd,
    env: agents.piEnvironment(place),
  });
  for (const [index, prompt] of PROMPTS.entries()) {
    fake.enqueue(...turns[index]);
    await rpc.prompt(prompt);
  }
  await rpc.close();
  check(fake.remaining() === 0, `${fake.remaining()} scripted replies were not used`);
  await fake.close();
  check(readFileSync(join(place.cwd, "src", "app.ts"), "utf8").includes('"hi"'), "the edits did not land");
  const [name] = readdirSync(agents.piSessionDirectory(place));
  const content = agents.toPlaceholders(
    readFileSync(join(agents.piSessionDirectory(place), name), "utf8"),
    place,
  );
  if (!options.keep) rmSync(root, { recursive: true, force: true });
  return content;
}

const makers = { "claude-code": makeClaudeCode, pi: makePi };
for (const agent of options.agent === undefined ? Object.keys(makers) : [options.agent]) {
  const make = makers[agent];
  if (make === undefined) throw new Error(`--agent must be claude-code or pi, not ${agent}`);
  const content = await make();
  writeFileSync(join(projectRoot, "fixtures", "agents", agent, "edits.jsonl"), content);
  console.log(`${agent}: fixtures/agents/${agent}/edits.jsonl (${Buffer.byteLength(content)} bytes)`);
}
