#!/usr/bin/env node
/**
 * `npm run demo`: the main job, offline, on the bundled sample conversation in a temporary store.
 * Every step is a real `cxc` command, introduced by one plain line saying what it does; its
 * stdout and stderr are shown together, in the order they were written (both go to one file).
 */
import { spawnSync } from "node:child_process";
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "cxc-demo-"));
// Everything the demo writes (the store, configuration, copies of summaries) stays in `home`.
const env = {
  ...process.env,
  CXC_HOME: home,
  XDG_CONFIG_HOME: join(home, "config"),
  XDG_CACHE_HOME: join(home, "cache"),
  NO_COLOR: "1",
};
for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CXC_SESSION", "CXC_PAGER"]) delete env[key];
env.PAGER = "cat";

const decorate = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = decorate ? (text) => `\u001b[1m${text}\u001b[22m` : (text) => text;
const dim = decorate ? (text) => `\u001b[2m${text}\u001b[22m` : (text) => text;
let step = 0;

/** Runs `cxc args` in the demo store; returns its stdout and stderr interleaved as written. */
function run(args) {
  const outputPath = join(home, ".demo-output");
  const descriptor = openSync(outputPath, "w");
  let result;
  try {
    result = spawnSync(process.execPath, [join(root, "bin", "cxc.cjs"), ...args], {
      env,
      cwd: home,
      stdio: ["ignore", descriptor, descriptor],
    });
  } finally {
    closeSync(descriptor);
  }
  const output = readFileSync(outputPath, "utf8");
  if (result.status !== 0) {
    process.stdout.write(output);
    process.stderr.write(`demo: \`cxc ${args.join(" ")}\` exited with ${result.status}\n`);
    rmSync(home, { recursive: true, force: true });
    process.exit(1);
  }
  return output;
}

/** One step: what it does in one plain line, the command, and at most `maxLines` of its output. */
function demo(what, args, { maxLines = 40 } = {}) {
  step += 1;
  process.stdout.write(`\n${dim(`${step}. ${what}`)}\n${bold(`$ cxc ${args.map(quote).join(" ")}`)}\n`);
  const lines = run(args).trimEnd().split("\n");
  process.stdout.write(`${lines.slice(0, maxLines).join("\n")}\n`);
  if (lines.length > maxLines) process.stdout.write(dim(`… (${lines.length - maxLines} more lines)\n`));
}

function quote(value) {
  return /^[\w./:=@+-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

try {
  process.stdout.write(`cxc demo: a temporary store at ${home}, no network, no API key.\n`);
  // The sample: a recorded session of a person and a coding agent (its log and its metadata).
  mkdirSync(join(home, "sample"));
  for (const name of ["coding-session.jsonl", "meta.json"])
    copyFileSync(join(root, "fixtures", "sample", name), join(home, "sample", name));
  demo(
    "Import a recorded coding session: 20 turns of a person and an agent adding a feature, with reasoning and tool calls. One conversation imported becomes the active one, so the next commands need no id.",
    ["conversation", "import", "sample/coding-session.jsonl"],
  );
  demo("List the conversations in the store.", ["conversation", "ls"]);
  demo("Its details: no compactions yet.", ["conversation", "show"]);
  demo(
    "Where its tokens go. The projected view is what the model sees: the history with compactions applied (none yet, so it is the raw history).",
    ["conversation", "stats"],
    { maxLines: 13 },
  );
  demo(
    "Preview the default compaction: keep the first and last turn, drop the reasoning and the tool calls of the turns between (the label `reasoning + tools`).",
    ["conversation", "compact", "--dry-run"],
  );
  demo(
    "Apply it. Nothing is deleted: a compaction is an entry appended to the log, and only what the model sees changes.",
    ["conversation", "compact", "--note", "the parser work is done; keep only the outcome"],
  );
  demo(
    "Replace all but the last four turns with a summary (written here by the offline builtin digest; a configured model writes it otherwise), and check what it leaves out.",
    ["conversation", "compact", "-k", "s:..-4", "--note", "summarize all but the last four turns"],
    { maxLines: 20 },
  );
  demo("The two compactions now in force, numbered as `--reset=N` takes them.", ["conversation", "show"]);
  demo(
    "What the model sees now: the summary stands in for turns 1..16 (headers keep the raw turn numbers).",
    ["conversation", "print", "--compacted", "--first", "2"],
    { maxLines: 12 },
  );
  demo("The projected view is now a fraction of the raw history.", ["conversation", "stats"], {
    maxLines: 13,
  });
  demo("Compactions can be taken back: preview removing the summary.", [
    "conversation",
    "compact",
    "--reset=2",
    "--dry-run",
  ]);
  process.stdout.write(`\nNothing was deleted: \`cxc conversation print\` still shows every raw turn.\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
