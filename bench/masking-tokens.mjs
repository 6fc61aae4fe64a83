/**
 * Observation masking, measured (docs/decisions/006-tool-cycle-bounds.md): for every conversation
 * of the jp corpus and of the agent session fixtures, the o200k tokens of what the model sees raw,
 * after the built-in default rule, and after masking all but the last 5 tool calls: their results
 * only (`-k t=sres:-5calls`) or the whole calls (`-k t:-5calls`), each with and without stripping
 * the reasoning before them (`r+`); per conversation and in total.
 *
 *   node bench/masking-tokens.mjs [--format json] [--only jp|claude-code|pi] [--jp DIR]
 *
 * Everything runs in process on cxc's own core, built from the sources: the importers, the
 * planner, the projection and the o200k counter `stats` uses. Nothing is timed.
 *
 * Sources, each skipped with a notice when absent:
 * - jp: `../shared/fixtures/jp-workspace` (the full corpus) when it is there, else the subset
 *   committed in `fixtures/jp-workspace`, or the `.jp/conversations` folder given with `--jp`;
 * - Claude Code and pi: `fixtures/agents/<agent>/*.jsonl`, read by `src/core/interop/<agent>.ts`
 *   (`importClaudeCodeSession`, `importPiSession`) once those exist.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildSourceModules, formatTable, JP_CONVERSATIONS, PROJECT_ROOT } from "./lib.mjs";

const NOW = "2026-12-01T00:00:00Z";
const COMMITTED_JP = join(PROJECT_ROOT, "fixtures", "jp-workspace", ".jp", "conversations");
const AGENTS = [
  { name: "claude-code", module: "core/interop/claude-code.ts", importer: "importClaudeCodeSession" },
  { name: "pi", module: "core/interop/pi.ts", importer: "importPiSession" },
];

/**
 * The variants measured, each a list of `-k` specs (undefined: the raw view; empty: the built-in
 * default rule). Masking results keeps the calls' arguments; masking calls also empties the
 * arguments (`{}`), whose short form stays in the result's placeholder.
 */
export const VARIANTS = [
  { key: "raw", label: "raw", specs: undefined },
  { key: "default_rule", label: "default rule", specs: [] },
  { key: "results", label: "t=sres:-5calls", specs: ["t=sres:-5calls"] },
  { key: "results_reasoning", label: "r+t=sres:-5calls", specs: ["r+t=sres:-5calls"] },
  { key: "calls", label: "t:-5calls", specs: ["t:-5calls"] },
  { key: "calls_reasoning", label: "r+t:-5calls", specs: ["r+t:-5calls"] },
];

const log = (message) => process.stderr.write(`masking-tokens: ${message}\n`);

/** The jp conversation directories to read, live and archived; empty when there is no corpus. */
function jpDirectories(given) {
  const root =
    given ??
    (existsSync(JP_CONVERSATIONS) ? JP_CONVERSATIONS : existsSync(COMMITTED_JP) ? COMMITTED_JP : undefined);
  if (root === undefined) {
    log("no jp workspace (../shared/fixtures/jp-workspace or fixtures/jp-workspace); skipping jp");
    return { root, directories: [] };
  }
  const archive = join(root, ".archive");
  const list = (folder, archived) =>
    readdirSync(folder)
      .filter((name) => !name.startsWith(".") && existsSync(join(folder, name, "events.json")))
      .sort()
      .map((name) => ({ name, path: join(folder, name), archived }));
  return { root, directories: [...list(root, false), ...(existsSync(archive) ? list(archive, true) : [])] };
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

/** The tokens of every variant for one conversation's events. */
function measure(core, events, countTokens) {
  const tokensOf = (view) =>
    core.tokens.summarizeTokens(
      view.turns.map((turn, index) => ({ index, events: turn.events })),
      countTokens,
    ).total;
  const row = {};
  for (const variant of VARIANTS) {
    if (variant.specs === undefined) {
      const raw = core.tokens.summarizeTokens(core.turns.groupTurns(events), countTokens);
      row[variant.key] = raw.total;
      row.raw_by_kind = raw.byKind;
      continue;
    }
    const rules =
      variant.specs.length === 0
        ? core.rules.configuredRules(undefined)
        : variant.specs.map((text) => {
            const parsed = core.spec.parseCompactSpec(text);
            if (!parsed.ok) throw new Error(`${text}: ${parsed.message}`);
            return core.spec.specToRule(parsed.value);
          });
    const plan = core.plan.planCompaction(events, { rules, now: NOW });
    const compactions =
      plan.kind === "planned"
        ? plan.segments.map((segment, index) =>
            core.plan.buildCompactionEvent(segment, { id: `bench-${index}`, ts: NOW, source: "user" }),
          )
        : [];
    row[variant.key] = tokensOf(core.projection.projectConversation([...events, ...compactions]));
  }
  return row;
}

function percent(part, whole) {
  return whole === 0 ? "0 %" : `${((100 * (whole - part)) / whole).toFixed(1)} %`;
}

async function main() {
  const argv = process.argv.slice(2);
  const onlyIndex = argv.indexOf("--only");
  const only = onlyIndex >= 0 ? new Set(argv[onlyIndex + 1].split(",")) : undefined;
  const agents = AGENTS.filter((agent) => existsSync(join(PROJECT_ROOT, "src", agent.module)));
  for (const agent of AGENTS) {
    if (!agents.includes(agent))
      log(`no ${agent.name} importer (src/${agent.module}) yet; skipping ${agent.name}`);
  }
  const { modules, remove } = await buildSourceModules({
    jp: "core/interop/jp.ts",
    plan: "compaction/core/plan.ts",
    spec: "compaction/core/spec.ts",
    rules: "compaction/core/rules.ts",
    projection: "core/conversation/projection.ts",
    tokens: "core/conversation/tokens.ts",
    turns: "core/conversation/turns.ts",
    counter: "store/token-counter.ts",
    ...Object.fromEntries(agents.map((agent) => [agent.name, agent.module])),
  });
  try {
    const countTokens = await modules.counter.loadTokenCounter();
    const rows = [];
    if (only === undefined || only.has("jp")) {
      const jpIndex = argv.indexOf("--jp");
      const { root, directories } = jpDirectories(jpIndex >= 0 ? argv[jpIndex + 1] : undefined);
      if (root !== undefined) log(`jp corpus: ${directories.length} conversations in ${root}`);
      for (const directory of directories) {
        const imported = modules.jp.importJpConversation({
          directoryName: directory.name,
          metadata: readJson(join(directory.path, "metadata.json")),
          baseConfig: readJson(join(directory.path, "base_config.json")),
          events: readJson(join(directory.path, "events.json")),
          archived: directory.archived,
        });
        if (!imported.ok) throw new Error(`${directory.name}: ${imported.error}`);
        const events = imported.value.events;
        rows.push({
          source: "jp",
          conversation: directory.name,
          turns: modules.turns.countTurns(events),
          ...measure(modules, events, countTokens),
        });
      }
    }
    for (const agent of agents) {
      if (only !== undefined && !only.has(agent.name)) continue;
      const folder = join(PROJECT_ROOT, "fixtures", "agents", agent.name);
      const files = existsSync(folder)
        ? readdirSync(folder)
            .filter((name) => name.endsWith(".jsonl"))
            .sort()
        : [];
      if (files.length === 0) log(`no ${agent.name} sessions in fixtures/agents/${agent.name}; skipping`);
      for (const file of files) {
        const imported = modules[agent.name][agent.importer](readFileSync(join(folder, file), "utf8"), file);
        if (!imported.ok) throw new Error(`${agent.name}/${file}: ${imported.error}`);
        const events = imported.value.conversation.events;
        rows.push({
          source: agent.name,
          conversation: `${agent.name}/${file}`,
          turns: modules.turns.countTurns(events),
          ...measure(modules, events, countTokens),
        });
      }
    }
    const totals = {};
    for (const source of new Set(rows.map((row) => row.source))) {
      const of = rows.filter((row) => row.source === source);
      totals[source] = Object.fromEntries(
        VARIANTS.map((variant) => [variant.key, of.reduce((sum, row) => sum + row[variant.key], 0)]),
      );
      const byKind = {};
      for (const row of of) {
        for (const [kind, tokens] of Object.entries(row.raw_by_kind))
          byKind[kind] = (byKind[kind] ?? 0) + tokens;
      }
      totals[source].raw_by_kind = byKind;
    }
    if (argv.includes("--format") && argv.includes("json")) {
      process.stdout.write(`${JSON.stringify({ rows, totals }, null, 2)}\n`);
      return;
    }
    const number = (value) => value.toLocaleString("en");
    const table = [
      ...rows.map((row) => [
        row.conversation,
        String(row.turns),
        ...VARIANTS.map((variant) => number(row[variant.key])),
        percent(row.calls_reasoning, row.raw),
      ]),
      ...Object.entries(totals).map(([source, total]) => [
        `total (${source})`,
        "",
        ...VARIANTS.map((variant) => number(total[variant.key])),
        percent(total.calls_reasoning, total.raw),
      ]),
    ];
    process.stdout.write(
      `${formatTable(["conversation", "turns", ...VARIANTS.map((variant) => variant.label), "removed by r+t"], table)}\n`,
    );
    for (const [source, total] of Object.entries(totals)) {
      const shares = Object.entries(total.raw_by_kind)
        .filter(([, tokens]) => tokens > 0)
        .map(([kind, tokens]) => `${kind} ${((100 * tokens) / total.raw).toFixed(1)} %`);
      process.stdout.write(`raw ${source} tokens by kind: ${shares.join(", ")}\n`);
    }
  } finally {
    remove();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
