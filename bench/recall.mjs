/**
 * Recall, measured (docs/recall.md, issue 41). Three parts, in one run:
 *
 * 1. **Dropped facts found.** For every conversation of the jp corpus (`--jp DIR`, else
 *    ../shared/fixtures/jp-workspace beside the project, else the committed subset), the agent
 *    session fixtures and three generated long agent sessions: `-k s:..-2` (the builtin digest as
 *    the summary) and `-k r+t:-5calls` (reasoning and tool calls before the last five calls
 *    stripped) are applied. The facts of the raw conversation (file paths, the commands tool calls
 *    ran, numbers of four digits or more and decimals, error lines of tool results, and the user's
 *    binding sentences as `extractRangeFacts` finds them) that the projected view no longer holds
 *    are the *dropped* facts (compared with white space collapsed); each is searched with one `recall` query (its text, literally), and
 *    counts as found when the search returns a snippet. Target: 100 %.
 * 2. **A 50 MB Claude Code session** (bench/agent-import.mjs's generator, then Claude Code's own
 *    compaction appended, so every turn before it is hidden): the floor (read the file and parse
 *    every line), the first recall of a `cxc mcp` server (read, parse, convert, analyze, search), a
 *    later one with the file unchanged, and one after the agent appended a turn (a prompt, a tool
 *    call, its 4 KB result, the answer): the server reads and parses only those lines and converts
 *    the records it kept (src/cli/mcp/transcript.ts; the bench checks it read only the tail, took
 *    the turn in and still finds the hidden text). Medians of `--runs` (5). Targets: first ≤ 3×
 *    the floor (the median of each run's ratio; beside it the same ratio of CPU time, which a
 *    loaded machine disturbs less), later < 1 s. Each run times the floor and the server in
 *    processes of their own (a fresh heap each, as a server starts). Run it under each
 *    Node (`npx -y node@26 bench/recall.mjs`).
 * 3. **What recall costs per request**, in o200k tokens: the tool's definition (name, description,
 *    JSON Schema), and the recall index of each jp conversation after both compactions (median,
 *    largest).
 *
 *   node bench/recall.mjs [--jp DIR] [--runs N] [--megabytes M] [--format json]
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeClaudeSession } from "./agent-import.mjs";
import {
  buildSourceModules,
  formatTable,
  importJpCorpus,
  jpCorpusRoot,
  median,
  PROJECT_ROOT,
} from "./lib.mjs";

const NOW = "9999-12-31T23:59:59.999999999Z";
const CLAUDE_FIXTURE = join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl");
const AGENTS = [
  { name: "claude-code", module: "core/interop/claude-code.ts", importer: "importClaudeCodeSession" },
  { name: "pi", module: "core/interop/pi.ts", importer: "importPiSession" },
  { name: "codex", module: "core/interop/codex.ts", importer: "importCodexSession" },
];
const SPECS = ["s:..-2", "r+t:-5calls"];
const SETTINGS = { enabled: true, pageCharacters: 8000, exclude: [], indexLines: 100 };

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

/** A long agent session: paths, commands, numbers and errors in its calls; a rule every fourth turn. */
function longSession(turns, callsPerTurn) {
  let counter = 0;
  const id = () => `g${++counter}`;
  const ts = () => new Date(Date.UTC(2026, 0, 1) + counter * 1000).toISOString();
  const events = [];
  for (let turn = 0; turn < turns; turn++) {
    const rule = turn % 4 === 0 ? ` Never delete the fixtures of module ${turn}.` : "";
    events.push({ type: "turn_start", id: id(), ts: ts() });
    events.push({ type: "chat_request", id: id(), ts: ts(), content: `Step ${turn}: go on.${rule}` });
    for (let call = 0; call < callsPerTurn; call++) {
      const callId = id();
      const bash = call % 2 === 1;
      const path = `src/area-${turn % 7}/module-${turn}-${call}.ts`;
      events.push({
        type: "tool_call_request",
        id: id(),
        ts: ts(),
        call_id: callId,
        name: bash ? "bash" : "read_file",
        arguments: bash ? { command: `npm test -- --filter module-${turn}-${call}` } : { path },
      });
      const content = bash
        ? `ran 1${turn}${call}7 tests in ${turn}.${call}4 s\nError: ERR_MODULE_${turn}_${call}: expected 4${call}21 got 5${turn}09\n`
        : `export const value${turn} = ${turn}${call}31;\n`.repeat(20);
      events.push({
        type: "tool_call_response",
        id: id(),
        ts: ts(),
        call_id: callId,
        content,
        is_error: bash,
      });
    }
    events.push({ type: "chat_response", id: id(), ts: ts(), message: `Step ${turn} done.` });
  }
  return events;
}

const squash = (text) => text.replace(/\s+/g, " ");

function eventText(event) {
  switch (event.type) {
    case "chat_request":
      return event.content;
    case "chat_response":
      return event.message ?? event.reasoning ?? "";
    case "tool_call_request":
      return JSON.stringify(event.arguments);
    case "tool_call_response":
      return event.content;
    default:
      return "";
  }
}

/** The facts of the raw conversation, by class (see the module comment). */
function factsOf(core, events, cwd) {
  const facts = {
    paths: new Set(),
    commands: new Set(),
    numbers: new Set(),
    errors: new Set(),
    sentences: new Set(),
  };
  for (const event of events) {
    const text = eventText(event);
    if (event.type === "tool_call_request") {
      for (const key of ["command", "cmd"]) {
        const value = event.arguments?.[key];
        const command = Array.isArray(value) ? value.join(" ") : value;
        if (typeof command === "string" && command.trim() !== "" && !command.includes("\n"))
          facts.commands.add(command.trim().slice(0, 200));
      }
    }
    if (
      event.type === "tool_call_request" ||
      event.type === "tool_call_response" ||
      event.type === "chat_request"
    ) {
      for (const match of text.matchAll(/(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]{1,5}\b/g)) facts.paths.add(match[0]);
      for (const match of text.matchAll(/\b\d{4,}(?:\.\d+)?\b|\b\d+\.\d+\b/g)) facts.numbers.add(match[0]);
    }
    if (event.type === "tool_call_response")
      for (const line of text.split("\n"))
        if (/\b(?:error|failed|exception|ERR_)/i.test(line) && line.trim().length >= 8)
          facts.errors.add(line.trim().slice(0, 200));
  }
  const extracted = core.facts.extractRangeFacts(
    core.turns.groupTurns(events),
    cwd === undefined ? {} : { cwd },
  );
  for (const sentence of extracted.bindingSentences) facts.sentences.add(sentence.text);
  return facts;
}

/** One conversation under one spec: dropped facts by class, how many one search found, the index's tokens. */
function measureRecall(core, events, spec, countTokens, cwd) {
  const parsed = core.spec.parseCompactSpec(spec);
  if (!parsed.ok) throw new Error(`${spec}: ${parsed.error ?? "invalid"}`);
  const rule = core.spec.specToRule(parsed.value);
  const turns = core.turns.groupTurns(events);
  const keeping = {
    factsCharacters: core.keeping.DEFAULT_FACTS_CHARACTERS,
    rules: [],
    ...(cwd === undefined ? {} : { cwd }),
  };
  const plan = core.plan.planCompaction(events, { rules: [rule], now: NOW, keeping });
  if (plan.kind !== "planned") return undefined;
  const compactions = plan.segments.map((segment, index) =>
    core.event.buildCompactionEvent(segment, {
      id: `bench-${index}`,
      ts: NOW,
      source: "user",
      ...(spec.startsWith("s")
        ? { summary: { summary: core.digest.digestTurns(turns, segment), source: "derived" } }
        : {}),
    }),
  );
  const all = [...events, ...compactions];
  const view = core.projection.projectConversation(all);
  // White space collapsed: a sentence wrapped in the view is still there.
  const shown = squash(view.events.map(eventText).join("\n"));
  const analysis = core.recall.analyzeRecall(all, { view });
  const facts = factsOf(core, events, cwd);
  const result = { index: countTokens(core.recall.recallIndexText(analysis) ?? "") };
  for (const [kind, values] of Object.entries(facts)) {
    let dropped = 0;
    let found = 0;
    for (const fact of values) {
      if (shown.includes(squash(fact))) continue;
      dropped += 1;
      const searched = core.recall.searchRecall(analysis, fact);
      if (searched.ok && !/^(?:No hidden content|Nothing is hidden)/.test(searched.text)) found += 1;
      else if (process.env.RECALL_DEBUG) process.stderr.write(`not found (${kind}): ${fact}\n`);
    }
    result[kind] = { dropped, found };
  }
  return result;
}

/** A 50 MB Claude Code session with Claude Code's own compaction after it; resolves with its path and size. */
async function bigSession(directory, megabytes) {
  const path = join(directory, "session.jsonl");
  const size = await writeClaudeSession(path, megabytes);
  const generated = readFileSync(path, "utf8");
  const leaf = JSON.parse(generated.slice(generated.lastIndexOf("\n", generated.length - 2) + 1)).leafUuid;
  const fixture = readFileSync(CLAUDE_FIXTURE, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const start = fixture.findIndex((record) => record.subtype === "compact_boundary");
  const records = fixture.slice(start);
  records[0].logicalParentUuid = leaf;
  delete records[0].compactMetadata.preservedSegment;
  delete records[0].compactMetadata.preservedMessages;
  appendFileSync(path, `${records.map((record) => JSON.stringify(record)).join("\n")}\n`);
  const chain = records.filter((record) => typeof record.uuid === "string");
  return { path, size, leaf: chain.at(-1).uuid, fixture };
}

/** The lines of one turn the agent appends after `parent` (the fixture's record shapes): its records and the new leaf. */
function appendedTurn(fixture, parent, run) {
  const find = (test) => fixture.find(test);
  const blocks = (record) => (Array.isArray(record.message?.content) ? record.message.content : []);
  const prompt = find((record) => record.type === "user" && typeof record.message?.content === "string");
  const call = find(
    (record) => record.type === "assistant" && blocks(record).some((b) => b.type === "tool_use"),
  );
  const result = find(
    (record) => record.type === "user" && blocks(record).some((b) => b.type === "tool_result"),
  );
  const answer = find(
    (record) => record.type === "assistant" && blocks(record).every((b) => b.type === "text"),
  );
  const id = (part) => `bench-append-${run}-${part}`;
  const output = Array.from(
    { length: 60 },
    (_, line) => `appended-${run}-${line}.txt ${"y".repeat(60)}`,
  ).join("\n");
  const lines = [
    {
      ...prompt,
      uuid: id("prompt"),
      parentUuid: parent,
      message: { role: "user", content: `Appended turn ${run}.` },
    },
    {
      ...call,
      uuid: id("call"),
      parentUuid: id("prompt"),
      message: {
        ...call.message,
        id: id("m1"),
        content: [{ type: "tool_use", id: id("tool"), name: "Bash", input: { command: "ls" } }],
      },
    },
    {
      ...result,
      uuid: id("result"),
      parentUuid: id("call"),
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id("tool"), content: output, is_error: false }],
      },
    },
    {
      ...answer,
      uuid: id("answer"),
      parentUuid: id("result"),
      message: {
        ...answer.message,
        id: id("m2"),
        content: [{ type: "text", text: `Appended turn ${run} done.` }],
      },
    },
  ];
  return { text: lines.map((line) => `${JSON.stringify(line)}\n`).join(""), leaf: id("answer") };
}

/** Milliseconds of this process's CPU (user and system, every thread) since `start`. */
const cpuSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

function time(action) {
  const [start, cpu] = [performance.now(), process.cpuUsage()];
  const value = action();
  return { ms: performance.now() - start, cpu: cpuSince(cpu), value };
}

async function timeAsync(action) {
  const [start, cpu] = [performance.now(), process.cpuUsage()];
  const value = await action();
  return { ms: performance.now() - start, cpu: cpuSince(cpu), value };
}

/**
 * One run of the speed part, in a process of its own (a fresh heap, as a `cxc mcp` server starts
 * with): `floor` times reading and parsing the file; `server` times a server's first recall, a
 * later one with the file unchanged, and one after the agent appended a turn, and checks each.
 */
async function child(plan) {
  const { path, outDir, run, leaf } = plan;
  if (plan.kind === "floor") {
    const { ms: floor, cpu } = time(() => {
      let count = 0;
      for (const line of readFileSync(path, "utf8").split("\n"))
        if (line !== "") {
          JSON.parse(line);
          count += 1;
        }
      return count;
    });
    return { floor, cpu };
  }
  const load = (name) => import(pathToFileURL(join(outDir, `${name}.mjs`)).href);
  const [server, tool] = [await load("server"), await load("tool")];
  const call = { query: "file-17-3.txt" };
  const found = (outcome, where) => {
    if (outcome.isError || !outcome.content.includes("file-17-3.txt"))
      throw new Error(`${where}: the recall did not find the hidden text: ${outcome.content.slice(0, 200)}`);
  };
  const recall = new server.TranscriptRecall("claude-code", SETTINGS);
  const first = await timeAsync(() => tool.runRecall(recall.analysis(path), call, SETTINGS));
  found(first.value, "first recall");
  const turns = recall.analysis(path).turnCount;
  const later = await timeAsync(() =>
    tool.runRecall(recall.analysis(path), { query: "file-42-7.txt" }, SETTINGS),
  );
  if (recall.lastRead !== "unchanged") throw new Error(`a later recall read the file (${recall.lastRead})`);
  const turn = appendedTurn(JSON.parse(readFileSync(plan.fixture, "utf8")), leaf, run);
  appendFileSync(path, turn.text);
  const appended = await timeAsync(() => tool.runRecall(recall.analysis(path), call, SETTINGS));
  found(appended.value, "after a turn was appended");
  if (recall.lastRead !== "appended" || recall.analysis(path).turnCount !== turns + 1)
    throw new Error(
      `after a turn was appended the server read ${recall.lastRead}, not the appended turn alone`,
    );
  return { first: first.ms, firstCpu: first.cpu, later: later.ms, appended: appended.ms, leaf: turn.leaf };
}

function inChild(plan) {
  const result = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), "--child", JSON.stringify(plan)],
    {
      encoding: "utf8",
      maxBuffer: 1 << 24,
    },
  );
  if (result.status !== 0) throw new Error(`the bench's child failed: ${result.stderr.slice(-2000)}`);
  return JSON.parse(result.stdout);
}

async function speed(outDir, runs, megabytes) {
  const directory = mkdtempSync(join(tmpdir(), "cxc-recall-bench-"));
  try {
    const session = await bigSession(directory, megabytes);
    const { path, size } = session;
    const fixture = join(directory, "fixture.json");
    writeFileSync(fixture, JSON.stringify(session.fixture));
    let leaf = session.leaf;
    const samples = { floor: [], first: [], later: [], appended: [], ratio: [], cpuRatio: [] };
    for (let run = 0; run < runs; run++) {
      const { floor, cpu } = inChild({ kind: "floor", path });
      const measured = inChild({ kind: "server", path, outDir, run, leaf, fixture });
      leaf = measured.leaf;
      samples.floor.push(floor);
      samples.first.push(measured.first);
      samples.later.push(measured.later);
      samples.appended.push(measured.appended);
      samples.ratio.push(measured.first / floor);
      samples.cpuRatio.push(measured.firstCpu / cpu);
    }
    return {
      megabytes: size / 1e6,
      floor: median(samples.floor),
      first: median(samples.first),
      pairedRatio: median(samples.ratio),
      cpuRatio: median(samples.cpuRatio),
      later: median(samples.later),
      appended: median(samples.appended),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function main() {
  const childPlan = option("--child");
  if (childPlan !== undefined) {
    process.stdout.write(JSON.stringify(await child(JSON.parse(childPlan))));
    return;
  }
  const runs = Number(option("--runs", "5"));
  const megabytes = Number(option("--megabytes", "50"));
  const {
    modules: core,
    outDir,
    remove,
  } = await buildSourceModules({
    jp: "core/interop/jp.ts",
    plan: "compaction/core/plan.ts",
    event: "compaction/core/event.ts",
    keeping: "compaction/core/keeping.ts",
    spec: "compaction/core/spec.ts",
    projection: "core/conversation/projection.ts",
    turns: "core/conversation/turns.ts",
    digest: "compaction/core/summary/digest.ts",
    facts: "compaction/core/summary/range-facts.ts",
    counter: "store/token-counter.ts",
    recall: "core/conversation/recall.ts",
    tool: "tools/recall.ts",
    server: "cli/mcp/server.ts",
    ...Object.fromEntries(AGENTS.map((agent) => [agent.name, agent.module])),
  });
  try {
    const countTokens = await core.counter.loadTokenCounter();
    const sources = [];
    const jpRoot = jpCorpusRoot(option("--jp"));
    const jp = importJpCorpus(core.jp, jpRoot);
    sources.push({
      name: `jp (${jpRoot.includes("shared") ? "full corpus" : "committed subset"}, ${jp.length})`,
      items: jp,
    });
    const agents = [];
    for (const agent of AGENTS) {
      const folder = join(PROJECT_ROOT, "fixtures", "agents", agent.name);
      for (const file of readdirSync(folder).filter((name) => name.endsWith(".jsonl"))) {
        const imported = core[agent.name][agent.importer](readFileSync(join(folder, file), "utf8"), file);
        if (!imported.ok) throw new Error(`${agent.name}/${file}: ${imported.error}`);
        agents.push({
          events: imported.value.conversation.events,
          cwd: imported.value.conversation.extra?.origin?.cwd,
        });
      }
    }
    sources.push({ name: `agent fixtures (${agents.length})`, items: agents });
    sources.push({
      name: "generated agent sessions (40×5, 80×8 calls)",
      items: [{ events: longSession(40, 5) }, { events: longSession(80, 8) }],
    });

    const rows = [];
    const indexTokens = [];
    for (const source of sources) {
      for (const spec of SPECS) {
        const totals = {};
        for (const item of source.items) {
          const measured = measureRecall(core, item.events, spec, countTokens, item.cwd);
          if (measured === undefined) continue;
          if (source.name.startsWith("jp") && measured.index > 0) indexTokens.push(measured.index);
          for (const [kind, value] of Object.entries(measured)) {
            if (kind === "index") continue;
            totals[kind] ??= { dropped: 0, found: 0 };
            totals[kind].dropped += value.dropped;
            totals[kind].found += value.found;
          }
        }
        const cell = (kind) =>
          totals[kind] === undefined || totals[kind].dropped === 0
            ? "—"
            : `${((100 * totals[kind].found) / totals[kind].dropped).toFixed(1)} % (${totals[kind].found}/${totals[kind].dropped})`;
        const dropped = Object.values(totals).reduce((sum, value) => sum + value.dropped, 0);
        const found = Object.values(totals).reduce((sum, value) => sum + value.found, 0);
        rows.push({
          source: source.name,
          spec,
          paths: cell("paths"),
          commands: cell("commands"),
          numbers: cell("numbers"),
          errors: cell("errors"),
          sentences: cell("sentences"),
          all: dropped === 0 ? "—" : `${((100 * found) / dropped).toFixed(1)} %`,
          met: dropped === found,
        });
      }
    }

    const timing = await speed(outDir, runs, megabytes);
    const definition = {
      name: core.tool.RECALL_TOOL_NAME,
      description: core.tool.RECALL_DESCRIPTION,
      input_schema: core.tool.RECALL_ARGUMENTS.schema,
    };
    const cost = {
      toolTokens: countTokens(JSON.stringify(definition)),
      indexMedian: median(indexTokens),
      indexLargest: Math.max(0, ...indexTokens),
      indexCount: indexTokens.length,
    };
    if (option("--format") === "json") {
      process.stdout.write(`${JSON.stringify({ node: process.version, rows, timing, cost }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      `Recall (Node ${process.version})\n\nDropped facts one recall search finds (target 100 %):\n`,
    );
    process.stdout.write(
      `${formatTable(
        ["source", "spec", "paths", "commands", "numbers", "errors", "binding sentences", "all", "met"],
        rows.map((row) => [
          row.source,
          row.spec,
          row.paths,
          row.commands,
          row.numbers,
          row.errors,
          row.sentences,
          row.all,
          row.met ? "yes" : "NO",
        ]),
      )}\n\n`,
    );
    const ratio = timing.pairedRatio;
    process.stdout.write(
      `A ${timing.megabytes.toFixed(1)} MB Claude Code session, medians of ${runs} runs:\n${formatTable(
        ["measure", "ms", "target", "met"],
        [
          ["floor: read the file, split it, parse every line", timing.floor.toFixed(0), "", ""],
          [
            "first recall (read, parse, convert, analyze, search)",
            `${timing.first.toFixed(0)} (${ratio.toFixed(2)}× the floor, paired; CPU time ${timing.cpuRatio.toFixed(2)}×)`,
            "≤ 3× the floor",
            ratio <= 3 ? "yes" : "NO",
          ],
          [
            "a later recall, the file unchanged",
            timing.later.toFixed(1),
            "< 1000",
            timing.later < 1000 ? "yes" : "NO",
          ],
          [
            "after the agent appended a turn (its lines read, the kept records converted)",
            timing.appended.toFixed(0),
            "< 1000",
            timing.appended < 1000 ? "yes" : "NO",
          ],
        ],
      )}\n\n`,
    );
    process.stdout.write(
      `Per request (o200k tokens): the recall tool's definition ${cost.toolTokens}; the recall index over ${cost.indexCount} compacted jp views: median ${cost.indexMedian}, largest ${cost.indexLargest}.\n`,
    );
  } finally {
    remove();
  }
}

await main();
