/**
 * In-process projection scenario with cycle-precise compactions (docs/decisions/006): the
 * 100,000-event conversation of projection.mjs, where every other one of its 1,000 compactions
 * starts or ends inside a turn (masking, reasoning, omitted calls and summaries standing inside a
 * turn), so projection resolves winners per cycle. Target: at most 100 ms, as for projection.mjs.
 */
import { buildSourceModules, median } from "./lib.mjs";
import { buildConversation, TARGET_MS } from "./projection.mjs";

/** The compaction with its policies moved into `cycles`, starting and ending at cycles. */
function cyclePrecise(compaction, position) {
  const { summary, reasoning, tool_calls, ...rest } = compaction;
  const cycles = { to: position % 4 };
  if (position % 4 !== 0) cycles.from = position % 3;
  if (summary !== undefined) cycles.summary = summary;
  if (reasoning !== undefined) cycles.reasoning = reasoning;
  if (tool_calls !== undefined) cycles.tool_calls = tool_calls;
  // A summary inside a turn covers cycles of one turn, as cxc writes them.
  return summary === undefined ? { ...rest, cycles } : { ...rest, to_turn: rest.from_turn, cycles };
}

export async function run({ runs, log }) {
  const { modules, remove } = await buildSourceModules({ projection: "core/conversation/projection.ts" });
  try {
    const conversation = buildConversation();
    let position = 0;
    const events = conversation.events.map((event) =>
      event.type === "compaction" && position++ % 2 === 0 ? cyclePrecise(event, position) : event,
    );
    log(
      `projecting ${events.length} events (${conversation.turnCount} turns, ${conversation.compactionCount} compactions, half of them cycle-precise) …`,
    );
    const project = () => modules.projection.projectConversation(events);
    const time = (count) => {
      const wall = [];
      const cpu = [];
      for (let run = 0; run < count; run++) {
        const startedCpu = process.cpuUsage();
        const started = performance.now();
        project();
        wall.push(performance.now() - started);
        const used = process.cpuUsage(startedCpu);
        cpu.push((used.user + used.system) / 1000);
      }
      return {
        median: median(wall),
        cpuMedian: median(cpu),
        samples: wall.map((value) => Math.round(value * 10) / 10),
      };
    };
    const first = time(1);
    const timing = time(runs);
    return {
      name: `projection per cycle (${events.length} events, ${conversation.compactionCount} compactions)`,
      projectedTurns: project().turns.length,
      first: first.median,
      firstCpu: first.cpuMedian,
      ...timing,
      target: TARGET_MS,
      met: timing.cpuMedian <= TARGET_MS,
    };
  } finally {
    remove();
  }
}
