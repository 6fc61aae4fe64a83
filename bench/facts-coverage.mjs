/**
 * What the facts block keeps, measured (docs/decisions/010-facts-and-pins.md): for every
 * conversation, `-k s:..-2` (everything but the last two turns summarized), and then the share of
 * the paths its tool calls touched and of the user's binding sentences in that range that the
 * projected view still holds, with and without the facts block, for two summaries: the builtin
 * digest and a deliberately short summary (the first sentence of the first request, the number
 * of turns, the first sentence of the last answer: what a terse model writes). And what the block
 * costs: its o200k tokens per summary, median and largest. Nothing is timed.
 *
 *   node bench/facts-coverage.mjs [--jp DIR] [--format json]
 *
 * Sources: the jp corpus (`--jp DIR`, else ../shared/fixtures/jp-workspace beside the project, else
 * the committed subset); the agent session fixtures (fixtures/agents: Claude Code, pi, Codex, read
 * by their importers); and three generated long agent sessions (40 turns of 5 tool calls over 60
 * and 240 files, 60 turns of 10 calls over 1000; a binding sentence every fourth turn), the last of
 * which shows the budget at work. Paths and sentences are what `extractRangeFacts` finds in the summarized range; a path is
 * present when the view's text holds it, a sentence when the view holds it with its whitespace
 * collapsed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSourceModules, formatTable, importJpCorpus, jpCorpusRoot, PROJECT_ROOT } from "./lib.mjs";

// Far in the future, so the summary outranks every compaction already there (as the dry run does).
const NOW = "9999-12-31T23:59:59.999999999Z";
const AGENTS = [
  { name: "claude-code", module: "core/interop/claude-code.ts", importer: "importClaudeCodeSession" },
  { name: "pi", module: "core/interop/pi.ts", importer: "importPiSession" },
  { name: "codex", module: "core/interop/codex.ts", importer: "importCodexSession" },
];

function option(name) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** A long agent session in cxc's own tool shapes (see the module comment); paths spread over `files`. */
function longSession(files, turns = 40, callsPerTurn = 5) {
  let counter = 0;
  const id = () => `g${++counter}`;
  const ts = () => new Date(Date.UTC(2026, 0, 1) + counter * 1000).toISOString();
  const events = [];
  for (let turn = 0; turn < turns; turn++) {
    const rule = turn % 4 === 0 ? ` You must keep the public API of module ${turn} stable.` : "";
    events.push({ type: "turn_start", id: id(), ts: ts() });
    events.push({
      type: "chat_request",
      id: id(),
      ts: ts(),
      content: `Step ${turn}: continue the refactor.${rule}`,
    });
    for (let call = 0; call < callsPerTurn; call++) {
      const index = (turn * callsPerTurn + call) % files;
      const path = `src/area-${index % 16}/module-${index}.ts`;
      const name = call % 2 === 0 ? "read_file" : "edit_file";
      const callId = id();
      events.push({
        type: "tool_call_request",
        id: id(),
        ts: ts(),
        call_id: callId,
        name,
        arguments: { path },
      });
      events.push({
        type: "tool_call_response",
        id: id(),
        ts: ts(),
        call_id: callId,
        content: `${"export const value = 1;\n".repeat(30)}`,
        is_error: false,
      });
    }
    events.push({ type: "chat_response", id: id(), ts: ts(), message: `Step ${turn} done.` });
  }
  return events;
}

function firstSentence(text) {
  const paragraph = (text.split(/\n\s*\n/).find((part) => part.trim() !== "") ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return (paragraph.split(/(?<=[.!?])\s/)[0] ?? "").slice(0, 300);
}

function shortSummary(turns, range) {
  const events = turns.filter((turn) => turn.index <= range.to).flatMap((turn) => turn.events);
  const request = events.find((event) => event.type === "chat_request");
  const answer = [...events].reverse().find((event) => event.type === "chat_response" && event.message);
  const count = range.to - range.from + 1;
  return `${firstSentence(request?.content ?? "")} The work took ${count} turns. ${firstSentence(answer?.message ?? "")}`;
}

function viewText(view) {
  return view.events
    .map((event) =>
      event.type === "chat_request"
        ? event.content
        : event.type === "chat_response"
          ? (event.message ?? "")
          : event.type === "tool_call_request"
            ? JSON.stringify(event.arguments)
            : event.type === "tool_call_response"
              ? event.content
              : "",
    )
    .join("\n");
}

const squash = (text) => text.replace(/\s+/g, " ");

/** One conversation: coverage with and without the block, for both summaries, and the blocks' tokens. */
function measure(core, events, countTokens, cwd) {
  const parsed = core.spec.parseCompactSpec("s:..-2");
  const rule = core.spec.specToRule(parsed.value);
  const turns = core.turns.groupTurns(events);
  const result = { turns: turns.length };
  for (const [key, factsCharacters] of [
    ["with", core.keeping.DEFAULT_FACTS_CHARACTERS],
    ["without", 0],
  ]) {
    const keeping = { factsCharacters, rules: [], ...(cwd === undefined ? {} : { cwd }) };
    const plan = core.plan.planCompaction(events, { rules: [rule], now: NOW, keeping });
    if (plan.kind !== "planned") return undefined;
    for (const [summary, write] of [
      ["digest", (range) => core.digest.digestTurns(turns, range)],
      ["short", (range) => shortSummary(turns, range)],
    ]) {
      const compactions = plan.segments.map((segment, index) =>
        core.event.buildCompactionEvent(segment, {
          id: `bench-${index}`,
          ts: NOW,
          source: "user",
          summary: { summary: write(segment), source: "derived" },
        }),
      );
      const text = viewText(core.projection.projectConversation([...events, ...compactions]));
      const squashed = squash(text);
      let paths = 0;
      let pathsPresent = 0;
      let sentences = 0;
      let sentencesPresent = 0;
      for (const segment of plan.segments) {
        const facts = core.facts.extractRangeFacts(
          core.cycles.selectRange(turns, segment),
          cwd === undefined ? {} : { cwd },
        );
        for (const path of [...facts.filesRead, ...facts.filesModified]) {
          paths += 1;
          if (text.includes(path)) pathsPresent += 1;
          else if (process.env.FACTS_DEBUG && key === "with")
            process.stderr.write(`missing ${summary} ${path}\n`);
        }
        for (const sentence of facts.bindingSentences) {
          sentences += 1;
          if (squashed.includes(squash(sentence.text).trim())) sentencesPresent += 1;
        }
      }
      result[`${summary}_${key}`] = { paths, pathsPresent, sentences, sentencesPresent };
    }
    if (key === "with")
      result.blockTokens = plan.segments.map((segment) => (segment.facts ? countTokens(segment.facts) : 0));
  }
  return result;
}

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function share(present, total) {
  return total === 0 ? "—" : `${((100 * present) / total).toFixed(1)} % (${present}/${total})`;
}

async function main() {
  const { modules, remove } = await buildSourceModules({
    jp: "core/interop/jp.ts",
    plan: "compaction/core/plan.ts",
    event: "compaction/core/event.ts",
    keeping: "compaction/core/keeping.ts",
    spec: "compaction/core/spec.ts",
    projection: "core/conversation/projection.ts",
    cycles: "core/conversation/cycles.ts",
    turns: "core/conversation/turns.ts",
    digest: "compaction/core/summary/digest.ts",
    facts: "compaction/core/summary/range-facts.ts",
    counter: "store/token-counter.ts",
    ...Object.fromEntries(AGENTS.map((agent) => [agent.name, agent.module])),
  });
  try {
    const countTokens = await modules.counter.loadTokenCounter();
    const groups = [];
    const jpRoot = jpCorpusRoot(option("--jp"));
    const jpRows = importJpCorpus(modules.jp, jpRoot).map(({ name, events }) => ({
      name,
      ...measure(modules, events, countTokens),
    }));
    groups.push({
      source: `jp (${jpRoot.includes("shared") ? "full corpus" : "committed subset"})`,
      rows: jpRows,
    });
    const agentRows = [];
    for (const agent of AGENTS) {
      const folder = join(PROJECT_ROOT, "fixtures", "agents", agent.name);
      for (const file of readdirSync(folder)
        .filter((name) => name.endsWith(".jsonl"))
        .sort()) {
        const imported = modules[agent.name][agent.importer](readFileSync(join(folder, file), "utf8"), file);
        if (!imported.ok) throw new Error(`${agent.name}/${file}: ${imported.error}`);
        const { conversation } = imported.value;
        const cwd = conversation.extra?.origin?.cwd;
        agentRows.push({
          name: `${agent.name}/${file}`,
          ...measure(modules, conversation.events, countTokens, cwd),
        });
      }
    }
    groups.push({ source: "agent fixtures", rows: agentRows });
    groups.push({
      source: "generated long agent sessions",
      rows: [
        [40, 5, 60],
        [40, 5, 240],
        [60, 10, 1000],
      ].map(([turns, calls, files]) => ({
        name: `${turns} turns × ${calls} calls, ${files} files`,
        ...measure(modules, longSession(files, turns, calls), countTokens),
      })),
    });
    const summaries = groups.map(({ source, rows }) => {
      const measured = rows.filter((row) => row.digest_with !== undefined);
      const total = (key, field) => measured.reduce((sum, row) => sum + row[key][field], 0);
      const tokens = measured.flatMap((row) => row.blockTokens).filter((value) => value > 0);
      const figures = {};
      for (const summary of ["digest", "short"])
        for (const key of ["with", "without"]) {
          figures[`${summary}_${key}`] = {
            paths: share(total(`${summary}_${key}`, "pathsPresent"), total(`${summary}_${key}`, "paths")),
            sentences: share(
              total(`${summary}_${key}`, "sentencesPresent"),
              total(`${summary}_${key}`, "sentences"),
            ),
          };
        }
      return {
        source,
        conversations: rows.length,
        summarized: measured.length,
        figures,
        block_tokens: { summaries: tokens.length, median: median(tokens), largest: Math.max(0, ...tokens) },
      };
    });
    if (option("--format") === "json") {
      process.stdout.write(`${JSON.stringify({ groups, summaries }, null, 2)}\n`);
      return;
    }
    for (const summary of summaries) {
      process.stdout.write(
        `\n${summary.source}: ${summary.conversations} conversations, ${summary.summarized} with a range for -k s:..-2; facts block ${summary.block_tokens.median} tokens per summary (median), ${summary.block_tokens.largest} largest\n`,
      );
      process.stdout.write(
        formatTable(
          ["summary", "paths, with block", "paths, without", "sentences, with block", "sentences, without"],
          ["digest", "short"].map((name) => [
            name,
            summary.figures[`${name}_with`].paths,
            summary.figures[`${name}_without`].paths,
            summary.figures[`${name}_with`].sentences,
            summary.figures[`${name}_without`].sentences,
          ]),
        ),
      );
      process.stdout.write("\n");
    }
  } finally {
    remove();
  }
}

await main();
