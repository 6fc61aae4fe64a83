/**
 * Importing a large Claude Code session and a large Codex rollout: `cxc conversation import <file>`
 * on synthetic sessions of about 12.5, 25 and 50 MB each, timed side by side with `node -e 0`, with
 * the peak memory (maximum resident set, from GNU time) of each. The sessions are generated here,
 * not committed: the turns of fixtures/agents/claude-code/session.jsonl (a prompt, an assistant
 * message with a tool call, its result, the answer) repeated with fresh uuids in one chain, each
 * tool result about 4 KB, among the bookkeeping records Claude Code writes (queue operations,
 * `last-prompt`); and the same turns in the record shapes of fixtures/agents/codex/session.jsonl
 * (`response_item` prompt, `function_call`, its output, the answer, among Codex's `event_msg`,
 * `turn_context` and `token_usage_record` bookkeeping).
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
const CODEX_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "codex", "session.jsonl");
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

/** Writes a Claude Code session of about `megabytes` MB; resolves with its size in bytes. */
export async function writeClaudeSession(path, megabytes) {
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

/** The Codex fixture's record shapes: its meta, a turn's bookkeeping, prompt, call, output, answer. */
function codexShapes() {
  const records = readFileSync(CODEX_FIXTURE, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const find = (test) => {
    const record = records.find(test);
    if (!record) throw new Error("the Codex fixture lacks a record shape the bench needs");
    return record;
  };
  const item = (type, role) => (record) =>
    record.type === "response_item" &&
    record.payload.type === type &&
    (role === undefined || record.payload.role === role);
  return {
    meta: records[0],
    started: find((record) => record.type === "event_msg" && record.payload.type === "task_started"),
    context: find((record) => record.type === "turn_context"),
    usage: find((record) => record.type === "token_usage_record"),
    prompt: find(
      (record) => item("message", "user")(record) && !record.payload.content[0].text.startsWith("<"),
    ),
    call: find(item("function_call")),
    output: find(item("function_call_output")),
    answer: find(item("message", "assistant")),
  };
}

/** Writes a Codex rollout of about `megabytes` MB; resolves with its size in bytes. */
export async function writeCodexSession(path, megabytes) {
  const shapes = codexShapes();
  const out = createWriteStream(path);
  let bytes = 0;
  const write = (record) => {
    const line = `${JSON.stringify(record)}\n`;
    bytes += line.length;
    return new Promise((resolve) => (out.write(line) ? resolve() : out.once("drain", resolve)));
  };
  const payload = "x".repeat(60);
  await write(shapes.meta);
  for (let turn = 1; bytes < megabytes * 1e6; turn++) {
    const timestamp = new Date(Date.UTC(2026, 0, 1) + turn * 1000).toISOString();
    const at = (record, payloadChanges = {}) => ({
      ...record,
      timestamp,
      payload: { ...record.payload, ...payloadChanges },
    });
    const callId = `call_bench_${turn}`;
    const output = Array.from({ length: 60 }, (_, line) => `file-${turn}-${line}.txt ${payload}`).join("\n");
    await write(at(shapes.started));
    await write(at(shapes.context));
    await write(
      at(shapes.prompt, { content: [{ type: "input_text", text: `Turn ${turn}: list the files again.` }] }),
    );
    await write(
      at(shapes.call, {
        id: `fc_bench_${turn}`,
        call_id: callId,
        arguments: JSON.stringify({ cmd: `ls -la part${turn}` }),
      }),
    );
    await write(at(shapes.usage));
    await write(at(shapes.output, { id: `fco_bench_${turn}`, call_id: callId, output }));
    await write(
      at(shapes.answer, {
        id: `msg_bench_${turn}`,
        content: [{ type: "output_text", text: `Turn ${turn} done.`, annotations: [] }],
      }),
    );
    await write(at(shapes.usage));
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
    const agents = [
      { from: "claude-code", name: "Claude Code", write: writeClaudeSession },
      { from: "codex", name: "Codex", write: writeCodexSession },
    ];
    for (const agent of agents) {
      for (const megabytes of SIZES_MB) {
        const path = join(scratch, `${agent.from}-${megabytes}.jsonl`);
        const size = await agent.write(path, megabytes);
        sessions.push({ ...agent, megabytes, path, size });
      }
    }
    log(
      `timing the import of ${sessions.length} synthetic Claude Code and Codex sessions × ${rounds} runs, interleaved …`,
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
        const line = cxc("conversation", "import", session.path, "--from", session.from);
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
        name: `cxc conversation import (${session.name}, ${mb.toFixed(1)} MB)`,
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
