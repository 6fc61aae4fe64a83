/**
 * Random-instant kills of the real CLI: `cxc q` (streaming, running a tool, appending), `compact`,
 * `fork` and `import`, each SIGKILLed at a random moment of its run, after which the store must
 * load and every acknowledged event must be there.
 *
 * Acknowledged means: the command said it was stored, on a pipe, before it was killed.
 * - `q --format json` prints each event as a line once its append returned (the log is fsynced),
 *   and `cxc: Started conversation ID.` once a new conversation exists;
 * - `compact --format json` prints the compaction ids after they were appended;
 * - `fork --format json` prints the new conversation's id and event count after it was created;
 * - `import` prints `Imported SOURCE as ID` after the conversations were created.
 * Anything else may or may not have happened, but all or nothing: after every kill each
 * conversation in the store loads (at most a torn final line set aside), every event ever loaded
 * before is still there in the same order (logs only grow), a fork or an imported conversation
 * is whole, and the next command works (stale locks recovered, orphaned tool calls answered).
 *
 * The moment of each kill is a seeded fraction of the command's own duration, measured by an
 * unkilled run first, so kills spread over the whole run on any machine. A failure names the seed
 * and the kill; `CXC_TEST_KILL_SEED=S` replays it, `CXC_TEST_KILLS=N` runs N kills instead of the
 * few dozen CI runs. The timing is only a way to land kills; nothing asserts on time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventId } from "../../src/core/conversation/events.js";
import { ConversationStore } from "../../src/store/store.js";
import { CXC_BIN, makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider } from "../helpers/fake-provider.js";
import { writeJpConversations } from "../helpers/jp-generated.js";
import { makeQueryHome, wordCountTool } from "../query/e2e.js";

const TOTAL_KILLS = Number(process.env.CXC_TEST_KILLS ?? 40);
const SEED = Number(process.env.CXC_TEST_KILL_SEED ?? 20_260_101);
/** How the kills are shared out: half for `q`, the rest evenly. */
const KILLS = {
  q: Math.max(1, Math.round(TOTAL_KILLS / 2)),
  compact: Math.max(1, Math.round(TOTAL_KILLS / 6)),
  fork: Math.max(1, Math.round(TOTAL_KILLS / 6)),
  import: Math.max(1, Math.round(TOTAL_KILLS / 6)),
};

/** A deterministic generator (mulberry32), so a failing run replays from its seed. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

interface Run {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly killed: boolean;
  readonly durationMs: number;
}

/** Runs cxc; kills it with SIGKILL after `killAfterMs` unless it finished first. */
function runCxc(home: TempHome, args: readonly string[], env: Record<string, string>, killAfterMs?: number) {
  return new Promise<Run>((resolve) => {
    const started = performance.now();
    const child: ChildProcess = spawn(process.execPath, [CXC_BIN, ...args], {
      cwd: PROJECT_ROOT,
      env: { ...home.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    // "close": the pipes are drained, so whatever the child wrote before it died is in `stdout`.
    child.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({
        stdout,
        stderr,
        code,
        killed: signal === "SIGKILL",
        durationMs: performance.now() - started,
      });
    });
  });
}

/** The complete lines of a killed command's output (a line cut by the kill is not one). */
function completeLines(text: string): string[] {
  const lines = text.split("\n");
  lines.pop();
  return lines;
}

function openStore(home: TempHome): ConversationStore {
  return new ConversationStore({ kind: "home", root: home.home, origin: "test" }, { CXC_HOME: home.home });
}

/** Loads every conversation of the store; each must load, with at most a torn tail set aside. */
function loadAll(home: TempHome, where: string): Map<string, { ids: string[]; archived: boolean }> {
  const store = openStore(home);
  const all = new Map<string, { ids: string[]; archived: boolean }>();
  for (const { id } of store.ids()) {
    const loaded = store.load(id);
    expect(loaded.warnings.length, `${where}: ${id}: ${loaded.warnings.join("; ")}`).toBeLessThanOrEqual(1);
    for (const warning of loaded.warnings) expect(warning, where).toMatch(/cut off by an interrupted write/);
    all.set(id, { ids: loaded.events.map((event) => eventId(event) ?? ""), archived: loaded.archived });
  }
  const listing = store.list();
  expect(listing.warnings, where).toEqual([]);
  return all;
}

/** `expected` appears in `actual` in the same order; returns what is wrong, if anything. */
function missingOrOutOfOrder(actual: readonly string[], expected: readonly string[]): string | undefined {
  const position = new Map(actual.map((id, index) => [id, index]));
  let previous = -1;
  for (const id of expected) {
    const index = position.get(id);
    if (index === undefined) return `acknowledged event ${id} is missing`;
    if (index <= previous) return `acknowledged event ${id} is out of order`;
    previous = index;
  }
  return undefined;
}

const totals = { kills: 0, landed: 0, acknowledged: 0, stored: 0, startedMs: 0 };
const where = (scenario: string, kill: number, fraction: number, delay: number) =>
  `${scenario} kill ${kill} (CXC_TEST_KILL_SEED=${SEED}, fraction ${fraction.toFixed(3)}, ${Math.round(delay)} ms)`;

/** The kill instants of a scenario: seeded fractions of its unkilled duration (plus a margin). */
function killDelays(
  scenario: string,
  count: number,
  durationMs: number,
): { fraction: number; delay: number }[] {
  const random = createRandom(SEED + [...scenario].reduce((sum, char) => sum + char.charCodeAt(0), 0));
  return Array.from({ length: count }, () => {
    const fraction = random();
    return { fraction, delay: fraction * durationMs * 1.1 };
  });
}

function record(run: Run, acknowledged: number, stored: number): void {
  totals.kills += 1;
  if (run.killed) totals.landed += 1;
  totals.acknowledged += acknowledged;
  totals.stored += stored;
}

beforeAll(() => {
  totals.startedMs = performance.now();
});
afterAll(() => {
  console.info(
    `kill test: ${totals.kills} kills (${totals.landed} landed before the command finished; seed ${SEED}), ` +
      `${totals.acknowledged} acknowledged events and ${totals.stored} stored events checked, ` +
      `${Math.round((performance.now() - totals.startedMs) / 100) / 10} s`,
  );
});

describe("killing cxc q at random instants", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(async () => {
    await provider.close();
  });

  const words = "Let me count the words of that text with the tool, then I will tell you.".split(" ");
  /** A turn: a streamed answer with a tool call, the tool's run, then a second streamed answer. */
  function scriptTurn(): void {
    provider.reset();
    provider.enqueue(
      {
        blocks: [
          { type: "text", text: words.join(" ") },
          {
            type: "tool-call",
            id: `call_${Math.random()}`,
            name: "word_count",
            arguments: { text: "a b c" },
          },
        ],
        chunkDelayMs: 3,
      } satisfies FakeReply,
      { blocks: [{ type: "text", text: `${words.join(" ")} It is three.` }], chunkDelayMs: 3 },
    );
  }

  it(`loses no acknowledged event over ${KILLS.q} kills (streaming, tool runs, appends, new conversations)`, async () => {
    const home = makeQueryHome(provider);
    try {
      // The tool takes a moment, so some kills land while it runs.
      home.writeConfig(wordCountTool("unattended").replace("printf '%s'", "sleep 0.05; printf '%s'"));
      scriptTurn();
      const first = await runCxc(home.home, ["--format", "json", "q", "--new", "first"], home.env);
      expect(first.code, first.stderr).toBe(0);
      const id = home.activeId();
      scriptTurn();
      const calibration = await runCxc(home.home, ["--format", "json", "q", "--id", id, "again"], home.env);
      expect(calibration.code, calibration.stderr).toBe(0);
      let before = loadAll(home.home, "q calibration").get(id)!.ids;
      for (const [kill, { fraction, delay }] of killDelays("q", KILLS.q, calibration.durationMs).entries()) {
        const label = where("q", kill, fraction, delay);
        scriptTurn();
        const fresh = kill % 5 === 4;
        const args = ["--format", "json", "q", ...(fresh ? ["--new"] : ["--id", id]), `turn ${kill}`];
        const run = await runCxc(home.home, args, home.env, delay);
        if (!run.killed) expect(run.code, `${label}: ${run.stderr}`).toBe(0);
        const acknowledged = completeLines(run.stdout).map((line) => (JSON.parse(line) as { id: string }).id);
        const all = loadAll(home.home, label);
        const started = /^cxc: Started conversation ([0-9a-z]+)\.$/m.exec(run.stderr)?.[1];
        const target = fresh ? started : id;
        if (fresh && started === undefined) expect(acknowledged, label).toEqual([]);
        const after = target === undefined ? [] : all.get(target)?.ids;
        expect(after, `${label}: conversation ${target} is gone`).toBeDefined();
        expect(missingOrOutOfOrder(after!, acknowledged), label).toBeUndefined();
        if (!fresh) {
          // Logs only grow: everything stored before this run is still there, first.
          expect(after!.slice(0, before.length), label).toEqual(before);
          before = after!;
        }
        record(run, acknowledged.length, after!.length);
      }
      // After all that, the conversation carries on: locks recovered, orphaned calls answered.
      scriptTurn();
      const last = await runCxc(home.home, ["--format", "json", "q", "--id", id, "last"], home.env);
      expect(last.code, last.stderr).toBe(0);
      const final = loadAll(home.home, "q final").get(id)!.ids;
      expect(final.slice(0, before.length)).toEqual(before);
      const shown = await runCxc(home.home, ["conversation", "ls"], {});
      expect(shown.code, shown.stderr).toBe(0);
      // ls names the store it lists; anything else on stderr (a warning about debris) is a failure.
      expect(shown.stderr.replace(/^cxc: Store: .*\n/m, "")).toBe("");
    } finally {
      home.home.cleanup();
    }
  }, 120_000);
});

describe("killing compact, fork and import at random instants", () => {
  const SAMPLE = join(PROJECT_ROOT, "fixtures", "sample", "coding-session.jsonl");
  const SAMPLE_ID = "01jsample0000";

  async function sampleHome(): Promise<TempHome> {
    const home = makeTempHome();
    const imported = await runCxc(home, ["conversation", "import", SAMPLE], {});
    expect(imported.code, imported.stderr).toBe(0);
    return home;
  }

  it(`compact: ${KILLS.compact} kills, every compaction it reported is stored, nothing else changed`, async () => {
    const home = await sampleHome();
    try {
      const specs = ["r+t=strip:..-2", "s:..-1", "t=omit:3..8", "r:2..12"];
      const compact = (index: number) => [
        "--format",
        "json",
        "conversation",
        "compact",
        SAMPLE_ID,
        "-k",
        specs[index % specs.length]!,
      ];
      const calibration = await runCxc(home, compact(1), {});
      expect(calibration.code, calibration.stderr).toBe(0);
      let before = loadAll(home, "compact calibration").get(SAMPLE_ID)!.ids;
      for (const [kill, { fraction, delay }] of killDelays(
        "compact",
        KILLS.compact,
        calibration.durationMs,
      ).entries()) {
        const label = where("compact", kill, fraction, delay);
        const run = await runCxc(home, compact(kill), {}, delay);
        if (!run.killed) expect(run.code, `${label}: ${run.stderr}`).toBe(0);
        const acknowledged = run.killed
          ? []
          : (JSON.parse(run.stdout) as { compactions: { id: string }[] }).compactions.map(
              (compaction) => compaction.id,
            );
        const after = loadAll(home, label).get(SAMPLE_ID)!.ids;
        expect(after.slice(0, before.length), label).toEqual(before);
        expect(missingOrOutOfOrder(after, acknowledged), label).toBeUndefined();
        // A compaction appends its events and nothing more.
        expect(after.length - before.length, label).toBeLessThanOrEqual(1);
        before = after;
        record(run, acknowledged.length, after.length);
      }
      const last = await runCxc(home, compact(0), {});
      expect(last.code, last.stderr).toBe(0);
    } finally {
      home.cleanup();
    }
  }, 120_000);

  it(`fork: ${KILLS.fork} kills, a fork is whole or absent and the source never changes`, async () => {
    const home = await sampleHome();
    try {
      const source = loadAll(home, "fork setup").get(SAMPLE_ID)!.ids;
      const fork = ["--format", "json", "conversation", "fork", SAMPLE_ID];
      const calibration = await runCxc(home, fork, {});
      expect(calibration.code, calibration.stderr).toBe(0);
      const calibrated = (JSON.parse(calibration.stdout) as { id: string }).id;
      const whole = loadAll(home, "fork calibration").get(calibrated)!.ids.length;
      for (const [kill, { fraction, delay }] of killDelays(
        "fork",
        KILLS.fork,
        calibration.durationMs,
      ).entries()) {
        const label = where("fork", kill, fraction, delay);
        const run = await runCxc(home, fork, {}, delay);
        if (!run.killed) expect(run.code, `${label}: ${run.stderr}`).toBe(0);
        const all = loadAll(home, label);
        expect(all.get(SAMPLE_ID)!.ids, label).toEqual(source);
        for (const [id, conversation] of all)
          if (id !== SAMPLE_ID) expect(conversation.ids, `${label}: ${id}`).toHaveLength(whole);
        if (!run.killed) {
          const forked = JSON.parse(run.stdout) as { id: string };
          expect(all.get(forked.id)?.ids, label).toHaveLength(whole);
        }
        record(
          run,
          run.killed ? 0 : whole,
          [...all.values()].reduce((sum, entry) => sum + entry.ids.length, 0),
        );
      }
    } finally {
      home.cleanup();
    }
  }, 120_000);

  it(`import: ${KILLS.import} kills, each conversation is whole or absent, and a rerun completes the set`, async () => {
    const calibrationHome = makeTempHome();
    const homes = [calibrationHome];
    try {
      const source = join(calibrationHome.cwd, "conversations");
      const count = writeJpConversations(source, 12);
      const importing = ["conversation", "import", "--skip-existing", source];
      const calibration = await runCxc(calibrationHome, importing, {});
      expect(calibration.code, calibration.stderr).toBe(0);
      const expected = loadAll(calibrationHome, "import calibration");
      expect(expected.size).toBe(count);
      for (const [kill, { fraction, delay }] of killDelays(
        "import",
        KILLS.import,
        calibration.durationMs,
      ).entries()) {
        const label = where("import", kill, fraction, delay);
        const home = makeTempHome();
        homes.push(home);
        const run = await runCxc(home, importing, {}, delay);
        if (!run.killed) expect(run.code, `${label}: ${run.stderr}`).toBe(0);
        const acknowledged = completeLines(run.stdout).flatMap(
          (line) => /^Imported \S+ as ([0-9a-z]+) /.exec(line)?.[1] ?? [],
        );
        const all = loadAll(home, label);
        for (const id of acknowledged) expect(all.has(id), `${label}: ${id}`).toBe(true);
        // Whatever is there is whole, and where it belongs (an archived one never shows up live).
        for (const [id, conversation] of all)
          expect(conversation, `${label}: ${id}`).toEqual(expected.get(id));
        const rerun = await runCxc(home, importing, {});
        expect(rerun.code, `${label}: rerun: ${rerun.stderr}`).toBe(0);
        expect(loadAll(home, `${label} rerun`), label).toEqual(expected);
        const debris = readdirSync(join(home.home, "conversations")).filter((name) => name.startsWith("."));
        expect(
          debris.every((name) => name.startsWith(".creating-")),
          label,
        ).toBe(true);
        record(
          run,
          acknowledged.reduce((sum, id) => sum + expected.get(id)!.ids.length, 0),
          count,
        );
      }
    } finally {
      for (const home of homes) home.cleanup();
    }
  }, 120_000);
});
