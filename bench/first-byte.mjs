/**
 * Issue 4's provider measurements, standalone:
 *
 *   node bench/first-byte.mjs [--runs N] [--node PATH] [--compare DIR]
 *
 * 1. From process start to the first request byte: `cxc q` on the largest jp fixture conversation
 *    against a loopback server speaking the Anthropic Messages SSE protocol, side by side with
 *    `node -e 0` (process start to exit). Target: at most 3×.
 *    Beside it, the floor: a process that only loads the same SDK bundle and sends a one-line
 *    request, timed the same way.
 * 2. Latency per streamed chunk: the same turn answered with 1 text delta and with 2,000; the
 *    difference divided by 1,999 is what one chunk costs cxc end to end (parse, fold, print).
 *
 * The server records when each request's first byte arrives; the time is taken on this process's
 * monotonic clock, so spawn and arrival are compared on one clock. `--node` and `--compare` work
 * as for bench/run.mjs: another Node binary for every timed process, another built checkout timed
 * in the same rounds (each build with a store of its own).
 */
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:http";
import {
  bareSdkRequest,
  configure,
  JP_CONVERSATIONS,
  largestJpConversation,
  makeTemporaryHome,
  median,
  rowName,
  runCxc,
  settings,
} from "./lib.mjs";

const option = (name) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const RUNS = Number(option("--runs") ?? 7);
configure({ node: option("--node"), compare: option("--compare") });

function sse(deltas) {
  const events = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "bench",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    ],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    ...Array.from({ length: deltas }, () => [
      "content_block_delta",
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok " } },
    ]),
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: deltas } },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

function startServer() {
  const state = { deltas: 1, firstByte: [] };
  const server = createServer((request, response) => {
    let seen = false;
    request.on("data", () => {
      if (!seen) state.firstByte.push(performance.now());
      seen = true;
    });
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sse(state.deltas));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, state })));
}

function timed(command, args, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "ignore", "ignore"] });
    child.on("exit", (code) => resolve({ started, ended: performance.now(), code }));
  });
}

async function main() {
  const largest = largestJpConversation();
  if (!largest) {
    process.stderr.write(`first-byte: ${JP_CONVERSATIONS} is absent; skipping\n`);
    return;
  }
  const { server, state } = await startServer();
  const { port } = server.address();
  const homes = [];
  const builds = settings.builds.map((build) => {
    const home = makeTemporaryHome("first-byte");
    homes.push(home);
    const imported = JSON.parse(
      runCxc(["--format", "json", "conversation", "import", largest.path], home.env, build),
    );
    const id = (imported.imported ?? imported)[0].id;
    const env = { ...home.env, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` };
    return { build, env, args: [build.bin, "q", "--id", id, "--no-stream", "one more question"] };
  });
  const env = builds.at(-1).env;

  const nodeTimes = [];
  const perBuild = builds.map(() => ({ firstByte: [], floorFirstByte: [], turnTimes: { 1: [], 2000: [] } }));
  for (let run = 0; run < RUNS; run++) {
    const baseline = await timed(settings.node, ["-e", "0"], env);
    nodeTimes.push(baseline.ended - baseline.started);
    for (const [index, { build, env: buildEnv, args }] of builds.entries()) {
      state.deltas = 1;
      state.firstByte.length = 0;
      const [program, ...floorArgs] = bareSdkRequest(build);
      const floor = await timed(program, floorArgs, buildEnv);
      if (floor.code !== 0) throw new Error(`the bare SDK request exited with ${floor.code}`);
      perBuild[index].floorFirstByte.push(state.firstByte[0] - floor.started);
      for (const deltas of [1, 2000]) {
        state.deltas = deltas;
        state.firstByte.length = 0;
        const turn = await timed(settings.node, args, buildEnv);
        if (turn.code !== 0) throw new Error(`cxc q exited with ${turn.code}`);
        perBuild[index].turnTimes[deltas].push(turn.ended - turn.started);
        if (deltas === 1) perBuild[index].firstByte.push(state.firstByte[0] - turn.started);
      }
    }
  }
  server.close();
  for (const home of homes) home.remove();
  const node = median(nodeTimes);
  const lines = [
    `conversation: ${largest.name} (${(largest.size / 1e6).toFixed(1)} MB of jp events)`,
    `node -e 0 (start to exit):          ${node.toFixed(1)} ms`,
  ];
  for (const [index, { build }] of builds.entries()) {
    const { firstByte, floorFirstByte, turnTimes } = perBuild[index];
    const first = median(firstByte);
    const floor = median(floorFirstByte);
    const perChunk = ((median(turnTimes[2000]) - median(turnTimes[1])) / 1999) * 1000;
    lines.push(
      rowName("cxc", build),
      `  q, start to first request byte:   ${first.toFixed(1)} ms  (${(first / node).toFixed(2)}× node -e 0; target ≤ 3×)`,
      `  q, whole turn, 1 chunk:           ${median(turnTimes[1]).toFixed(1)} ms`,
      `  q, whole turn, 2,000 chunks:      ${median(turnTimes[2000]).toFixed(1)} ms`,
      `  per streamed chunk:               ${perChunk.toFixed(1)} µs`,
      `  floor: the Anthropic SDK alone:   ${floor.toFixed(1)} ms  (${(floor / node).toFixed(2)}× node -e 0; start to first request byte of a process that only loads the build's SDK bundle and sends a one-line request)`,
    );
  }
  lines.push(
    `${RUNS} runs, medians; Node ${execFileSync(settings.node, ["--version"], { encoding: "utf8" }).trim()}`,
    "",
  );
  process.stdout.write(lines.join("\n"));
}

await main();
