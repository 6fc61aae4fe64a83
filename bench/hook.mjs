/**
 * The Claude Code `Stop` hook (`cxc hook claude-code`, dist/hook.cjs): a silent run (the
 * transcript's last reported usage below the advisor's notice line) on synthetic transcripts of
 * about 1 MB and 50 MB, timed side by side with `node -e 0`, each fed the hook input Claude Code
 * writes on stdin. The silent path reads the configuration and the transcript's tail only, so the
 * two sizes should cost the same, and at most 2× `node -e 0` (the target). Every `Stop` also
 * records the session → transcript under the agent's process id for `cxc mcp`
 * (src/cli/hooks/agent-process.ts: the process tree walked up to the agent, here this bench's
 * process, and one small file written and renamed), so the silent rows include that write; the
 * bench checks the record is there, naming the last transcript, after the runs. For contrast, a run
 * above the notice line on the 1 MB transcript (token lines only, no decision model): it converts
 * the whole transcript to build the advice. And the restore at `SessionStart compact` on a 200 MB
 * transcript, with its peak memory: a hook converts at most the transcript's last 16 MiB
 * (src/cli/hooks/transcript.ts), so its time and memory stay those of a 16 MiB file.
 *
 * Gemini CLI's hook (`cxc hook gemini`, the same bundle): `AfterAgent` silent on sessions of 1 MB
 * and 50 MB (the same 2× target), and `BeforeModel` on requests of 1 MB and 10 MB whose history
 * Gemini CLI has not compressed: Gemini CLI runs it before every model call with the whole request
 * on stdin, so what it costs is reading and parsing that request (no target; for contrast with the
 * input's size).
 *
 * The transcripts are generated here, not committed: prompt and answer records of Claude Code's
 * shape in one chain, each answer with a usage of a few thousand tokens, and prompt and reply
 * records of Gemini CLI's.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CXC_BIN, median, settings } from "./lib.mjs";

const SIZES_MB = [1, 50];
const TARGET = 2;

/** A transcript of about `megabytes` MB; the last answer reports `tokens` of context. */
function writeTranscript(path, megabytes, tokens) {
  writeFileSync(path, "");
  let lines = [];
  let bytes = 0;
  let parent = null;
  for (let turn = 0; bytes < megabytes * 1e6; turn++) {
    if (lines.length >= 20_000) {
      appendFileSync(path, `${lines.join("\n")}\n`);
      lines = [];
    }
    const ts = new Date(Date.UTC(2026, 0, 1) + turn * 1000).toISOString();
    const user = {
      type: "user",
      uuid: `u${turn}`,
      parentUuid: parent,
      sessionId: "bench",
      timestamp: ts,
      // Now and then a rule the restore keeps.
      message: {
        role: "user",
        content: `${turn % 1000 === 7 ? "Never touch the migrations folder. " : ""}Turn ${turn}: ${"please look at the parser again ".repeat(12)}`,
      },
    };
    const answer = {
      type: "assistant",
      uuid: `a${turn}`,
      parentUuid: `u${turn}`,
      sessionId: "bench",
      timestamp: ts,
      message: {
        id: `m${turn}`,
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          { type: "text", text: `Done with turn ${turn}. ${"the parser reads the table ".repeat(12)}` },
        ],
        usage: { input_tokens: 10, cache_read_input_tokens: tokens - 20, output_tokens: 10 },
      },
    };
    parent = answer.uuid;
    for (const record of [user, answer]) {
      const line = JSON.stringify(record);
      lines.push(line);
      bytes += line.length + 1;
    }
  }
  appendFileSync(path, `${lines.join("\n")}\n`);
}

/**
 * A Gemini CLI session of about `megabytes` MB (its JSONL: a header, then prompts and replies; each
 * reply reports `tokens` of context), and the messages of a `BeforeModel` request over it of about
 * `requestMegabytes` MB: no compression in it, the path Gemini CLI takes before every model call.
 */
function writeGeminiSession(path, megabytes, tokens) {
  const header = {
    sessionId: "bench",
    projectHash: "0".repeat(64),
    startTime: "2026-01-01T00:00:00.000Z",
    kind: "main",
  };
  writeFileSync(path, `${JSON.stringify(header)}\n`);
  let lines = [];
  let bytes = 0;
  for (let turn = 0; bytes < megabytes * 1e6; turn++) {
    if (lines.length >= 20_000) {
      appendFileSync(path, `${lines.join("\n")}\n`);
      lines = [];
    }
    const timestamp = new Date(Date.UTC(2026, 0, 1) + turn * 1000).toISOString();
    for (const record of [
      {
        id: `u${turn}`,
        timestamp,
        type: "user",
        content: [{ text: `Turn ${turn}: ${"please look at the parser again ".repeat(12)}` }],
      },
      {
        id: `g${turn}`,
        timestamp,
        type: "gemini",
        content: `Done with turn ${turn}. ${"the parser reads the table ".repeat(12)}`,
        thoughts: [],
        tokens: { input: tokens - 20, output: 10, cached: 0, thoughts: 10, tool: 0, total: tokens },
        model: "gemini-2.5-flash",
      },
    ]) {
      const line = JSON.stringify(record);
      lines.push(line);
      bytes += line.length + 1;
    }
  }
  appendFileSync(path, `${lines.join("\n")}\n`);
}

/** A `BeforeModel` request of about `megabytes` MB, its history not compressed. */
function geminiRequest(megabytes) {
  const messages = [];
  let bytes = 0;
  for (let turn = 0; bytes < megabytes * 1e6; turn++) {
    const user = { role: "user", content: `Turn ${turn}: ${"please look at the parser again ".repeat(12)}` };
    const model = {
      role: "model",
      content: `Done with turn ${turn}. ${"the parser reads the table ".repeat(12)}`,
    };
    messages.push(user, model);
    bytes += JSON.stringify(user).length + JSON.stringify(model).length;
  }
  messages.push({ role: "user", content: "And now?" });
  return { model: "gemini-2.5-flash", messages, config: { temperature: 1 } };
}

/** The size of the restore's transcript, in MB. */
const RESTORE_MB = 200;

/** One run under GNU time: wall time in milliseconds and peak resident memory in MB. */
function timeAndMemory(commandLine, options) {
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-rss-"));
  try {
    const output = join(scratch, "time.txt");
    const started = performance.now();
    const result = spawnSync("/usr/bin/time", ["-f", "%M", "-o", output, ...commandLine], {
      env: options.env,
      input: options.input,
      stdio: ["pipe", "pipe", "pipe"],
      encoding: "utf8",
    });
    const elapsed = performance.now() - started;
    if (result.status !== 0 || !result.stdout.includes("cxc kept these facts")) {
      throw new Error(`the restore failed or was empty: ${result.stderr.slice(0, 300)}`);
    }
    return { elapsed, megabytes: Number(readFileSync(output, "utf8").trim()) / 1024 };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** One run's wall time in milliseconds, with `input` on stdin; throws when it fails. */
function timeWithInput(commandLine, options) {
  const [program, ...args] = commandLine;
  const started = performance.now();
  const result = spawnSync(program, args, {
    env: options.env ?? process.env,
    input: options.input ?? "",
    stdio: ["pipe", "pipe", "pipe"],
    encoding: "utf8",
  });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${commandLine.join(" ")} exited with ${result.status}`);
  if (options.expectOutput !== undefined && options.expectOutput !== (result.stdout.trim() !== "")) {
    throw new Error(
      `${options.name}: the hook ${options.expectOutput ? "printed nothing" : "printed something"}`,
    );
  }
  return elapsed;
}

export async function run({ runs, log }) {
  const scratch = mkdtempSync(join(tmpdir(), "cxc-bench-hook-"));
  try {
    const env = { PATH: process.env.PATH ?? "", HOME: join(scratch, "user"), NO_COLOR: "1" };
    // The same environment for every process: variables such as NODE_EXTRA_CA_CERTS slow every start.
    const commands = [{ name: "node -e 0", commandLine: [settings.node, "-e", "0"], options: { env } }];
    const hook = [settings.node, CXC_BIN, "hook", "claude-code"];
    for (const megabytes of SIZES_MB) {
      const path = join(scratch, `transcript-${megabytes}.jsonl`);
      writeTranscript(path, megabytes, 2000);
      const input = JSON.stringify({
        hook_event_name: "Stop",
        session_id: "bench",
        transcript_path: path,
        cwd: scratch,
      });
      const name = `cxc hook claude-code, Stop, silent, session recorded for cxc mcp (${megabytes} MB transcript)`;
      commands.push({
        name,
        commandLine: hook,
        options: { env, input, name, expectOutput: false },
        target: TARGET,
      });
    }
    // Gemini CLI: AfterAgent (the end of a turn) below the notice line, and BeforeModel, which
    // Gemini CLI runs before every model call with the whole request on stdin, on a request whose
    // history it has not compressed.
    const gemini = [settings.node, CXC_BIN, "hook", "gemini"];
    for (const megabytes of SIZES_MB) {
      const path = join(scratch, `gemini-${megabytes}.jsonl`);
      writeGeminiSession(path, megabytes, 2000);
      const input = JSON.stringify({
        hook_event_name: "AfterAgent",
        session_id: "bench",
        transcript_path: path,
        cwd: scratch,
        prompt: "And now?",
        prompt_response: "Done.",
        stop_hook_active: false,
      });
      const name = `cxc hook gemini, AfterAgent, silent (${megabytes} MB session)`;
      commands.push({
        name,
        commandLine: gemini,
        options: { env, input, name, expectOutput: false },
        target: TARGET,
      });
    }
    for (const megabytes of [1, 10]) {
      const input = JSON.stringify({
        hook_event_name: "BeforeModel",
        session_id: "bench",
        transcript_path: join(scratch, "gemini-1.jsonl"),
        cwd: scratch,
        llm_request: geminiRequest(megabytes),
      });
      const name = `cxc hook gemini, BeforeModel, not compressed (${megabytes} MB request on stdin)`;
      commands.push({ name, commandLine: gemini, options: { env, input, name, expectOutput: false } });
    }
    const loudPath = join(scratch, "transcript-loud.jsonl");
    writeTranscript(loudPath, 1, 80_000);
    const loud = `cxc hook claude-code, Stop, advice on token lines (1 MB transcript)`;
    commands.push({
      name: loud,
      commandLine: hook,
      options: {
        // A fresh session id per run: the same tier is never announced twice in one session.
        env,
        inputFor: (round) =>
          JSON.stringify({
            hook_event_name: "Stop",
            session_id: `loud-${round}`,
            transcript_path: loudPath,
            cwd: scratch,
          }),
        name: loud,
        expectOutput: true,
      },
    });
    log(`timing the Claude Code and Gemini CLI hooks × ${runs} runs, interleaved with node -e 0 …`);
    const samples = commands.map(() => []);
    const loudBaseline = [];
    for (const command of commands)
      timeWithInput(command.commandLine, {
        ...command.options,
        input: command.options.inputFor?.("warm") ?? command.options.input,
      });
    // The silent runs and node -e 0 interleaved; the loud run in rounds of its own after them, so
    // its CPU work does not slow the process started next.
    const silent = commands.slice(0, -1);
    for (let round = 0; round < runs; round++) {
      silent.forEach((command, index) => {
        samples[index].push(timeWithInput(command.commandLine, command.options));
      });
    }
    // Each silent Stop recorded the session for cxc mcp under this process (the agent here).
    const recorded = join(env.HOME, ".local", "state", "cxc", "mcp", `claude-code-${process.pid}.json`);
    const lastTranscript = join(scratch, `transcript-${SIZES_MB.at(-1)}.jsonl`);
    if (
      !existsSync(recorded) ||
      JSON.parse(readFileSync(recorded, "utf8")).transcript_path !== lastTranscript
    )
      throw new Error(`the Stop hook did not record the session for cxc mcp in ${recorded}`);
    for (let round = 0; round < runs; round++) {
      for (const index of [0, commands.length - 1]) {
        const command = commands[index];
        const input = command.options.inputFor?.(round) ?? command.options.input;
        const time = timeWithInput(command.commandLine, { ...command.options, input });
        if (index > 0) samples[index].push(time);
        else loudBaseline.push(time);
      }
    }
    // The restore on a big transcript: rounds of its own, beside node -e 0, with peak memory.
    const restoreRuns = Math.min(runs, 5);
    const restore = { samples: [], baseline: [], memory: [] };
    const bigPath = join(scratch, "transcript-big.jsonl");
    if (existsSync("/usr/bin/time")) {
      log(`writing a ${RESTORE_MB} MB transcript; timing the restore × ${restoreRuns} runs …`);
      writeTranscript(bigPath, RESTORE_MB, 2000);
      const input = JSON.stringify({
        hook_event_name: "SessionStart",
        source: "compact",
        session_id: "bench-restore",
        transcript_path: bigPath,
        cwd: scratch,
      });
      for (let round = 0; round < restoreRuns; round++) {
        restore.baseline.push(timeWithInput(commands[0].commandLine, commands[0].options));
        const { elapsed, megabytes } = timeAndMemory(hook, { env, input });
        restore.samples.push(elapsed);
        restore.memory.push(megabytes);
      }
      rmSync(bigPath, { force: true });
    }
    const base = median(samples[0]);
    const results = commands.map((command, index) => ({
      name: command.name,
      median: median(samples[index]),
      ratio: median(samples[index]) / (index === commands.length - 1 ? median(loudBaseline) : base),
      pairedRatio: median(
        samples[index].map(
          (value, round) => value / (index === commands.length - 1 ? loudBaseline : samples[0])[round],
        ),
      ),
      samples: samples[index].map((value) => Math.round(value * 10) / 10),
      ...(command.target === undefined ? {} : { target: command.target }),
    }));
    if (restore.samples.length > 0) {
      results.push({
        name: `cxc hook claude-code, SessionStart compact, the restore (${RESTORE_MB} MB transcript; peak ${Math.round(median(restore.memory))} MB)`,
        median: median(restore.samples),
        ratio: median(restore.samples) / median(restore.baseline),
        pairedRatio: median(restore.samples.map((value, round) => value / restore.baseline[round])),
        samples: restore.samples.map((value) => Math.round(value * 10) / 10),
        peakMegabytes: median(restore.memory),
      });
    }
    return { results };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
