/**
 * Importing a large Claude Code session: `cxc conversation import <file>` on synthetic sessions of
 * about 12.5, 25 and 50 MB, timed side by side with `node -e 0`, with the peak memory (maximum
 * resident set, from GNU time) of each. The sessions are generated here, not committed: the turns
 * of fixtures/agents/claude-code/session.jsonl (a prompt, an assistant message with a tool call, its
 * result, the answer) repeated with fresh uuids in one chain, each tool result about 4 KB, among the
 * bookkeeping records Claude Code writes (queue operations, `last-prompt`).
 *
 * The file is read twice, line by line, and neither it nor the conversation is held: peak memory
 * should stay nearly flat across the sizes (what grows is an index of a few hundred bytes per
 * record), and time linear. Time per MB and memory per MB are printed for each size, so linear
 * growth reads as constant columns, and flat memory as a column that halves as the file doubles.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canMeasureCpu, cxc, makeTemporaryHome, median, PROJECT_ROOT, timeOnce } from "./lib.mjs";

const FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl");
const SIZES_MB = [12.5, 25, 50];
const SESSION = "3b513450-3d6c-443e-9a7e-01eceba20536";

/** A uuid-shaped id from a counter (deterministic, unique in the file). */
const uuid = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** The fixture's record shapes: its first prompt, a tool call, its result and the answer. */
function shapes() {
  const records = readFileSync(FIXTURE, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const find = (test) => {
    const record = records.find(test);
    if (!record) throw new Error("the Claude Code fixture lacks a record shape the bench needs");
    return record;
  };
  const content = (record) => record.message?.content;
  return {
    prompt: find((record) => record.type === "user" && typeof content(record) === "string"),
    call: find(
      (record) => record.type === "assistant" && content(record)?.some?.((b) => b.type === "tool_use"),
    ),
    result: find(
      (record) => record.type === "user" && content(record)?.some?.((b) => b.type === "tool_result"),
    ),
    answer: find(
      (record) => record.type === "assistant" && content(record)?.every?.((b) => b.type === "text"),
    ),
  };
}

/** Writes a session of about `megabytes` MB; resolves with its size in bytes. */
async function writeSession(path, megabytes) {
  const { prompt, call, result, answer } = shapes();
  const out = createWriteStream(path);
  const write = (record) =>
    new Promise((resolve) =>
      out.write(`${JSON.stringify(record)}\n`) ? resolve() : out.once("drain", resolve),
    );
  const payload = "x".repeat(60);
  let bytes = 0;
  let counter = 1;
  let parent = null;
  let turn = 0;
  const chained = async (record, extra) => {
    const id = uuid(counter++);
    const line = { ...record, ...extra, uuid: id, parentUuid: parent, sessionId: SESSION };
    parent = id;
    await write(line);
    bytes += JSON.stringify(line).length + 1;
  };
  while (bytes < megabytes * 1e6) {
    turn += 1;
    const ts = new Date(Date.UTC(2026, 0, 1) + turn * 1000).toISOString();
    await write({
      type: "queue-operation",
      operation: "enqueue",
      timestamp: ts,
      sessionId: SESSION,
      content: `turn ${turn}`,
    });
    await chained(prompt, {
      timestamp: ts,
      message: { role: "user", content: `Turn ${turn}: list the files again.` },
    });
    const callId = `toolu_bench_${turn}`;
    const messageId = `msg_bench_${turn}`;
    await chained(call, {
      timestamp: ts,
      message: {
        ...call.message,
        id: messageId,
        content: [{ type: "tool_use", id: callId, name: "Bash", input: { command: `ls -la part${turn}` } }],
      },
    });
    const output = Array.from({ length: 60 }, (_, line) => `file-${turn}-${line}.txt ${payload}`).join("\n");
    await chained(result, {
      timestamp: ts,
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: callId, content: output, is_error: false }],
      },
    });
    await chained(answer, {
      timestamp: ts,
      message: {
        ...answer.message,
        id: `msg_bench_answer_${turn}`,
        content: [{ type: "text", text: `Turn ${turn} done.` }],
      },
    });
    await write({ type: "last-prompt", leafUuid: parent, sessionId: SESSION });
  }
  await new Promise((resolve) => out.end(resolve));
  return statSync(path).size;
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

export async function run({ runs, log }) {
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-agent-"));
  // Each import of a 50 MB session takes seconds: fewer rounds than the quick scenarios.
  const rounds = Math.max(3, Math.min(runs, 5));
  try {
    const sessions = [];
    for (const megabytes of SIZES_MB) {
      const path = join(scratch, `session-${megabytes}.jsonl`);
      const size = await writeSession(path, megabytes);
      sessions.push({ megabytes, path, size });
    }
    log(
      `timing the import of ${sessions.length} synthetic Claude Code sessions × ${rounds} runs, interleaved …`,
    );
    const baselineLine = [process.execPath, "-e", "0"];
    const baseline = [];
    const samples = sessions.map(() => []);
    const memory = sessions.map(() => []);
    const baselineMemory = [];
    for (let round = 0; round < rounds; round++) {
      baseline.push(timeOnce(baselineLine));
      const rss = peakMemory(baselineLine, process.env);
      if (rss !== undefined) baselineMemory.push(rss);
      sessions.forEach((session, index) => {
        // A fresh store each time: an import into a store that has the session is refused.
        const line = cxc("conversation", "import", session.path, "--from", "claude-code");
        const timed = makeTemporaryHome("agent-import");
        try {
          samples[index].push(timeOnce(line, { env: timed.env }));
        } finally {
          timed.remove();
        }
        const measured = makeTemporaryHome("agent-import");
        try {
          const rss = peakMemory(line, measured.env);
          if (rss !== undefined) memory[index].push(rss);
        } finally {
          measured.remove();
        }
      });
    }
    const base = median(baseline);
    const baseRss = baselineMemory.length > 0 ? median(baselineMemory) : undefined;
    const results = sessions.map((session, index) => {
      const time = median(samples[index]);
      const mb = session.size / 1e6;
      const rss = memory[index].length > 0 ? median(memory[index]) : undefined;
      return {
        name: `cxc conversation import (Claude Code, ${mb.toFixed(1)} MB)`,
        median: time,
        ratio: time / base,
        samples: samples[index].map((value) => Math.round(value)),
        extra: {
          msPerMb: time / mb,
          ...(rss === undefined ? {} : { peakMb: rss, peakMbPerFileMb: (rss - (baseRss ?? 0)) / mb }),
        },
      };
    });
    const notices = results.map(
      (result) =>
        `agent import: ${result.name}: ${result.extra.msPerMb.toFixed(0)} ms per MB` +
        (result.extra.peakMb === undefined
          ? " (peak memory needs GNU time)"
          : `, peak memory ${result.extra.peakMb.toFixed(0)} MB (node -e 0: ${baseRss.toFixed(0)} MB; ${result.extra.peakMbPerFileMb.toFixed(2)} MB above it per MB of file)`),
    );
    return { results, notices };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
