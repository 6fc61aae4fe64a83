/**
 * In-process scenario of issue 42: the 100,000-event conversation of projection.mjs with one more
 * summary in force over its first half, appended last, as Anthropic's own summary (a compaction
 * block, `summary.native`) or as cxc's (the same text, no block), projected and built into the
 * Anthropic request body (where the block is replayed first with its facts after it). Target: the
 * projection at most 100 ms, as for projection.mjs; the row also gives the native case over cxc's
 * own summary, and projection with the request body, interleaved round by round.
 */
import { buildSourceModules, median } from "./lib.mjs";
import { buildConversation, TARGET_MS, timeWithCpu } from "./projection.mjs";

const MODEL = "anthropic/claude-opus-4-6";
const SAMPLE_CALLS = 5;

/** A summary over turns 0..`to`, after every other event; with `native`, Anthropic's block. */
function summaryOver(to, native, ts) {
  const text = "The user and the assistant went through the first half of the files.";
  return {
    type: "compaction",
    id: "01BENCHNATIVE000000000000",
    ts,
    from_turn: 0,
    to_turn: to,
    summary: {
      summary: text,
      source: "derived",
      recipe: MODEL,
      facts: "[Facts of these turns, from their raw events]\nFiles read: src/file-1.ts",
      ...(native
        ? {
            native: {
              format: "anthropic-compaction",
              provider: "anthropic",
              model: MODEL,
              content: text,
              signature: "EuYBCkQIBhgCIkA",
              usage: { input_tokens: 60_000, output_tokens: 400 },
            },
          }
        : {}),
    },
    source: "user",
    ...(native ? { requires: ["native-summary"] } : {}),
  };
}

export async function run({ runs, log }) {
  const { modules, remove } = await buildSourceModules({
    projection: "core/conversation/projection.ts",
    request: "core/conversation/request.ts",
    anthropic: "llm/anthropic-request.ts",
  });
  try {
    const conversation = buildConversation();
    const half = Math.floor(conversation.turnCount / 2);
    const last = new Date(Date.UTC(2027, 0, 1)).toISOString();
    const withSummary = (native) => [...conversation.events, summaryOver(half, native, last)];
    const native = withSummary(true);
    const plain = withSummary(false);
    log(
      `projecting ${native.length} events (${conversation.turnCount} turns, a native summary of turns 1..${half + 1} in force) and building the request …`,
    );
    const project = (events) => () => modules.projection.projectConversation(events);
    const build = (events) => () => {
      const view = modules.projection.projectConversation(events);
      return modules.anthropic.toAnthropicRequest(
        modules.request.buildLlmRequest(view.turns),
        "claude-opus-4-6",
        {
          modelId: MODEL,
        },
      );
    };
    const body = build(native)();
    if (body.messages[0]?.content?.[0]?.type !== "compaction")
      throw new Error("the native block is not first");
    const first = timeWithCpu(project(native), 1);
    // Interleaved, so load moves every case alike; each sample the median of five calls (one call
    // of some 20 ms is at the mercy of a collection or another process on a shared machine).
    const samples = { native: [], plain: [], nativeBody: [], plainBody: [] };
    for (let run = 0; run < runs; run++) {
      samples.native.push(timeWithCpu(project(native), SAMPLE_CALLS));
      samples.plain.push(timeWithCpu(project(plain), SAMPLE_CALLS));
      samples.nativeBody.push(timeWithCpu(build(native), SAMPLE_CALLS));
      samples.plainBody.push(timeWithCpu(build(plain), SAMPLE_CALLS));
    }
    const medianOf = (list, key) => median(list.map((entry) => entry[key]));
    const cpu = Object.fromEntries(
      Object.entries(samples).map(([name, list]) => [name, medianOf(list, "cpuMedian")]),
    );
    const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
    return {
      name: `projection, a native summary of turns 1..${half + 1} in force (${native.length} events; cpu ${ratio(cpu.native, cpu.plain)} cxc's summary; with the Anthropic request body ${cpu.nativeBody.toFixed(0)} ms, ${ratio(cpu.nativeBody, cpu.plainBody)})`,
      first: first.median,
      median: medianOf(samples.native, "median"),
      cpuMedian: cpu.native,
      cpu,
      target: TARGET_MS,
      met: cpu.native <= TARGET_MS,
    };
  } finally {
    remove();
  }
}
