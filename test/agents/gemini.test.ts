/**
 * Gemini CLI end to end, with the real agent (agents/, installed by .ci/run) against the loopback
 * fake provider's Gemini API: a five-turn session (a file read, a failing command, a sentence the
 * user says must hold, and Gemini CLI's own compression in the third turn) is made with `gemini -p`
 * and `gemini --resume`, imported whole (the compression as an overlay), compacted in cxc with
 * `-k r+t:..-2` and `-k s:..-2`, exported, and resumed by Gemini CLI, whose next request carries
 * the compacted view, smaller by exactly what the dry runs promised (both requests counted as cxc
 * counts the views they carry; see the test for what differs as sent). Each Gemini CLI run costs two to three
 * seconds: the steps share the session and run in order.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  dryRunWhole,
  fillerText,
  GEMINI_MODEL,
  geminiEnvironment,
  geminiTempDirectory,
  runAgent,
  writeGeminiSettings,
} from "../helpers/agents.js";
import { SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { RECALL_INDEX_HEADING } from "../../src/core/conversation/recall.js";
import { framedSummary } from "../../src/core/interop/agent-export.js";
import { GEMINI_COMPRESSION_ACK } from "../../src/core/interop/gemini.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import {
  type FakeBlock,
  type FakeProvider,
  type FakeReply,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";

const SNAPSHOT =
  "<state_snapshot>The user said never to touch the migrations folder; notes.txt says remember the milk; there is no CHANGELOG.md.</state_snapshot>";
const RULE = "Never touch the migrations folder.";
const PROMPTS = [
  `${RULE} What do my notes say?`,
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

const read = (file: string, signature?: string): FakeBlock => ({
  type: "tool-call",
  id: "unused",
  name: "read_file",
  arguments: { file_path: file },
  ...(signature === undefined ? {} : { signature }),
});

type Content = { role: string; parts: Record<string, unknown>[] };

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let gemini: string;
let cxcHome: TempHome;
let sessionFile: string;
let sessionId: string;

function cxc(args: string[], home: TempHome = cxcHome) {
  return home.run(args, {
    cwd: place.cwd,
    env: { HOME: place.home, GEMINI_CLI_HOME: place.home },
  });
}

/** One headless Gemini CLI run (`--resume <id>` first in `args` to continue a session). */
async function geminiRun(args: string[]): Promise<string> {
  const result = await runAgent(gemini, ["-m", GEMINI_MODEL, "--yolo", "-o", "json", ...args], {
    cwd: place.cwd,
    env: geminiEnvironment(place, fake.url),
  });
  expect(result.code, `gemini: ${result.stderr.slice(-800)}`).toBe(0);
  return (JSON.parse(result.stdout) as { session_id: string }).session_id;
}

/** Resumes a session and returns the contents Gemini CLI sent for the new prompt. */
async function resumeContents(id: string): Promise<Content[]> {
  fake.enqueue(textReply("Nothing else."));
  const before = fake.requests.length;
  expect(await geminiRun(["--resume", id, "-p", "Anything else?"])).toBe(id);
  const turns = fake.requests.slice(before).filter((request) => request.route === undefined);
  expect(turns).toHaveLength(1);
  expect(turns[0]!.path).toBe(`/v1beta/models/${GEMINI_MODEL}:streamGenerateContent?alt=sse`);
  return (turns[0]!.body as { contents: Content[] }).contents;
}

/**
 * The text a request's contents carry, one string per leaf (text, call arguments, results), without
 * Gemini CLI's own context message, thoughts (Gemini CLI does not send them back) and the new prompt.
 * `callNames`: a call's leaf is its name and arguments, as cxc counts a call
 * (core/conversation/tokens.ts).
 */
function texts(contents: readonly Content[], callNames = false): string[] {
  const leaves: string[] = [];
  for (const content of contents) {
    for (const part of content.parts) {
      if (part.thought === true) continue;
      if (typeof part.text === "string") {
        if (!part.text.startsWith("<session_context>")) leaves.push(part.text);
      } else if (part.functionCall !== undefined) {
        const call = part.functionCall as { name?: string; args?: unknown };
        const args = JSON.stringify(call.args ?? {});
        leaves.push(callNames ? `${call.name} ${args}` : args);
      } else if (part.functionResponse !== undefined) {
        const response = (part.functionResponse as { response?: Record<string, unknown> }).response ?? {};
        leaves.push(String(response.output ?? response.error ?? JSON.stringify(response)));
      }
    }
  }
  return leaves.filter((text) => text !== "Anything else?");
}

const tokensOf = (contents: readonly Content[]) =>
  texts(contents).reduce((sum, text) => sum + countTokens(text), 0);

/**
 * A request's tokens as cxc's dry run counts the view it stands for: each leaf as cxc counts its
 * event (a call with its name), and the opening summary as cxc's summary turn (its request
 * `[Summary of previous conversation]` and `summary`) instead of the shape Gemini CLI gives it (the
 * summary as a user message, then the model's acknowledgement), which the test checks exactly.
 */
const viewTokensOf = (contents: readonly Content[], summary: string) =>
  [SUMMARY_REQUEST_TEXT, summary, ...texts(contents, true).slice(2)].reduce(
    (sum, text) => sum + countTokens(text),
    0,
  );

/** cxc's view as `print --format gemini` gives it, without the recall index (cxc q's alone). */
const printedView = (stdout: string) =>
  texts((JSON.parse(stdout) as { contents: Content[] }).contents).filter(
    (text) => !text.startsWith(RECALL_INDEX_HEADING),
  );

function exportedSession(stdout: string): string {
  const match = /Continue it with: (?:cd \S+ && )?gemini --resume ([0-9a-f-]{36})/.exec(stdout);
  if (match === null) throw new Error(`no resume command in:\n${stdout}`);
  return match[1]!;
}

function importedId(stdout: string): string {
  const match = / as ([0-9a-z]{13}) /.exec(stdout);
  if (match === null) throw new Error(`no conversation id in:\n${stdout}`);
  return match[1]!;
}

beforeAll(async () => {
  gemini = requireAgent(PROJECT_ROOT, "gemini");
  ({ root, place } = newAgentPlace("cxc-gemini-e2e-"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  writeFileSync(join(place.cwd, "big.txt"), `${BIG}\n`);
  writeFileSync(join(place.cwd, "data.txt"), `${DATA}\n`);
  writeGeminiSettings(place.home);
  fake = await startFakeProvider({
    routes: [
      { bodyIncludes: "generate the updated <state_snapshot>", reply: textReply(SNAPSHOT) },
      { bodyIncludes: "Critically evaluate the <state_snapshot>", reply: textReply(SNAPSHOT) },
    ],
  });
  cxcHome = makeTempHome();

  const script: FakeReply[][] = [
    [
      {
        blocks: [
          { type: "thinking", text: "The notes are in notes.txt.", signature: "sig-thought-1" },
          read("notes.txt", "sig-call-1"),
        ],
      },
      textReply(ANSWERS[0]!),
    ],
    [
      {
        blocks: [
          {
            type: "tool-call",
            id: "unused",
            name: "run_shell_command",
            arguments: { command: "cat CHANGELOG.md", description: "Read the changelog." },
          },
        ],
      },
      textReply(ANSWERS[1]!),
    ],
    // Reported as over half of the model's window: Gemini CLI compresses before its next call.
    [{ blocks: [read("big.txt")], usage: { inputTokens: 600_000 } }, textReply(ANSWERS[2]!)],
    [{ blocks: [read("data.txt")] }, textReply(ANSWERS[3]!)],
    [textReply(ANSWERS[4]!)],
  ];
  fake.enqueue(...script[0]!);
  sessionId = await geminiRun(["-p", PROMPTS[0]!]);
  for (const turn of [1, 2, 3, 4]) {
    fake.enqueue(...script[turn]!);
    const before = fake.requests.length;
    await geminiRun(["--resume", sessionId, "-p", PROMPTS[turn]!]);
    if (turn === 2) {
      // Its compression: the summary and its check, between the turn's two calls.
      expect(fake.requests.slice(before).map((request) => request.route)).toEqual([
        undefined,
        0,
        1,
        undefined,
      ]);
    }
  }
  expect(fake.remaining()).toBe(0);
  const chats = join(geminiTempDirectory(place), "project", "chats");
  const name = readdirSync(chats).find(
    (file) =>
      file.endsWith(`-${sessionId.slice(0, 8)}.jsonl`) &&
      readFileSync(join(chats, file), "utf8").includes(PROMPTS[4]!),
  );
  if (name === undefined) throw new Error(`no session file for ${sessionId} in ${chats}`);
  sessionFile = join(chats, name);
}, 180_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("Gemini CLI sessions, end to end with the real agent", () => {
  let conversation: string;

  it("imports the session whole: every turn, the tool output, and Gemini CLI's compression as an overlay", async () => {
    const original = readFileSync(sessionFile, "utf8");
    expect(original).toContain(SNAPSHOT);
    const result = await cxc(["conversation", "import", join(sessionFile, "..")]);
    expect(result.exitCode, result.stderr).toBe(0);
    conversation = importedId(result.stdout);
    expect(result.stdout).toContain(`Imported Gemini CLI session ${sessionFile} as ${conversation}`);
    expect(result.stdout).toMatch(
      /read: 5 turns, 1 compaction of Gemini CLI's as an overlay; left out: \d+ skipped records/,
    );
    expect(readFileSync(sessionFile, "utf8")).toBe(original);

    const shown = JSON.parse(
      (await cxc(["conversation", "show", conversation, "--format", "json"])).stdout,
    ) as {
      turns: number;
      source: string;
      compactions: { from_turn: number; to_turn: number; summary: string; note: string }[];
    };
    expect(shown).toMatchObject({ turns: 5, source: "gemini" });
    expect(shown.compactions).toEqual([
      expect.objectContaining({
        from_turn: 1,
        to_turn: 2,
        summary: SNAPSHOT,
        note: "Gemini CLI's own compression",
      }),
    ]);
    const raw = (await cxc(["conversation", "print", conversation, "--style", "full"])).stdout;
    for (const text of [
      ...PROMPTS,
      ...ANSWERS,
      "remember the milk",
      "CHANGELOG.md: No such file",
      "parser line 150",
    ]) {
      expect(raw, text).toContain(text);
    }
    expect(raw).toContain("The notes are in notes.txt.");
    const view = (await cxc(["conversation", "print", conversation, "--compacted", "--style", "full"]))
      .stdout;
    expect(view).toContain(SNAPSHOT);
    expect(view).not.toContain(ANSWERS[0]);
    expect(view).toContain(ANSWERS[2]);
    expect((await cxc(["conversation", "ls"])).stdout).toMatch(
      new RegExp(`${conversation}\\s+5\\s+.*Gemini CLI`),
    );
  });

  it("exports cxc's compacted view and Gemini CLI resumes it, smaller by what the dry runs promised", async () => {
    const baseline = await cxc(["conversation", "export", conversation, "--to", "gemini"]);
    expect(baseline.exitCode, baseline.stderr).toBe(0);
    const before = await resumeContents(exportedSession(baseline.stdout));
    // Gemini CLI's own snapshot opens the baseline, in its own shape; the rest is cxc's view.
    expect(texts(before).slice(0, 3)).toEqual([SNAPSHOT, GEMINI_COMPRESSION_ACK, PROMPTS[2]]);
    const viewBefore = printedView(
      (await cxc(["--format", "gemini", "conversation", "print", conversation])).stdout,
    );
    expect(viewBefore.slice(0, 2)).toEqual([SUMMARY_REQUEST_TEXT, SNAPSHOT]);
    expect(texts(before).slice(2)).toEqual(viewBefore.slice(2));

    const dryRun = async (spec: string[]) =>
      dryRunWhole(
        (await cxc(["conversation", "compact", conversation, ...spec, "--dry-run", "--format", "json"]))
          .stdout,
      );
    const strip = ["-k", "r+t:..-2"];
    const plan1 = await dryRun(strip);
    expect((await cxc(["conversation", "compact", conversation, ...strip, "-y"])).exitCode).toBe(0);
    const summarize = ["-k", "s:..-2", "-m", "builtin/digest"];
    const plan2 = await dryRun(summarize);
    expect(plan2.before).toBe(plan1.after);
    expect((await cxc(["conversation", "compact", conversation, ...summarize, "-y"])).exitCode).toBe(0);

    const printed = await cxc(["--format", "gemini", "conversation", "print", conversation]);
    const exported = await cxc(["conversation", "export", conversation, "--to", "gemini"]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const after = await resumeContents(exportedSession(exported.stdout));
    // The next request carries the compacted view, what `print --format gemini` shows, but for the
    // opening summary, which the export gives the shape of Gemini CLI's own compression (cxc's
    // summary framed as a user message, then Gemini's acknowledgement), and for cxc's recall index,
    // which only cxc q sends (Gemini CLI has no recall tool).
    const view = printedView(printed.stdout);
    expect(view[0]).toBe(SUMMARY_REQUEST_TEXT);
    expect(texts(after)[0]).toBe(framedSummary(view[1]!));
    expect(texts(after)[1]).toBe(GEMINI_COMPRESSION_ACK);
    expect(texts(after).slice(2)).toEqual(view.slice(2));
    const sent = JSON.stringify(after);
    expect(sent).toContain("## Digest of turns 1..3");
    expect(sent).toContain(RULE);
    for (const kept of [PROMPTS[3]!, ANSWERS[3]!, PROMPTS[4]!, ANSWERS[4]!, "lexer line 150"])
      expect(sent).toContain(kept);
    for (const gone of [SNAPSHOT, "remember the milk\\n", "parser line 150", ANSWERS[0]!])
      expect(sent).not.toContain(gone);

    // Exactly the saving the dry runs promised: the two requests counted as cxc counts the views they
    // carry (leaf for leaf the same, as checked above). Counted as sent, the saving differs by what
    // cannot be the same: the export's framing of the opening summary and Gemini's acknowledgement
    // (cxc's view has its `[Summary of previous conversation]` request instead), and the calls'
    // names, which Gemini sends apart from their arguments (cxc counts a call as one text).
    const promised = plan1.before - plan1.after + (plan2.before - plan2.after);
    expect(viewTokensOf(before, SNAPSHOT)).toBe(plan1.before);
    expect(viewTokensOf(after, view[1]!)).toBe(plan2.after);
    const measured = tokensOf(before) - tokensOf(after);
    console.log(
      `Gemini CLI: dry runs promised ${promised} tokens (-k r+t:..-2 ${plan1.before - plan1.after}, -k s:..-2 ${plan2.before - plan2.after}); the resumed requests counted as cxc counts views: ${viewTokensOf(before, SNAPSHOT)} → ${viewTokensOf(after, view[1]!)}; as sent, smaller by ${measured} (${tokensOf(before)} → ${tokensOf(after)})`,
    );
    expect(promised).toBeGreaterThan(1000);
  });
});
