/**
 * In-process projection scenario (issue 3): `projectConversation` over 100,000 events under 1,000
 * compactions of every kind (summaries, stripped reasoning, stripped and omitted tool calls, some
 * deferred, some retired by a reset), built from the TypeScript sources. Target: at most 100 ms.
 */
import { buildSourceModules, median } from "./lib.mjs";

export const EVENT_COUNT = 100_000;
export const COMPACTION_COUNT = 1_000;
/** The brief's bound for one projection, in milliseconds. */
export const TARGET_MS = 100;

/** src/core/conversation/projection.ts, built from the sources. */
async function loadProjection() {
  const { modules, remove } = await buildSourceModules({ projection: "core/conversation/projection.ts" });
  return { ...modules.projection, remove };
}

/** A fixed-width sortable id and an RFC 3339 timestamp for event number `index`. */
function stamp(index) {
  const id = `01BENCH${String(index).padStart(12, "0")}`;
  const ts = new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();
  return { id, ts };
}

/** Ten events per turn: a request, reasoning, three tool call pairs and an answer. */
function turnEvents(turn, next) {
  const events = [
    { type: "turn_start", ...next() },
    { type: "chat_request", ...next(), content: `request ${turn}: please look at src/file-${turn}.ts` },
    { type: "chat_response", ...next(), reasoning: `thinking about turn ${turn} `.repeat(4) },
  ];
  for (let call = 0; call < 3; call++) {
    const callId = `call-${turn}-${call}`;
    events.push(
      {
        type: "tool_call_request",
        ...next(),
        call_id: callId,
        name: "read_file",
        arguments: { path: `f${call}` },
      },
      {
        type: "tool_call_response",
        ...next(),
        call_id: callId,
        content: `contents ${turn}/${call}`,
        is_error: false,
      },
    );
  }
  events.push({ type: "chat_response", ...next(), message: `answer ${turn}` });
  return events;
}

/** One compaction of a rotating kind over a range of `turnCount` turns. */
function compactionEvent(position, turnCount, next) {
  const from = (position * 37) % (turnCount - 20);
  const to = from + 1 + (position % 17);
  const kind = position % 5;
  const policy =
    kind === 0
      ? { summary: { summary: `summary ${position}`, source: "derived", recipe: "builtin/digest" } }
      : kind === 1
        ? { reasoning: "strip" }
        : kind === 2
          ? { tool_calls: { policy: "strip", request: true, response: true } }
          : kind === 3
            ? { tool_calls: { policy: "omit" } }
            : { reasoning: "strip", tool_calls: { policy: "strip", request: false, response: true } };
  return {
    type: "compaction",
    ...next(),
    from_turn: from,
    to_turn: to,
    ...policy,
    source: "user",
    ...(position % 50 === 7 ? { deferred_until_turn: turnCount + 5 } : {}),
  };
}

/** 100,000 events: turns of ten events, with the compactions (and one reset) spread through. */
export function buildConversation() {
  let counter = 0;
  const next = () => stamp(counter++);
  const compactionSlots = COMPACTION_COUNT + 1; // the compactions and one reset
  const turnCount = Math.floor((EVENT_COUNT - compactionSlots) / 10);
  const events = [];
  const compactions = [];
  for (let turn = 0; turn < turnCount; turn++) {
    events.push(...turnEvents(turn, next));
    // Append compactions as the conversation grows, as real use does.
    const due = Math.floor(((turn + 1) * COMPACTION_COUNT) / turnCount);
    while (compactions.length < due) {
      const compaction = compactionEvent(compactions.length, turnCount, next);
      compactions.push(compaction);
      events.push(compaction);
    }
    if (turn === Math.floor(turnCount / 2)) {
      events.push({
        type: "compaction_reset",
        ...next(),
        retires: compactions.slice(0, 10).map((c) => c.id),
      });
    }
  }
  while (events.length < EVENT_COUNT) events.push({ type: "config_delta", ...next(), delta: {} });
  return { events, turnCount, compactionCount: compactions.length };
}

/** Wall and CPU time of `action`, in milliseconds, `runs` times; medians and samples. */
export function timeWithCpu(action, runs) {
  const wall = [];
  const cpu = [];
  for (let run = 0; run < runs; run++) {
    const startedCpu = process.cpuUsage();
    const started = performance.now();
    action();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(startedCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  const round = (values) => values.map((value) => Math.round(value * 10) / 10);
  return { median: median(wall), cpuMedian: median(cpu), samples: round(wall), cpuSamples: round(cpu) };
}

export async function run({ runs, log }) {
  const projection = await loadProjection();
  try {
    const conversation = buildConversation();
    log(
      `projecting ${conversation.events.length} events (${conversation.turnCount} turns, ${conversation.compactionCount} compactions) …`,
    );
    const project = () => projection.projectConversation(conversation.events);
    // The first call also pays for compiling the projection code, as a command does once.
    const first = timeWithCpu(project, 1);
    const timing = timeWithCpu(project, runs);
    return {
      name: `projection (${conversation.events.length} events, ${conversation.compactionCount} compactions)`,
      projectedTurns: project().turns.length,
      first: first.median,
      firstCpu: first.cpuMedian,
      ...timing,
      target: TARGET_MS,
      // CPU time decides: on a loaded machine wall time mostly measures waiting for a core.
      met: timing.cpuMedian <= TARGET_MS,
    };
  } finally {
    projection.remove();
  }
}
