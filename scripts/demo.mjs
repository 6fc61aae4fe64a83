#!/usr/bin/env node
/**
 * `npm run demo`: the main job, offline, on the bundled sample conversation in a temporary store.
 * Every step is a real `cxc` command; the script prints each command before its output.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "cxc-demo-"));
const env = { ...process.env, CXC_HOME: home, XDG_CONFIG_HOME: join(home, "config") };
for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CXC_SESSION"]) delete env[key];

const bold =
  process.stdout.isTTY && !process.env.NO_COLOR ? (text) => `\u001b[1m${text}\u001b[22m` : (text) => text;

function cxc(args, { show = true, maxLines = 40 } = {}) {
  if (show) process.stdout.write(`\n${bold(`$ cxc ${args.map(quote).join(" ")}`)}\n`);
  const result = spawnSync(process.execPath, [join(root, "bin", "cxc.cjs"), ...args], {
    env,
    cwd: home,
    encoding: "utf8",
  });
  if (show) {
    const lines = `${result.stdout}${result.stderr}`.trimEnd().split("\n");
    process.stdout.write(`${lines.slice(0, maxLines).join("\n")}\n`);
    if (lines.length > maxLines) process.stdout.write(`… (${lines.length - maxLines} more lines)\n`);
  }
  if (result.status !== 0) {
    process.stderr.write(`demo: \`cxc ${args.join(" ")}\` exited with ${result.status}\n`);
    rmSync(home, { recursive: true, force: true });
    process.exit(1);
  }
  return result.stdout;
}

function quote(value) {
  return /^[\w./:=@+-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

try {
  process.stdout.write(`cxc demo: a temporary store at ${home}, no network, no API key.\n`);
  const imported = JSON.parse(
    cxc(
      [
        "--format",
        "json",
        "conversation",
        "import",
        join(root, "fixtures", "sample", "coding-session.jsonl"),
      ],
      { show: false },
    ),
  );
  const id = (imported.imported ?? imported)[0].id;
  cxc(["conversation", "use", id]);
  cxc(["conversation", "ls"]);
  cxc(["conversation", "show"]);
  cxc(["conversation", "stats"], { maxLines: 30 });
  cxc(["conversation", "compact", "--dry-run"]);
  cxc(["conversation", "compact", "--note", "the parser work is done; keep only the outcome"]);
  cxc(["conversation", "compact", "-k", "s:..-4", "--note", "summarize all but the last four turns"], {
    maxLines: 20,
  });
  cxc(["conversation", "show"]);
  cxc(["conversation", "print", "--compacted", "--first", "2"], { maxLines: 60 });
  cxc(["conversation", "stats"], { maxLines: 12 });
  cxc(["conversation", "compact", "--reset=2", "--dry-run"]);
  process.stdout.write(`\nNothing was deleted: \`cxc conversation print\` still shows every raw turn.\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
