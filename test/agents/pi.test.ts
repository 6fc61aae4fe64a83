/**
 * pi end to end, with the real agent (agents/, installed by .ci/run) against the loopback fake
 * provider: a real session with tool calls and pi's own compaction (`pi --mode rpc`, one process
 * for the whole session) is imported; then compacted in cxc (the default rule, a `-k` summary, an
 * agreed review), exported and resumed with `pi --session`, whose next request is checked; and a
 * session exported without compaction resumes with the very messages the original sends. Each pi
 * start costs seconds: the steps share one session and run in order.
 */
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  dryRunWhole,
  fillerText,
  messageTexts,
  PI_MODEL,
  PI_PROVIDER,
  PiRpc,
  piEnvironment,
  piSessionDirectory,
  runAgent,
  withoutCacheMarks,
  writePiConfig,
} from "../helpers/agents.js";
import { SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const PI_SUMMARY_SYSTEM = "You are a context summarization assistant";
const OWN_SUMMARY = "## Goal\nLook at the notes.\n\n## Progress\n- the notes were read";
const REVIEW_SUMMARY = "Agreed in review: the notes hold a shopping reminder; no changelog exists.";
const PROMPTS = [
  "What do my notes say?",
  // Long, so that pi's small budget of recent tokens runs out here and its compaction keeps turn 2.
  "Is there a changelog? Please look for CHANGELOG.md in this project directory and tell me, in one short sentence, whether it exists, since I plan the release notes around it.",
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

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name, arguments: input }) as const;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let pi: string;
let cxcHome: TempHome;
let sessionFile: string;
/** The session file as it was after the second turn, before pi's own compaction. */
let snapshot: string;

function cxc(args: string[]) {
  return cxcHome.run(args, {
    cwd: place.cwd,
    env: {
      HOME: place.home,
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
      CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
    },
  });
}

/** Resumes a session file with `pi --session` and returns the messages pi sent for it. */
async function resumeMessages(file: string, at: AgentPlace = place): Promise<unknown[]> {
  fake.enqueue(textReply("Nothing else."));
  const before = fake.requests.length;
  const result = await runAgent(
    pi,
    ["--provider", PI_PROVIDER, "--model", PI_MODEL, "--session", file, "-p", "Anything else?"],
    { cwd: at.cwd, env: piEnvironment(at) },
  );
  expect(result.code, `pi: ${result.stderr.slice(0, 400)}`).toBe(0);
  const turns = fake.requests.slice(before).filter((request) => request.route === undefined);
  expect(turns).toHaveLength(1);
  return (turns[0]!.body as { messages: unknown[] }).messages;
}

/**
 * The messages without cxc's recall index (docs/recall.md), which an export of a compacted view
 * carries and which names what was hidden; and the index's texts.
 */
function withoutRecallIndex(messages: unknown[]): { messages: unknown[]; index: string[] } {
  const index: string[] = [];
  const isIndex = (text: unknown): boolean => typeof text === "string" && text.startsWith("[Recall index:");
  const kept = messages.flatMap((message) => {
    const content = (message as { content: unknown }).content;
    if (isIndex(content)) {
      index.push(content as string);
      return [];
    }
    if (!Array.isArray(content)) return [message];
    const blocks = (content as { type: string; text?: string }[]).filter((block) => {
      if (block.type !== "text" || !isIndex(block.text)) return true;
      index.push(block.text!);
      return false;
    });
    return blocks.length === 0 ? [] : [{ ...(message as object), content: blocks }];
  });
  return { messages: kept, index };
}

function tokensOf(messages: unknown): number {
  return messageTexts(messages).reduce((sum, text) => sum + countTokens(text), 0);
}

/** A resumed request's texts without the new prompt (`callNames`: see `messageTexts`). */
const requestTexts = (messages: unknown, callNames = false) =>
  messageTexts(messages, callNames).filter((text) => text !== "Anything else?");

/** pi's message for a compaction entry: the summary in its frame. */
const PI_COMPACTION_FRAME = [
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n",
  "\n</summary>",
] as const;

/** The summary in pi's compaction message (the first text of a resumed session's request). */
function piSummary(text: string): string {
  const [open, close] = PI_COMPACTION_FRAME;
  expect(text.startsWith(open) && text.endsWith(close), text.slice(0, 200)).toBe(true);
  return text.slice(open.length, -close.length);
}

/**
 * A request's tokens as cxc's dry run counts the view it carries: each text as cxc counts its
 * event (a call with its name), and the opening summary, pi's compaction message, as cxc's summary
 * turn (its request `[Summary of previous conversation]` and the summary).
 */
function viewTokensOf(messages: unknown): number {
  const [opening, ...rest] = requestTexts(messages, true);
  return [SUMMARY_REQUEST_TEXT, piSummary(opening!), ...rest].reduce(
    (sum, text) => sum + countTokens(text),
    0,
  );
}

/** cxc's view as `print --format anthropic` gives it, without the recall index. */
function printedView(stdout: string): string[] {
  return messageTexts((JSON.parse(stdout) as { messages: unknown }).messages).filter(
    (text) => !text.startsWith("[Recall index:"),
  );
}

/** Checks a request against cxc's view, leaf for leaf: the opening summary in pi's frame, the rest the same. */
function expectView(messages: unknown, view: readonly string[]): void {
  const [opening, ...rest] = requestTexts(messages);
  expect(view[0]).toBe(SUMMARY_REQUEST_TEXT);
  expect(piSummary(opening!)).toBe(view[1]);
  expect(rest).toEqual(view.slice(2));
}

function exportedFile(stdout: string): string {
  const match = /pi --session (\S+\.jsonl)/.exec(stdout);
  if (match === null) throw new Error(`no resume command in:\n${stdout}`);
  return match[1]!;
}

function importedId(stdout: string): string {
  const match = / as ([0-9a-z]{13}) /.exec(stdout);
  if (match === null) throw new Error(`no conversation id in:\n${stdout}`);
  return match[1]!;
}

beforeAll(async () => {
  pi = requireAgent(PROJECT_ROOT, "pi");
  ({ root, place } = newAgentPlace("cxc-pi-e2e-"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  writeFileSync(join(place.cwd, "big.txt"), `${BIG}\n`);
  writeFileSync(join(place.cwd, "data.txt"), `${DATA}\n`);
  fake = await startFakeProvider({
    routes: [{ bodyIncludes: PI_SUMMARY_SYSTEM, reply: textReply(OWN_SUMMARY) }],
  });
  writePiConfig(place.home, fake.url, { compaction: { keepRecentTokens: 60 } });
  cxcHome = makeTempHome();

  // The session, driven in one pi process: two turns, pi's own compaction, three more turns.
  const script: FakeReply[][] = [
    [
      {
        blocks: [
          { type: "thinking", text: "Read the notes.", signature: "sig-e2e-1" },
          call("toolu_e2e_notes", "read", { path: "notes.txt" }),
        ],
      },
      textReply(ANSWERS[0]!),
    ],
    [
      { blocks: [call("toolu_e2e_changelog", "bash", { command: "cat CHANGELOG.md" })] },
      textReply(ANSWERS[1]!),
    ],
    [{ blocks: [call("toolu_e2e_big", "read", { path: "big.txt" })] }, textReply(ANSWERS[2]!)],
    [{ blocks: [call("toolu_e2e_data", "bash", { command: "cat data.txt" })] }, textReply(ANSWERS[3]!)],
    [textReply(ANSWERS[4]!)],
  ];
  const rpc = new PiRpc(pi, ["--provider", PI_PROVIDER, "--model", PI_MODEL], {
    cwd: place.cwd,
    env: piEnvironment(place),
  });
  for (const turn of [0, 1]) {
    fake.enqueue(...script[turn]!);
    await rpc.prompt(PROMPTS[turn]!);
  }
  const [name] = readdirSync(piSessionDirectory(place));
  sessionFile = join(piSessionDirectory(place), name!);
  snapshot = join(root, "snapshot.jsonl");
  copyFileSync(sessionFile, snapshot);
  const compacted = await rpc.command({ type: "compact" });
  expect(compacted.success, JSON.stringify(compacted)).toBe(true);
  for (const turn of [2, 3, 4]) {
    fake.enqueue(...script[turn]!);
    await rpc.prompt(PROMPTS[turn]!);
  }
  await rpc.close();
  expect(fake.remaining()).toBe(0);
}, 180_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("pi sessions, end to end with the real agent", () => {
  let conversation: string;
  /** The session file the compacted view was exported to, resumed once in pi. */
  let compactedExport: string;

  it("imports the agent's own session: turns, tool output, and its compaction as an overlay", async () => {
    const original = readFileSync(sessionFile, "utf8");
    const result = await cxc(["conversation", "import", sessionFile]);
    expect(result.exitCode, result.stderr).toBe(0);
    conversation = importedId(result.stdout);
    expect(result.stdout).toContain(`Imported pi session ${sessionFile} as ${conversation}`);
    expect(result.stdout).toMatch(
      /read: 5 turns, 1 compaction of pi's as an overlay; left out: .*no records of unknown types/,
    );
    expect(readFileSync(sessionFile, "utf8")).toBe(original);

    const shown = await cxc(["conversation", "show", conversation, "--format", "json"]);
    const details = JSON.parse(shown.stdout) as {
      turns: number;
      source: string;
      source_file: string;
      compactions: { from_turn: number; to_turn: number; summary: string; note: string }[];
    };
    expect(details).toMatchObject({ turns: 5, source: "pi", source_file: sessionFile });
    // What pi wrote: its compaction entry, keeping the second turn from its prompt.
    const entries = original
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const entry = entries.find((candidate) => candidate.type === "compaction")!;
    // pi appends the files its tools touched to its model's summary.
    expect(entry.summary).toContain(OWN_SUMMARY);
    const kept = entries.find((candidate) => candidate.id === entry.firstKeptEntryId) as {
      message?: { content: { text: string }[] };
    };
    expect(kept.message?.content[0]?.text).toBe(PROMPTS[1]);
    expect(details.compactions).toHaveLength(1);
    expect(details.compactions[0]).toMatchObject({ from_turn: 1, to_turn: 1, summary: entry.summary });
    expect(details.compactions[0]!.note).toMatch(/^pi's own compaction of \d+ tokens$/);

    const raw = await cxc(["conversation", "print", conversation, "--style", "full"]);
    for (const text of [...PROMPTS, ...ANSWERS, "remember the milk", "parser line 150", "lexer line 150"]) {
      expect(raw.stdout).toContain(text);
    }
    const listed = await cxc(["conversation", "ls"]);
    expect(listed.stdout).toMatch(new RegExp(`${conversation}\\s+5\\s+.*pi `));
  });

  it("resumes an export made without compaction with the messages the original session sends", async () => {
    const first: AgentPlace = { home: join(root, "home-original"), cwd: place.cwd };
    writePiConfig(first.home, fake.url);
    const copy = join(root, "original-resumed.jsonl");
    copyFileSync(snapshot, copy);
    const original = await resumeMessages(copy, first);

    const store = makeTempHome();
    const trip: AgentPlace = { home: join(root, "home-trip"), cwd: place.cwd };
    writePiConfig(trip.home, fake.url);
    const inStore = (args: string[]) => store.run(args, { cwd: place.cwd, env: { HOME: trip.home } });
    const imported = await inStore(["conversation", "import", snapshot]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const exported = await inStore(["conversation", "export", importedId(imported.stdout), "--to", "pi"]);
    store.cleanup();
    expect(exported.exitCode, exported.stderr).toBe(0);
    const file = exportedFile(exported.stdout);
    expect(file.startsWith(piSessionDirectory(trip))).toBe(true);
    const tripped = await resumeMessages(file, trip);

    expect(withoutCacheMarks(tripped)).toEqual(withoutCacheMarks(original));
    expect(JSON.stringify(original)).toContain("toolu_e2e_notes");
    expect(JSON.stringify(original)).toContain("sig-e2e-1");
  });

  it("exports cxc's compacted view and pi resumes it, smaller by what the dry runs promised", async () => {
    const baseline = await cxc(["conversation", "export", conversation, "--to", "pi"]);
    expect(baseline.exitCode, baseline.stderr).toBe(0);
    const before = await resumeMessages(exportedFile(baseline.stdout));
    const viewBefore = printedView(
      (await cxc(["--format", "anthropic", "conversation", "print", conversation])).stdout,
    );

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
    // pi's model is not one cxc can call: the review starts, and says how to discuss it.
    expect(started.stderr).toMatch(
      /^cxc: warning: the conversation last used fake\/claude-fake, which cxc cannot call .*`cxc q -m anthropic\/claude-sonnet-4-6 …`$/m,
    );
    fake.enqueue(
      {
        blocks: [
          call("toolu_review_1", "propose_compaction", { from_turn: 1, to_turn: 2, summary: REVIEW_SUMMARY }),
        ],
      },
      textReply("Recorded."),
    );
    // The imported conversation names pi's model (`fake/claude-fake`), which cxc does not know.
    const proposed = await cxc([
      "query",
      "-m",
      "anthropic/claude-sonnet-4-6",
      "Summarize the first two turns.",
    ]);
    expect(proposed.exitCode, proposed.stderr).toBe(0);
    const applied = await cxc(["conversation", "compact", "--continue", "--yes"]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const plan3 = await dryRun([]);

    const exported = await cxc(["conversation", "export", conversation, "--to", "pi"]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout).toContain("Continue it with: pi --session ");
    compactedExport = exportedFile(exported.stdout);
    const resumed = withoutRecallIndex(await resumeMessages(compactedExport));
    // The index names what the compaction hid (`… cat data.txt …`): the view is checked, and
    // counted, apart from it.
    expect(resumed.index).toHaveLength(1);
    expect(resumed.index[0]).toContain("cat data.txt");
    const after = resumed.messages;
    const sent = JSON.stringify(after);
    const has = (text: string) => sent.includes(JSON.stringify(text).slice(1, -1));
    for (const kept of [REVIEW_SUMMARY, "## Digest of turns 3..3", "[compacted] bash: success"]) {
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

    // Exactly the saving the dry runs promised: both requests are cxc's view leaf for leaf (but for
    // the opening summary in pi's frame and the recall index), and counted as cxc counts a view they
    // are the dry runs' counts. As sent, the saving differs by pi's frame, the recall index of the
    // baseline (its export carries one) and the calls' names, sent apart from their arguments.
    const promisedByDryRuns = plan1.before - plan1.after + (plan2.before - plan2.after);
    const promised = plan1.before - plan3.before;
    const baselineView = withoutRecallIndex(before).messages;
    expectView(baselineView, viewBefore);
    expectView(
      after,
      printedView((await cxc(["--format", "anthropic", "conversation", "print", conversation])).stdout),
    );
    expect(viewTokensOf(baselineView)).toBe(plan1.before);
    expect(viewTokensOf(after)).toBe(plan3.before);
    const measured = tokensOf(before) - tokensOf(after);
    console.log(
      `pi: dry runs promised ${promisedByDryRuns} tokens (default rule ${plan1.before - plan1.after}, ` +
        `-k summary ${plan2.before - plan2.after}); with the review ${promised} (${plan1.before} → ${plan3.before}); ` +
        `the resumed requests counted as cxc counts views: ${viewTokensOf(baselineView)} → ${viewTokensOf(after)}; ` +
        `as sent, smaller by ${measured} (${tokensOf(before)} → ${tokensOf(after)})`,
    );
    expect(promisedByDryRuns).toBeGreaterThan(3000);
  });

  it("brings the exported session, resumed in pi, back onto its conversation with import --update", async () => {
    const turns = JSON.parse(
      (await cxc(["conversation", "show", conversation, "--format", "json"])).stdout,
    ).turns;
    const updated = await cxc(["conversation", "import", compactedExport, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(
      new RegExp(
        `^Updated ${conversation} \\(exported to it\\) from .*: \\d+ events appended \\(1 new turn, now ${turns + 1} turns\\)\\.\\n$`,
      ),
    );
    const raw = (await cxc(["conversation", "print", conversation, "--last", "1"])).stdout;
    expect(raw).toContain("Anything else?");
    expect(raw).toContain("Nothing else.");
    const again = await cxc(["conversation", "import", compactedExport, "--update"]);
    expect(again.stdout).toMatch(/^Nothing new in .*: \w+ \(exported to it\) holds all of it\.\n$/);
  });
});
