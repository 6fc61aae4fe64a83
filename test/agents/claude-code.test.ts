/**
 * Claude Code end to end, with the real agent (agents/, installed by .ci/run) against the loopback
 * fake provider: a real session with tool calls and Claude Code's own /compact is imported; then
 * compacted in cxc (the default rule, a `-k` summary, an agreed review), exported and resumed by
 * Claude Code, whose next request is checked; and a session exported without compaction resumes
 * with the very messages the original sends. Each agent run costs seconds: the steps share one
 * session and run in order.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  claudeCodeEnvironment,
  claudeProjectDirectory,
  dryRunWhole,
  fillerText,
  messageTexts,
  runAgent,
  withoutCacheMarks,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const MODEL = "claude-sonnet-4-5";
const CLAUDE_COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far";
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

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name, arguments: input }) as const;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let claude: string;
let cxcHome: TempHome;
let sessionId: string;
/** The session file as it was after the second turn, before Claude Code's own compaction. */
let snapshot: string;

function cxc(args: string[], options: { cwd?: string } = {}) {
  return cxcHome.run(args, {
    cwd: options.cwd ?? place.cwd,
    env: {
      HOME: place.home,
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
      CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
    },
  });
}

async function claudeRun(prompt: string, extra: string[] = [], at: AgentPlace = place) {
  const result = await runAgent(
    claude,
    ["-p", prompt, "--output-format", "json", "--model", MODEL, "--allowedTools", "Bash Read", ...extra],
    { cwd: at.cwd, env: claudeCodeEnvironment(at, fake.url) },
  );
  expect(result.code, `claude: ${result.stderr.slice(0, 400)} ${result.stdout.slice(0, 400)}`).toBe(0);
  return JSON.parse(result.stdout) as { session_id: string };
}

/** Resumes a session and returns the messages of the request Claude Code sent for it. */
async function resumeMessages(id: string, at: AgentPlace = place): Promise<unknown[]> {
  fake.enqueue(textReply("Nothing else."));
  const before = fake.requests.length;
  await claudeRun("Anything else?", ["--resume", id], at);
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

function exportedSessionId(stdout: string): string {
  const match = /claude --resume ([0-9a-f-]{36})/.exec(stdout);
  if (match === null) throw new Error(`no resume command in:\n${stdout}`);
  return match[1]!;
}

function importedId(stdout: string): string {
  const match = / as ([0-9a-z]{13}) /.exec(stdout);
  if (match === null) throw new Error(`no conversation id in:\n${stdout}`);
  return match[1]!;
}

beforeAll(async () => {
  claude = requireAgent(PROJECT_ROOT, "claude");
  ({ root, place } = newAgentPlace("cxc-claude-e2e-"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  writeFileSync(join(place.cwd, "big.txt"), `${BIG}\n`);
  writeFileSync(join(place.cwd, "data.txt"), `${DATA}\n`);
  fake = await startFakeProvider({
    routes: [
      {
        bodyIncludes: CLAUDE_COMPACT_PROMPT,
        reply: textReply(`<analysis>Two turns.</analysis>\n<summary>${OWN_SUMMARY}</summary>`),
      },
    ],
  });
  cxcHome = makeTempHome();

  // The session, driven in Claude Code: five turns with tool calls and its own /compact.
  const script: FakeReply[][] = [
    [
      {
        blocks: [
          { type: "thinking", text: "Read the notes.", signature: "sig-e2e-1" },
          call("toolu_e2e_notes", "Read", { file_path: join(place.cwd, "notes.txt") }),
        ],
      },
      textReply(ANSWERS[0]!),
    ],
    [
      { blocks: [call("toolu_e2e_changelog", "Bash", { command: "cat CHANGELOG.md" })] },
      textReply(ANSWERS[1]!),
    ],
    [
      { blocks: [call("toolu_e2e_big", "Read", { file_path: join(place.cwd, "big.txt") })] },
      textReply(ANSWERS[2]!),
    ],
    [{ blocks: [call("toolu_e2e_data", "Bash", { command: "cat data.txt" })] }, textReply(ANSWERS[3]!)],
    [textReply(ANSWERS[4]!)],
  ];
  fake.enqueue(...script[0]!);
  sessionId = (await claudeRun(PROMPTS[0]!)).session_id;
  const file = join(claudeProjectDirectory(place), `${sessionId}.jsonl`);
  fake.enqueue(...script[1]!);
  await claudeRun(PROMPTS[1]!, ["--resume", sessionId]);
  snapshot = join(root, "snapshot.jsonl");
  copyFileSync(file, snapshot);
  await claudeRun("/compact", ["--resume", sessionId]);
  for (const turn of [2, 3, 4]) {
    fake.enqueue(...script[turn]!);
    await claudeRun(PROMPTS[turn]!, ["--resume", sessionId]);
  }
  expect(fake.remaining()).toBe(0);
}, 180_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("Claude Code sessions, end to end with the real agent", () => {
  let conversation: string;
  let file: string;
  /** The session the compacted view was exported to, resumed once in Claude Code. */
  let compactedExport: string;

  it("imports the agent's own session: turns, tool output, and its compaction as an overlay", async () => {
    file = join(claudeProjectDirectory(place), `${sessionId}.jsonl`);
    const original = readFileSync(file, "utf8");
    const result = await cxc(["conversation", "import", file]);
    expect(result.exitCode, result.stderr).toBe(0);
    conversation = importedId(result.stdout);
    expect(result.stdout).toContain(`Imported Claude Code session ${file} as ${conversation}`);
    expect(result.stdout).toMatch(
      /read: 5 turns, 1 compaction of Claude Code's as an overlay; left out: \d+ skipped records \([^)]+\), no records of unknown types/,
    );
    expect(readFileSync(file, "utf8")).toBe(original);

    const shown = await cxc(["conversation", "show", conversation, "--format", "json"]);
    const details = JSON.parse(shown.stdout) as {
      turns: number;
      source: string;
      source_file: string;
      compactions: { from_turn: number; to_turn: number; summary: string; note: string }[];
    };
    expect(details).toMatchObject({ turns: 5, source: "claude-code", source_file: file });
    // What Claude Code wrote: its boundary and the summary prompt its model saw from then on.
    const records = original
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const summaryRecord = records.find((record) => record.isCompactSummary === true)!;
    const summaryText = (summaryRecord.message as { content: unknown }).content;
    expect(typeof summaryText === "string" ? summaryText : JSON.stringify(summaryText)).toContain(
      OWN_SUMMARY,
    );
    expect(details.compactions).toHaveLength(1);
    const [own] = details.compactions;
    // Claude Code kept the second turn's reply verbatim, so cxc keeps the second turn whole.
    expect(own).toMatchObject({ from_turn: 1, to_turn: 1, note: "Claude Code's own compaction (manual)" });
    expect(own!.summary).toBe(typeof summaryText === "string" ? summaryText : undefined);

    const raw = await cxc(["conversation", "print", conversation, "--style", "full"]);
    for (const text of [...PROMPTS, ...ANSWERS, "remember the milk", "lexer line 150"])
      expect(raw.stdout).toContain(text);
    expect(raw.stdout).toContain("parser line 150");
    const listed = await cxc(["conversation", "ls"]);
    expect(listed.stdout).toMatch(new RegExp(`${conversation}\\s+5\\s+.*Claude Code`));
  });

  it("resumes an export made without compaction with the messages the original session sends", async () => {
    // The session as it was before /compact, resumed as it is and after a trip through cxc.
    const first: AgentPlace = { home: join(root, "home-original"), cwd: place.cwd };
    mkdirSync(claudeProjectDirectory(first), { recursive: true });
    copyFileSync(snapshot, join(claudeProjectDirectory(first), `${sessionId}.jsonl`));
    const original = await resumeMessages(sessionId, first);

    // Another store: the snapshot is the same session, so it gets the same conversation id.
    const store = makeTempHome();
    const trip: AgentPlace = { home: join(root, "home-trip"), cwd: place.cwd };
    const inStore = (args: string[]) => store.run(args, { cwd: place.cwd, env: { HOME: trip.home } });
    const imported = await inStore(["conversation", "import", snapshot]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const id = importedId(imported.stdout);
    const exported = await inStore(["conversation", "export", id, "--to", "claude-code"]);
    store.cleanup();
    expect(exported.exitCode, exported.stderr).toBe(0);
    const tripped = await resumeMessages(exportedSessionId(exported.stdout), trip);

    expect(withoutCacheMarks(tripped)).toEqual(withoutCacheMarks(original));
    expect(JSON.stringify(original)).toContain("toolu_e2e_notes");
    expect(JSON.stringify(original)).toContain("sig-e2e-1");
  });

  it("exports cxc's compacted view and Claude Code resumes it, smaller by what the dry runs promised", async () => {
    // The baseline: the import exported as it is (only Claude Code's own compaction in force).
    const baseline = await cxc(["conversation", "export", conversation, "--to", "claude-code"]);
    expect(baseline.exitCode, baseline.stderr).toBe(0);
    const before = await resumeMessages(exportedSessionId(baseline.stdout));

    // The default rule: keep the first and last turn, strip reasoning and tool calls between.
    const plan1 = dryRunWhole(
      (await cxc(["conversation", "compact", conversation, "--dry-run", "--format", "json"])).stdout,
    );
    expect((await cxc(["conversation", "compact", conversation, "-y"])).exitCode).toBe(0);
    // A `-k` summary of turn 3 (the offline digest, which the dry run estimates exactly).
    const specArgs = ["conversation", "compact", conversation, "-k", "s:3..3", "-m", "builtin/digest"];
    const plan2 = dryRunWhole((await cxc([...specArgs, "--dry-run", "--format", "json"])).stdout);
    expect(plan2.before).toBe(plan1.after);
    expect((await cxc([...specArgs, "-y"])).exitCode).toBe(0);
    // An agreed review: the model proposes a summary of turns 1..2, the user applies it.
    const started = await cxc([
      "conversation",
      "compact",
      conversation,
      "--interactive",
      "-m",
      "builtin/digest",
    ]);
    expect(started.exitCode, started.stderr).toBe(0);
    fake.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "toolu_review_1",
            name: "propose_compaction",
            arguments: { from_turn: 1, to_turn: 2, summary: REVIEW_SUMMARY },
          },
        ],
      },
      textReply("Recorded."),
    );
    const proposed = await cxc(["query", "Summarize the first two turns."]);
    expect(proposed.exitCode, proposed.stderr).toBe(0);
    const applied = await cxc(["conversation", "compact", "--continue", "--yes"]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const plan3 = dryRunWhole(
      (await cxc(["conversation", "compact", conversation, "--dry-run", "--format", "json"])).stdout,
    );

    const exported = await cxc(["conversation", "export", conversation, "--to", "claude-code"]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    compactedExport = exportedSessionId(exported.stdout);
    const resumed = withoutRecallIndex(await resumeMessages(compactedExport));
    // The index names what the compaction hid (`… cat data.txt …`): the view is checked, and
    // counted, apart from it.
    expect(resumed.index).toHaveLength(1);
    expect(resumed.index[0]).toContain("cat data.txt");
    const after = resumed.messages;
    const sent = JSON.stringify(after);
    // The review's summary opens it, the digest of turn 3 follows; turn 4's tool call is stripped.
    const has = (text: string) => sent.includes(JSON.stringify(text).slice(1, -1));
    for (const kept of [REVIEW_SUMMARY, "## Digest of turns 3..3", "[compacted] Bash: success"]) {
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

    const promisedByDryRuns = plan1.before - plan1.after + (plan2.before - plan2.after);
    const promised = plan1.before - plan3.before;
    const measured = tokensOf(before) - tokensOf(after);
    console.log(
      `Claude Code: dry runs promised ${promisedByDryRuns} tokens (default rule ${plan1.before - plan1.after}, ` +
        `-k summary ${plan2.before - plan2.after}); with the review ${promised} (${plan1.before} → ${plan3.before}); ` +
        `the resumed request is smaller by ${measured} (${tokensOf(before)} → ${tokensOf(after)})`,
    );
    expect(promisedByDryRuns).toBeGreaterThan(3000);
    expect(Math.abs(measured - promised)).toBeLessThan(promised * 0.1);
  });

  it("brings the exported session, resumed in Claude Code, back onto its conversation with import --update", async () => {
    // The compacted view went out; Claude Code answered one more prompt in it (the test above).
    const exportedFile = join(claudeProjectDirectory(place), `${compactedExport}.jsonl`);
    const before = JSON.parse(
      (await cxc(["conversation", "print", conversation, "--format", "json"])).stdout,
    ) as {
      turns: { events: { id: string }[] }[];
    };
    const turns = JSON.parse(
      (await cxc(["conversation", "show", conversation, "--format", "json"])).stdout,
    ).turns;
    const updated = await cxc(["conversation", "import", exportedFile, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(
      new RegExp(
        `^Updated ${conversation} \\(exported to it\\) from .*: \\d+ events appended \\(1 new turn, now ${turns + 1} turns\\)\\.\\n$`,
      ),
    );
    // Only the new turn came: the view's records stand for turns the conversation has.
    const raw = (await cxc(["conversation", "print", conversation, "--turn", `${turns + 1}`])).stdout;
    expect(raw).toContain("Anything else?");
    expect(raw).toContain("Nothing else.");
    const after = JSON.parse(
      (await cxc(["conversation", "print", conversation, "--format", "json"])).stdout,
    ) as {
      turns: { events: { id: string }[] }[];
    };
    const ids = (document: typeof before) =>
      document.turns.flatMap((turn) => turn.events.map((event) => event.id));
    expect(ids(after).slice(0, ids(before).length)).toEqual(ids(before));
    // The compactions, the review's summary among them, are kept.
    expect((await cxc(["conversation", "show", conversation])).stdout).toContain(
      "agreed in compaction review",
    );
    const again = await cxc(["conversation", "import", exportedFile, "--update"]);
    expect(again.stdout).toMatch(/^Nothing new in .*: \w+ \(exported to it\) holds all of it\.\n$/);
  });

  it("appends a turn the original session grew by, keeping what cxc recorded", async () => {
    fake.enqueue(textReply("Then the lexer."));
    await claudeRun("And after that?", ["--resume", sessionId]);
    const updated = await cxc(["conversation", "import", file, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(new RegExp(`^Updated ${conversation} \\(imported from it\\) from `));
    const last = (await cxc(["conversation", "print", conversation, "--last", "1"])).stdout;
    expect(last).toContain("And after that?");
    expect(last).toContain("Then the lexer.");
  });
});
