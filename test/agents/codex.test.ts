/**
 * Codex end to end, with the real agent (agents/codex, installed by .ci/run) against the loopback
 * fake provider's Responses API: a real five-turn session with tool calls and Codex's own
 * compaction (`codex exec`, then `codex exec resume` for each turn) is imported and checked
 * against the rollout and against the request Codex sent after compacting; then compacted in cxc
 * (the default rule, a `-k` summary, an agreed review discussed over cxc's own Responses adapter),
 * exported and resumed with `codex exec resume`, whose next request is checked; a long
 * single-turn session is masked with `-k r+t:-5calls` the same way; and a session exported without
 * compaction resumes with the very conversation items the original sends. Each Codex run costs
 * about a second: the steps share the sessions and run in order.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  runCodex,
  newAgentPlace,
  codexSessionDirectory,
  dryRunWhole,
  fillerText,
  inputTexts,
  writeCodexConfig,
} from "../helpers/agents.js";
import { SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { framedSummary } from "../../src/core/interop/agent-export.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const CODEX_COMPACT_PROMPT = "CONTEXT CHECKPOINT COMPACTION";
const OWN_SUMMARY = "The user read notes.txt (remember the milk) and found no CHANGELOG.md.";
const REVIEW_SUMMARY = "Agreed in review: the notes hold a shopping reminder; no changelog exists.";
const PROMPTS = [
  "What do my notes say?",
  "Is there a changelog?",
  "What is in big.txt?",
  "And in data.txt?",
  "What should I do first?",
];
const ANSWERS = [
  "Your notes say: remember the milk.",
  "There is no CHANGELOG.md.",
  "big.txt is a table of parser entries.",
  "data.txt is a table of lexer entries.",
  "Write the parser first.",
];
const BIG = fillerText("parser", 150);
const DATA = fillerText("lexer", 150);
/** The long single-turn session: one prompt, eight reads of a part each, one answer. */
const PARTS = Array.from({ length: 8 }, (_, index) => fillerText(`part${index + 1}`, 40));
const LONG_PROMPT = "Read every part file, one at a time, and tell me what they hold.";
const LONG_ANSWER = "The eight parts are tables of entries.";

const exec = (id: string, cmd: string) =>
  ({ type: "tool-call", id, name: "exec_command", arguments: { cmd } }) as const;

type Item = Record<string, unknown>;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let codex: string;
let cxcHome: TempHome;
let sessionId: string;
let rollout: string;
/** The rollout as it was after the second turn, before Codex's own compaction. */
let snapshot: string;
/** What Codex sent its model first after compacting (turn 3's first request). */
let afterOwnCompaction: Item[];
let longRollout: string;

function cxc(args: string[], home: TempHome = cxcHome, at: AgentPlace = place) {
  return home.run(args, {
    cwd: at.cwd,
    env: {
      HOME: at.home,
      OPENAI_API_KEY: "test-key",
      OPENAI_BASE_URL: fake.openaiBaseURL,
      CXC_ASSISTANT__MODEL__ID: "openai/gpt-5",
    },
  });
}

/** `codex exec` (`resume <id>` first in `args` to continue a session); returns the thread id. */
async function codexExec(args: string[], at: AgentPlace = place, config: string[] = []): Promise<string> {
  return (await runCodex(codex, at, args, { config })).id;
}

/** Resumes a session with `codex exec resume` and returns the input Codex sent for it. */
async function resumeInput(id: string, at: AgentPlace = place): Promise<Item[]> {
  fake.enqueue(textReply("Nothing else."));
  const before = fake.requests.length;
  expect(await codexExec(["resume", id, "Anything else?"], at)).toBe(id);
  const turns = fake.requests.slice(before).filter((request) => request.route === undefined);
  expect(turns).toHaveLength(1);
  expect(turns[0]!.path).toBe("/v1/responses");
  return (turns[0]!.body as { input: Item[] }).input;
}

/** The rollout file of a session under a place's Codex folder. */
function rolloutOf(id: string, at: AgentPlace = place): string {
  const directory = codexSessionDirectory(at);
  const name = readdirSync(directory, { recursive: true }).find((file) =>
    String(file).endsWith(`${id}.jsonl`),
  );
  if (name === undefined) throw new Error(`no rollout for ${id}`);
  return join(directory, String(name));
}

/**
 * The conversation's own items: no developer instructions, no environment context, and none of
 * what each response gives its items afresh (ids, status, output text's logprobs).
 */
function conversationItems(input: readonly Item[]): Item[] {
  const fresh = new Set(["id", "status", "logprobs"]);
  return input
    .filter((item) => item.role !== "developer")
    .filter((item) => !JSON.stringify(item.content ?? "").includes("<environment_context>"))
    .map((item) => JSON.parse(JSON.stringify(item, (key, value) => (fresh.has(key) ? undefined : value))));
}

function tokensOf(input: readonly Item[]): number {
  return inputTexts(conversationItems(input)).reduce((sum, text) => sum + countTokens(text), 0);
}

/** cxc's frame around a summary of its own that opens an exported session (agent-export.ts). */
const CXC_FRAME = framedSummary("\u0000").split("\u0000") as [string, string];

/**
 * A resumed request's tokens as cxc's dry run counts the view it carries: each text as cxc counts
 * its event (a call with its name), without cxc's recall index and the new prompt, and the opening
 * summary (one user message: Codex's own summary as Codex wrote it, cxc's in its frame) as cxc's
 * summary turn, its request `[Summary of previous conversation]` and the summary.
 */
function viewTokensOf(input: readonly Item[]): number {
  const items = conversationItems(input).filter(
    (item) => !JSON.stringify(item.content ?? "").includes("[Recall index:"),
  );
  const texts = items
    .flatMap((item) =>
      item.type === "function_call" ? [`${String(item.name)} ${String(item.arguments)}`] : inputTexts([item]),
    )
    .filter((text) => text !== "Anything else?");
  const [opening, ...rest] = texts;
  const [open, close] = CXC_FRAME;
  const summary =
    opening!.startsWith(open) && opening!.endsWith(close)
      ? opening!.slice(open.length, -close.length)
      : opening!;
  return [SUMMARY_REQUEST_TEXT, summary, ...rest].reduce((sum, text) => sum + countTokens(text), 0);
}

function exportedSession(stdout: string): string {
  const match = /Continue it with: codex resume ([0-9a-f-]{36})/.exec(stdout);
  if (match === null) throw new Error(`no resume command in:\n${stdout}`);
  expect(stdout).toContain(`In a script: codex exec resume ${match[1]} "…"`);
  return match[1]!;
}

function importedId(stdout: string): string {
  const match = / as ([0-9a-z]{13}) /.exec(stdout);
  if (match === null) throw new Error(`no conversation id in:\n${stdout}`);
  return match[1]!;
}

const records = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; payload: Item });

beforeAll(async () => {
  codex = requireAgent(PROJECT_ROOT, "codex");
  ({ root, place } = newAgentPlace("cxc-codex-e2e-"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  writeFileSync(join(place.cwd, "big.txt"), `${BIG}\n`);
  writeFileSync(join(place.cwd, "data.txt"), `${DATA}\n`);
  for (const [index, text] of PARTS.entries())
    writeFileSync(join(place.cwd, `part${index + 1}.txt`), `${text}\n`);
  fake = await startFakeProvider({
    routes: [{ bodyIncludes: CODEX_COMPACT_PROMPT, reply: textReply(OWN_SUMMARY) }],
  });
  writeCodexConfig(place.home, fake.url);
  cxcHome = makeTempHome();

  // The session: two turns, then (told its window is small) Codex compacts before the third.
  const script: FakeReply[][] = [
    [
      {
        blocks: [
          { type: "thinking", text: "Read the notes.", signature: "enc-e2e-1" },
          exec("call_e2e_notes", "cat notes.txt"),
        ],
      },
      textReply(ANSWERS[0]!),
    ],
    [
      { blocks: [exec("call_e2e_changelog", "cat CHANGELOG.md")] },
      textReply(ANSWERS[1]!, { usage: { inputTokens: 9000 } }),
    ],
    [{ blocks: [exec("call_e2e_big", "cat big.txt")] }, textReply(ANSWERS[2]!)],
    [{ blocks: [exec("call_e2e_data", "cat data.txt")] }, textReply(ANSWERS[3]!)],
    [textReply(ANSWERS[4]!)],
  ];
  fake.enqueue(...script[0]!);
  sessionId = await codexExec([PROMPTS[0]!]);
  fake.enqueue(...script[1]!);
  await codexExec(["resume", sessionId, PROMPTS[1]!]);
  rollout = rolloutOf(sessionId);
  snapshot = join(root, "snapshot.jsonl");
  copyFileSync(rollout, snapshot);
  fake.enqueue(...script[2]!);
  const before = fake.requests.length;
  await codexExec(["resume", sessionId, PROMPTS[2]!], place, [
    "model_auto_compact_token_limit=8000",
    "model_context_window=20000",
  ]);
  const third = fake.requests.slice(before);
  expect(third.map((request) => request.route)).toEqual([0, undefined, undefined]);
  afterOwnCompaction = (third[1]!.body as { input: Item[] }).input;
  for (const turn of [3, 4]) {
    fake.enqueue(...script[turn]!);
    await codexExec(["resume", sessionId, PROMPTS[turn]!]);
  }

  // The long single-turn session: eight calls in one turn.
  fake.enqueue(
    ...PARTS.map(
      (_, index): FakeReply => ({ blocks: [exec(`call_part_${index + 1}`, `cat part${index + 1}.txt`)] }),
    ),
    textReply(LONG_ANSWER),
  );
  longRollout = rolloutOf(await codexExec([LONG_PROMPT]));
  expect(fake.remaining()).toBe(0);
}, 180_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("Codex sessions, end to end with the real agent", () => {
  let conversation: string;
  /** The session the compacted view was exported to, resumed once in Codex. */
  let compactedExport: string;

  it("imports the agent's own session: turns, tool output, and its compaction as an overlay", async () => {
    const original = readFileSync(rollout, "utf8");
    const result = await cxc(["conversation", "import", rollout]);
    expect(result.exitCode, result.stderr).toBe(0);
    conversation = importedId(result.stdout);
    expect(result.stdout).toContain(`Imported Codex session ${rollout} as ${conversation}`);
    expect(result.stdout).toMatch(
      /read: 5 turns, 1 compaction of Codex's as an overlay; left out: \d+ skipped records \([^)]+\), no records of unknown types/,
    );
    expect(readFileSync(rollout, "utf8")).toBe(original);

    const shown = await cxc(["conversation", "show", conversation, "--format", "json"]);
    const details = JSON.parse(shown.stdout) as {
      turns: number;
      source: string;
      source_file: string;
      compactions: { from_turn: number; to_turn: number; summary: string; note: string }[];
    };
    expect(details).toMatchObject({ turns: 5, source: "codex", source_file: rollout });
    // What Codex wrote: its compacted record, whose message carries its model's summary.
    const compacted = records(original).find((record) => record.type === "compacted")!;
    expect(compacted.payload.message).toContain(OWN_SUMMARY);
    expect(details.compactions).toHaveLength(1);
    const [own] = details.compactions;
    expect(own).toMatchObject({ from_turn: 1, to_turn: 2, note: "Codex's own compaction" });
    // The overlay's summary is what Codex's model saw in place of the first two turns.
    const seen = conversationItems(afterOwnCompaction)
      .filter((item) => item.role === "user")
      .map((item) => inputTexts([item]).join("\n"));
    expect(seen.slice(0, 3)).toEqual([PROMPTS[0], PROMPTS[1], compacted.payload.message]);
    expect(own!.summary).toBe(seen.slice(0, 3).join("\n\n"));

    const raw = await cxc(["conversation", "print", conversation, "--style", "full"]);
    for (const text of [...PROMPTS, ...ANSWERS, "remember the milk", "parser line 150", "lexer line 150"]) {
      expect(raw.stdout).toContain(text);
    }
    const compactedView = await cxc([
      "conversation",
      "print",
      conversation,
      "--compacted",
      "--style",
      "full",
    ]);
    expect(compactedView.stdout).toContain(OWN_SUMMARY);
    expect(compactedView.stdout).not.toContain(ANSWERS[0]);
    expect(compactedView.stdout).toContain(ANSWERS[2]);
    const listed = await cxc(["conversation", "ls"]);
    expect(listed.stdout).toMatch(new RegExp(`${conversation}\\s+5\\s+.*Codex`));
  });

  it("undoes Codex's own compaction with compact --reset", async () => {
    const store = makeTempHome();
    try {
      const imported = await cxc(["conversation", "import", rollout], store);
      const id = importedId(imported.stdout);
      const reset = await cxc(["conversation", "compact", id, "--reset", "-y"], store);
      expect(reset.exitCode, reset.stderr).toBe(0);
      const view = await cxc(["conversation", "print", id, "--compacted", "--style", "full"], store);
      expect(view.stdout).toContain(ANSWERS[0]);
      expect(view.stdout).not.toContain(OWN_SUMMARY);
    } finally {
      store.cleanup();
    }
  });

  it("resumes an export made without compaction with the conversation the original session sends", async () => {
    const first: AgentPlace = { home: join(root, "home-original"), cwd: place.cwd };
    writeCodexConfig(first.home, fake.url);
    const copy = join(
      codexSessionDirectory(first),
      "2026",
      "01",
      "01",
      `rollout-2026-01-01T00-00-00-${sessionId}.jsonl`,
    );
    mkdirSync(join(copy, ".."), { recursive: true });
    copyFileSync(snapshot, copy);
    const original = await resumeInput(sessionId, first);

    const store = makeTempHome();
    const trip: AgentPlace = { home: join(root, "home-trip"), cwd: place.cwd };
    writeCodexConfig(trip.home, fake.url);
    const imported = await cxc(["conversation", "import", snapshot], store, trip);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const exported = await cxc(
      ["conversation", "export", importedId(imported.stdout), "--to", "codex"],
      store,
      trip,
    );
    store.cleanup();
    expect(exported.exitCode, exported.stderr).toBe(0);
    const id = exportedSession(exported.stdout);
    expect(rolloutOf(id, trip).startsWith(codexSessionDirectory(trip))).toBe(true);
    const tripped = await resumeInput(id, trip);

    expect(conversationItems(tripped)).toEqual(conversationItems(original));
    expect(JSON.stringify(original)).toContain("call_e2e_notes");
    expect(JSON.stringify(original)).toContain("enc-e2e-1");
  });

  it("exports cxc's compacted view and Codex resumes it, smaller by what the dry runs promised", async () => {
    const baseline = await cxc(["conversation", "export", conversation, "--to", "codex"]);
    expect(baseline.exitCode, baseline.stderr).toBe(0);
    const before = await resumeInput(exportedSession(baseline.stdout));
    // Codex's own summary opens the baseline, written back in Codex's own shape.
    const opening = conversationItems(before).find((item) => item.role === "user");
    const [openingText] = inputTexts([opening]);
    expect(openingText?.startsWith(`${PROMPTS[0]}\n\n${PROMPTS[1]}\n\nAnother language model`)).toBe(true);
    expect(openingText).toContain(OWN_SUMMARY);

    const dryRun = async (args: string[]) =>
      dryRunWhole(
        (await cxc(["conversation", "compact", conversation, ...args, "--dry-run", "--format", "json"]))
          .stdout,
      );
    const plan1 = await dryRun([]);
    expect((await cxc(["conversation", "compact", conversation, "-y"])).exitCode).toBe(0);
    const spec = ["-k", "s:3..3", "-m", "builtin/digest"];
    const plan2 = await dryRun(spec);
    expect(plan2.before).toBe(plan1.after);
    expect((await cxc(["conversation", "compact", conversation, ...spec, "-y"])).exitCode).toBe(0);
    const started = await cxc([
      "conversation",
      "compact",
      conversation,
      "--interactive",
      "-m",
      "builtin/digest",
    ]);
    expect(started.exitCode, started.stderr).toBe(0);
    // Codex's model (fake/gpt-fake) is not one cxc can call: the review is discussed with openai/gpt-5.
    expect(started.stderr).toMatch(/the conversation last used fake\/gpt-fake, which cxc cannot call/);
    fake.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "call_review_1",
            name: "propose_compaction",
            arguments: { from_turn: 1, to_turn: 2, summary: REVIEW_SUMMARY },
          },
        ],
      },
      textReply("Recorded."),
    );
    const reviewFrom = fake.requests.length;
    const proposed = await cxc(["query", "-m", "openai/gpt-5", "Summarize the first two turns."]);
    expect(proposed.exitCode, proposed.stderr).toBe(0);
    expect(fake.requests.slice(reviewFrom).map((request) => request.path)).toEqual([
      "/v1/responses",
      "/v1/responses",
    ]);
    const applied = await cxc(["conversation", "compact", "--continue", "--yes"]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const plan3 = await dryRun([]);

    const exported = await cxc(["conversation", "export", conversation, "--to", "codex"]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    compactedExport = exportedSession(exported.stdout);
    const after = await resumeInput(compactedExport);
    // cxc's export adds its recall index after the compaction (docs/recall.md), which names what
    // was hidden (`… exec_command cat data.txt …`): the view is checked, and counted, apart from it.
    const recallIndex = (item: Item) => JSON.stringify(item.content ?? "").includes("[Recall index:");
    expect(after.filter(recallIndex)).toHaveLength(1);
    expect(JSON.stringify(after.filter(recallIndex))).toContain("cat data.txt");
    const sent = JSON.stringify(conversationItems(after.filter((item) => !recallIndex(item))));
    const has = (text: string) => sent.includes(JSON.stringify(text).slice(1, -1));
    for (const kept of [REVIEW_SUMMARY, "## Digest of turns 3..3", "[compacted] exec_command: success"]) {
      expect(has(kept), kept).toBe(true);
    }
    for (const kept of [PROMPTS[3]!, ANSWERS[3]!, PROMPTS[4]!, ANSWERS[4]!])
      expect(has(kept), kept).toBe(true);
    for (const gone of [
      OWN_SUMMARY,
      "remember the milk",
      PROMPTS[0]!,
      "parser line 150",
      "lexer line 150",
      "cat data.txt",
    ]) {
      expect(has(gone), gone).toBe(false);
    }

    // Exactly the saving the dry runs promised: both requests counted as cxc counts the views they
    // carry. As sent, the saving differs by the opening summary's shape (one user message, cxc's in
    // its frame, where cxc's view has its `[Summary of previous conversation]` request and the
    // summary), the baseline's recall index, and the calls' names, sent apart from their arguments.
    const promisedByDryRuns = plan1.before - plan1.after + (plan2.before - plan2.after);
    const promised = plan1.before - plan3.before;
    expect(viewTokensOf(before)).toBe(plan1.before);
    expect(viewTokensOf(after)).toBe(plan3.before);
    const afterOpening = inputTexts(conversationItems(after))[0]!;
    expect(
      afterOpening.startsWith(`${CXC_FRAME[0]}${REVIEW_SUMMARY}`) && afterOpening.endsWith(CXC_FRAME[1]),
    ).toBe(true);
    const measured = tokensOf(before) - tokensOf(after.filter((item) => !recallIndex(item)));
    console.log(
      `Codex: dry runs promised ${promisedByDryRuns} tokens (default rule ${plan1.before - plan1.after}, ` +
        `-k summary ${plan2.before - plan2.after}); with the review ${promised} (${plan1.before} → ${plan3.before}); ` +
        `the resumed requests counted as cxc counts views: ${viewTokensOf(before)} → ${viewTokensOf(after)}; ` +
        `as sent, smaller by ${measured} (${tokensOf(before)} → ${tokensOf(after)})`,
    );
    expect(promisedByDryRuns).toBeGreaterThan(3000);
  });

  it("brings the exported session, resumed in Codex, back onto its conversation with import --update", async () => {
    const turns = JSON.parse(
      (await cxc(["conversation", "show", conversation, "--format", "json"])).stdout,
    ).turns;
    const file = rolloutOf(compactedExport);
    const updated = await cxc(["conversation", "import", file, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(
      new RegExp(
        `^Updated ${conversation} \\(exported to it\\) from .*: \\d+ events appended \\(1 new turn, now ${turns + 1} turns\\)\\.\\n$`,
      ),
    );
    const raw = (await cxc(["conversation", "print", conversation, "--last", "1"])).stdout;
    expect(raw).toContain("Anything else?");
    expect(raw).toContain("Nothing else.");
    const again = await cxc(["conversation", "import", file, "--update"]);
    expect(again.stdout).toMatch(/^Nothing new in .*: \w+ \(exported to it\) holds all of it\.\n$/);
  });

  it("masks a long single-turn session with -k r+t:-5calls, and Codex resumes the masked view", async () => {
    const imported = await cxc(["conversation", "import", longRollout]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const id = importedId(imported.stdout);
    const baseline = await cxc(["conversation", "export", id, "--to", "codex"]);
    const before = await resumeInput(exportedSession(baseline.stdout));
    const spec = ["-k", "r+t:-5calls"];
    const plan = dryRunWhole(
      (await cxc(["conversation", "compact", id, ...spec, "--dry-run", "--format", "json"])).stdout,
    );
    expect((await cxc(["conversation", "compact", id, ...spec, "-y"])).exitCode).toBe(0);
    const exported = await cxc(["conversation", "export", id, "--to", "codex"]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const after = await resumeInput(exportedSession(exported.stdout));
    const calls = conversationItems(after).filter((item) => item.type === "function_call");
    expect(calls.map((call) => call.arguments)).toEqual([
      "{}",
      "{}",
      "{}",
      ...[4, 5, 6, 7, 8].map((part) => JSON.stringify({ cmd: `cat part${part}.txt` })),
    ]);
    const sent = JSON.stringify(after);
    for (const part of [1, 2, 3]) expect(sent).not.toContain(`part${part} line 40`);
    for (const part of [4, 5, 6, 7, 8]) expect(sent).toContain(`part${part} line 40`);
    expect(sent).toContain(LONG_PROMPT);
    expect(sent).toContain(LONG_ANSWER);

    const promised = plan.before - plan.after;
    const measured = tokensOf(before) - tokensOf(after);
    console.log(
      `Codex, one long turn: -k r+t:-5calls promised ${promised} tokens (${plan.before} → ${plan.after}); ` +
        `the resumed request is smaller by ${measured} (${tokensOf(before)} → ${tokensOf(after)})`,
    );
    expect(promised).toBeGreaterThan(1000);
    expect(Math.abs(measured - promised)).toBeLessThan(promised * 0.1);
  });
});
