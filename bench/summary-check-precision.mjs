/**
 * The precision of the summary check (src/compaction/core/summary/check.ts) on the jp corpus: how many of the
 * items it reports are real losses, judged by hand, and how many it reports per summary.
 *
 *   node bench/summary-check-precision.mjs                 every labelled sample, with its precision
 *   node bench/summary-check-precision.mjs --sample SEED [--exclude SEED,…] [--shown] [--context]
 *                                                          draw a sample and show it (with --context:
 *                                                          where each item came up, for labelling;
 *                                                          with --shown: only the top 10 of each summary;
 *                                                          --exclude: without the items of those samples,
 *                                                          each drawn as the labels file records it)
 *   node bench/summary-check-precision.mjs --counts        items reported per summary
 *   node bench/summary-check-precision.mjs --list          every reported item, ranked per summary, with its score (JSON)
 *   node bench/summary-check-precision.mjs --format json
 *   … --workspace DIR                                     another jp workspace (DIR/.jp/conversations,
 *                                                          DIR/conversations or DIR itself)
 *
 * Method (docs/benchmarks.md, "Summary check precision"): every conversation of the jp workspace
 * (the full one in ../shared when present, else the committed subset), the range a compaction
 * would take (every turn but the last; a one-turn conversation whole), and two summaries of it:
 * the builtin digest, and a deliberately short three-sentence summary (the first sentence of the
 * first request, the number of turns, the first sentence of the last answer). Every item the
 * check reports for them is a candidate; a sample is the 100 candidates with the lowest seeded
 * hash of (conversation, summary, kind, value), skipping the items of the samples named by
 * `--exclude`: uniform over all reported items, and stable while the check changes (an item keeps
 * its draw; one the check stops reporting gives its place to the next). The verdicts are in bench/data/summary-check-labels.json, one per item, each with a
 * one-line reason; an item a changed check reports anew is listed as unlabelled, never guessed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSourceModules, importJpDirectory, PROJECT_ROOT } from "./lib.mjs";

const SAMPLE_SIZE = 100;
/** How many items a report shows (compaction/core/summary/summary-check-text.ts, SHOWN_LOSSES). */
const SHOWN = 10;
const LABELS_PATH = join(PROJECT_ROOT, "bench", "data", "summary-check-labels.json");
const WORKSPACES = [
  join(PROJECT_ROOT, "..", "shared", "fixtures", "jp-workspace", ".jp", "conversations"),
  join(PROJECT_ROOT, "fixtures", "jp-workspace", ".jp", "conversations"),
];

function option(name) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** Every conversation directory of the first workspace present (archived ones included). */
function conversationDirectories() {
  const chosen = option("--workspace");
  const root =
    chosen === undefined
      ? WORKSPACES.find((path) => existsSync(path))
      : [join(chosen, ".jp", "conversations"), join(chosen, "conversations"), chosen].find((path) =>
          existsSync(path),
        );
  if (root === undefined) throw new Error("no jp workspace found (fixtures/jp-workspace is missing)");
  const directories = [];
  for (const name of readdirSync(root)) {
    if (name === ".archive") {
      for (const archived of readdirSync(join(root, name)))
        directories.push({ name: archived, path: join(root, name, archived) });
    } else if (!name.startsWith(".")) directories.push({ name, path: join(root, name) });
  }
  return { root, directories: directories.sort((left, right) => (left.name < right.name ? -1 : 1)) };
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

/** The first sentence of a text's first paragraph, on one line, at most 300 characters. */
function firstSentence(text) {
  const paragraph = (text.split(/\n\s*\n/).find((part) => part.trim() !== "") ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return (paragraph.split(/(?<=[.!?])\s/)[0] ?? "").slice(0, 300);
}

/** The deliberately short summary: what was asked, how long it took, how the last answer began. */
function shortSummary(turns, range) {
  const events = turns.filter((turn) => turn.index <= range.to).flatMap((turn) => turn.events);
  const request = events.find((event) => event.type === "chat_request");
  const answer = [...events].reverse().find((event) => event.type === "chat_response" && event.message);
  const count = range.to - range.from + 1;
  return `${firstSentence(request?.content ?? "")} The work took ${count} turn${count === 1 ? "" : "s"}. ${firstSentence(answer?.message ?? "")}`;
}

async function loadCorpus() {
  const { modules, remove } = await buildSourceModules({
    check: "compaction/core/summary/check.ts",
    digest: "compaction/core/summary/digest.ts",
    turns: "core/conversation/turns.ts",
    jp: "core/interop/jp.ts",
  });
  try {
    const { root, directories } = conversationDirectories();
    const conversations = [];
    for (const directory of directories) {
      const turns = modules.turns.groupTurns(importJpDirectory(modules.jp, directory));
      if (turns.length === 0) continue;
      const range = { from: 0, to: Math.max(0, turns.length - 2) };
      const summaries = {
        digest: modules.digest.digestTurns(turns, range),
        short: shortSummary(turns, range),
      };
      const results = {};
      for (const [summary, text] of Object.entries(summaries))
        results[summary] = modules.check.checkSummary(turns, range, text);
      conversations.push({ name: directory.name, turns, range, summaries, results });
    }
    return { root, conversations };
  } finally {
    remove();
  }
}

/**
 * A seeded hash of a string (FNV-1a, then mulberry32's mix), uniform in [0, 1): the same on every
 * machine, and an item keeps its draw when other items come and go.
 */
function draw(seed, text) {
  let hash = 0x811c9dc5 ^ seed;
  for (let index = 0; index < text.length; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  let value = (hash + 0x6d2b79f5) >>> 0;
  value = Math.imul(value ^ (value >>> 15), value | 1);
  value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
  return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
}

const itemKey = (item) => `${item.conversation}\u0000${item.summary}\u0000${item.kind}\u0000${item.value}`;

function candidates(corpus) {
  const all = [];
  for (const conversation of corpus.conversations) {
    for (const [summary, result] of Object.entries(conversation.results)) {
      result.items.forEach((item, rank) => {
        all.push({
          conversation: conversation.name,
          summary,
          kind: item.kind,
          value: item.value,
          reason: item.reason,
          rank: rank + 1,
          score: item.score,
        });
      });
    }
  }
  return all;
}

/**
 * The items of earlier samples, each drawn as it was: from its population (all items, or the
 * shown ones) and without the samples it excluded in turn, as the labels file records them. A
 * seed the file does not record is drawn from all items, without the ones before it.
 */
function excludedBy(all, seeds, recorded = new Map()) {
  const keysOf = (seed, before) => {
    const sample = recorded.get(seed);
    if (sample === undefined) return drawSample(all, seed, before).map(itemKey);
    const inner = new Set();
    for (const earlier of sample.exclude ?? []) for (const key of keysOf(earlier, inner)) inner.add(key);
    return drawSample(sample.population === "shown" ? shownOnly(all) : all, seed, inner).map(itemKey);
  };
  const excluded = new Set();
  for (const seed of seeds) for (const key of keysOf(seed, excluded)) excluded.add(key);
  return excluded;
}

/** The items a person sees: the first ten of each summary's ranked list (the rest is "and N more"). */
function shownOnly(all) {
  return all.filter((item) => item.rank <= SHOWN);
}

/** The 100 candidates with the lowest seeded draw, leaving out `excluded`. */
function drawSample(all, seed, excluded) {
  return all
    .filter((item) => !excluded.has(itemKey(item)))
    .map((item) => ({ item, draw: draw(seed, itemKey(item)) }))
    .sort((left, right) => left.draw - right.draw)
    .slice(0, SAMPLE_SIZE)
    .map(({ item }) => item);
}

/** The samples the labels file records, by seed (population and exclusions, to draw them again). */
function recordedSamples() {
  return new Map((readJson(LABELS_PATH)?.samples ?? []).map((sample) => [sample.seed, sample]));
}

function loadLabels() {
  const document = readJson(LABELS_PATH) ?? { labels: [] };
  return new Map(document.labels.map((label) => [itemKey(label), label]));
}

function measure(sample, labels) {
  let losses = 0;
  let labelled = 0;
  const unlabelled = [];
  for (const item of sample) {
    const label = labels.get(itemKey(item));
    if (label === undefined) unlabelled.push(item);
    else {
      labelled += 1;
      if (label.verdict === "loss") losses += 1;
    }
  }
  return {
    size: sample.length,
    labelled,
    losses,
    precision: labelled === 0 ? null : losses / labelled,
    unlabelled,
  };
}

/** Where an item came up in the range, for whoever labels it: messages first, then tool calls. */
function contexts(conversation, item) {
  const needle = item.kind === "constraint" ? item.value.slice(0, 60) : item.value.replace(/\(\)$/, "");
  const lowerNeedle = needle.toLowerCase();
  const found = { message: [], tool: [] };
  for (const turn of conversation.turns) {
    if (turn.index > conversation.range.to) break;
    for (const event of turn.events) {
      const text =
        event.type === "chat_request"
          ? event.content
          : event.type === "chat_response"
            ? event.message
            : event.type === "tool_call_request"
              ? `${event.name} ${JSON.stringify(event.arguments)}`
              : event.type === "tool_call_response"
                ? event.content
                : undefined;
      if (typeof text !== "string") continue;
      const at = text.toLowerCase().indexOf(lowerNeedle);
      if (at < 0) continue;
      const who =
        event.type === "chat_request"
          ? "user"
          : event.type === "chat_response"
            ? "assistant"
            : event.type === "tool_call_request"
              ? "call"
              : "output";
      const start = Math.max(0, at - 160);
      const line = `    [turn ${turn.index + 1} ${who}] …${text.slice(start, at + needle.length + 160).replace(/\s+/g, " ")}…`;
      (who === "user" || who === "assistant" ? found.message : found.tool).push(line);
    }
  }
  return [...found.message.slice(0, 3), ...found.tool.slice(0, found.message.length === 0 ? 2 : 1)];
}

function pairCounts(corpus) {
  return corpus.conversations.flatMap((conversation) =>
    Object.entries(conversation.results).map(([summary, result]) => ({
      conversation: conversation.name,
      summary,
      reported: result.items.length,
      checked: result.checked,
    })),
  );
}

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? 0
    : sorted.length % 2
      ? sorted[middle]
      : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function main() {
  const corpus = await loadCorpus();
  const all = candidates(corpus);
  const labels = loadLabels();
  const json = option("--format") === "json";
  const counts = pairCounts(corpus);
  const bySummary = Object.fromEntries(
    ["digest", "short"].map((summary) => {
      const rows = counts.filter((row) => row.summary === summary);
      return [
        summary,
        {
          summaries: rows.length,
          total: rows.reduce((sum, row) => sum + row.reported, 0),
          median: median(rows.map((row) => row.reported)),
          max: Math.max(...rows.map((row) => row.reported)),
        },
      ];
    }),
  );
  if (process.argv.includes("--list")) {
    process.stdout.write(`${JSON.stringify(all, null, 1)}\n`);
    return;
  }
  const sampleSeed = option("--sample");
  if (sampleSeed !== undefined) {
    const pool = process.argv.includes("--shown") ? shownOnly(all) : all;
    const seeds = (option("--exclude") ?? "").split(",").filter(Boolean).map(Number);
    const excluded = excludedBy(all, seeds, recordedSamples());
    const sample = drawSample(pool, Number(sampleSeed), excluded);
    const result = measure(sample, labels);
    if (json) {
      process.stdout.write(`${JSON.stringify({ seed: Number(sampleSeed), ...result, sample }, null, 2)}\n`);
      return;
    }
    for (const item of sample) {
      const label = labels.get(itemKey(item));
      process.stdout.write(
        `${label === undefined ? "??" : label.verdict === "loss" ? "ok" : "NO"} ${item.conversation.slice(0, 24)} ${item.summary} #${item.rank} ${item.kind} ${JSON.stringify(item.value).slice(0, 160)} — ${item.reason}${label ? ` | ${label.reason}` : ""}\n`,
      );
      if (process.argv.includes("--context")) {
        const conversation = corpus.conversations.find((entry) => entry.name === item.conversation);
        for (const line of contexts(conversation, item)) process.stdout.write(`${line}\n`);
      }
    }
    report(`sample ${sampleSeed}`, result);
    return;
  }
  if (process.argv.includes("--counts")) {
    for (const row of counts)
      process.stdout.write(
        `${row.conversation.padEnd(72)} ${row.summary.padEnd(6)} ${String(row.reported).padStart(4)} of ${row.checked}\n`,
      );
  }
  const document = readJson(LABELS_PATH) ?? { samples: [] };
  const remaining = remainingLabelled(all, labels);
  const results = (document.samples ?? []).map((sample) => {
    const pool = sample.population === "shown" ? shownOnly(all) : all;
    const excluded = excludedBy(all, sample.exclude ?? [], recordedSamples());
    return { ...sample, ...measure(drawSample(pool, sample.seed, excluded), labels) };
  });
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ workspace: corpus.root.includes("shared") ? "shared" : "committed", candidates: all.length, per_summary: bySummary, remaining, samples: results.map(({ unlabelled, ...rest }) => ({ ...rest, unlabelled: unlabelled.length })) }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(
    `workspace: ${corpus.root.includes("shared") ? "../shared (full)" : "fixtures (committed subset)"}; ${corpus.conversations.length} conversations, ${all.length} reported items\n`,
  );
  for (const [summary, row] of Object.entries(bySummary)) {
    process.stdout.write(
      `  ${summary}: ${row.total} items over ${row.summaries} summaries (median ${row.median}, most ${row.max})\n`,
    );
  }
  const percent = (share) => (share === null ? "n/a" : `${(share * 100).toFixed(0)} %`);
  process.stdout.write(
    `every labelled item the check still reports: ${remaining.losses} of ${remaining.labelled} are real losses (precision ${percent(remaining.precision)}); of the ${remaining.shown.labelled} among the 10 shown per summary, ${percent(remaining.shown.precision)}; ${remaining.unlabelled} reported items have no label\n`,
  );
  for (const result of results) {
    const population =
      result.population === "shown" ? ", of the items shown (the top 10 of each summary)" : "";
    const fresh = result.exclude?.length ? ` (fresh: excludes ${result.exclude.join(", ")})` : "";
    report(`sample ${result.seed}${fresh}${population}`, result);
    const measured = result.measured;
    if (measured !== undefined) {
      const percent = ((measured.losses / measured.labelled) * 100).toFixed(0);
      process.stdout.write(
        `  when first labelled (the check of commit ${measured.check_commit}): ${measured.losses} of ${measured.labelled} (${percent} %)\n`,
      );
    }
  }
}

/**
 * The precision on every labelled item the check still reports (the samples were drawn while it
 * also reported paths and constraints, which the facts block now carries; their draws no longer
 * stand for what it reports), and on those among the ten shown per summary.
 */
function remainingLabelled(all, labels) {
  const count = (items) => {
    const labelled = items.filter((item) => labels.has(itemKey(item)));
    const losses = labelled.filter((item) => labels.get(itemKey(item)).verdict === "loss").length;
    return {
      labelled: labelled.length,
      losses,
      precision: labelled.length === 0 ? null : losses / labelled.length,
    };
  };
  return {
    ...count(all),
    shown: count(shownOnly(all)),
    unlabelled: all.filter((item) => !labels.has(itemKey(item))).length,
  };
}

function report(title, result) {
  const precision = result.precision === null ? "n/a" : `${(result.precision * 100).toFixed(0)} %`;
  process.stdout.write(
    `${title}: ${result.losses} of ${result.labelled} labelled items are real losses (precision ${precision})`,
  );
  process.stdout.write(
    result.unlabelled.length > 0
      ? `; ${result.unlabelled.length} unlabelled (the check changed: label them)\n`
      : "\n",
  );
}

await main();
