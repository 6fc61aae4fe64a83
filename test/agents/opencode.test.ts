/**
 * opencode end to end, with the real agent (agents/opencode, installed by .ci/run) against the
 * loopback fake provider's Anthropic wire: a five-turn session (a file read, a failing command, a
 * sentence the user says must hold, and opencode's own automatic compaction after the second) is
 * made with `opencode run`, read from its SQLite database (through opencode's own `opencode db`
 * under this Node, and through `node:sqlite` under a Node that has it: the same conversation),
 * compacted with `-k r+t:..-2` and `-k s:..-2`, exported through `opencode import`, and resumed with
 * `opencode run --session`, whose request carries the compacted view, smaller by exactly what the
 * dry runs promised (both requests counted as cxc counts the views they carry); the session grown in opencode and the exported ones it resumed come back with
 * `import --update`, and a database one of whose sessions changed refuses it whole, appending
 * nothing; a database a running process holds locked is one error, nothing imported.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  nodeWithSqlite,
  OPENCODE_COMPACT_PROMPT,
  OPENCODE_TITLE_PROMPT,
  opencodeDatabase,
  opencodeEnvironment,
  runAgent,
  writeOpencodeConfig,
} from "../helpers/agents.js";
import { SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import { RECALL_INDEX_HEADING } from "../../src/core/conversation/recall.js";
import { framedSummary } from "../../src/core/interop/agent-export.js";
import { OPENCODE_COMPACTION_PROMPT } from "../../src/core/interop/opencode.js";
import { CXC_BIN, makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const OWN_SUMMARY =
  "OWN-SUMMARY: the user said never to touch the migrations folder; the notes say remember the milk.";
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
const CONTINUED = "Carrying on after the compaction.";
const BIG = fillerText("parser", 150);
const DATA = fillerText("lexer", 150);

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let opencode: string;
/** A folder holding only `opencode` (agents/opencode/.bin also holds a Node), put on cxc's PATH. */
let opencodeBin: string;
let cxcHome: TempHome;
let sessionId: string;

function cxcEnv(): Record<string, string> {
  const env = opencodeEnvironment(place);
  return { ...env, PATH: `${opencodeBin}:${env.PATH}` };
}

function cxc(args: string[], home: TempHome = cxcHome) {
  return home.run(args, { cwd: place.cwd, env: cxcEnv() });
}

/** `opencode run` (with `--session <id>` to continue one); the words of the prompt as arguments. */
async function opencodeRun(prompt: string, session?: string): Promise<void> {
  const args = ["run", ...(session === undefined ? [] : ["--session", session]), ...prompt.split(" ")];
  const result = await runAgent(opencode, args, { cwd: place.cwd, env: opencodeEnvironment(place) });
  expect(result.code, `opencode: ${result.stderr.slice(-800)}`).toBe(0);
}

/** The newest session's id (`opencode session list`). */
async function newestSession(): Promise<string> {
  const listed = await runAgent(opencode, ["session", "list", "--format", "json"], {
    cwd: place.cwd,
    env: opencodeEnvironment(place),
  });
  const sessions = JSON.parse(listed.stdout) as { id: string; created: number }[];
  return sessions.sort((left, right) => right.created - left.created)[0]!.id;
}

type Message = { role: string; content: unknown };

/** Resumes a session and returns the messages opencode sent for the new prompt. */
async function resumeMessages(id: string): Promise<Message[]> {
  fake.enqueue(textReply("Nothing else."));
  const before = fake.requests.length;
  await opencodeRun("Anything else?", id);
  const turns = fake.requests.slice(before).filter((request) => request.route === undefined);
  expect(turns).toHaveLength(1);
  return (turns[0]!.body as { messages: Message[] }).messages;
}

/** The text of the messages without the new prompt (`callNames`: see `messageTexts`). */
function texts(messages: readonly Message[], callNames = false): string[] {
  return messageTexts(messages, callNames).filter((text) => text !== "Anything else?");
}

const tokensOf = (messages: readonly Message[]) =>
  texts(messages).reduce((sum, text) => sum + countTokens(text), 0);

/**
 * A request's tokens as cxc's dry run counts the view it stands for: each leaf as cxc counts its
 * event (a call with its name), and the opening summary as cxc's summary turn (its request
 * `[Summary of previous conversation]` and `summary`) instead of the shape of opencode's own
 * compaction (`What did we do so far?` and the summary as the reply), which the test checks exactly.
 */
const viewTokensOf = (messages: readonly Message[], summary: string) =>
  [SUMMARY_REQUEST_TEXT, summary, ...texts(messages, true).slice(2)].reduce(
    (sum, text) => sum + countTokens(text),
    0,
  );

/** cxc's view as `print --format anthropic` gives it, without the recall index (cxc q's alone). */
const printedView = (stdout: string) =>
  messageTexts((JSON.parse(stdout) as { messages: Message[] }).messages).filter(
    (text) => !text.startsWith(RECALL_INDEX_HEADING),
  );

function importedId(stdout: string): string {
  const match = / as ([0-9a-z]{13}) /.exec(stdout);
  if (match === null) throw new Error(`no conversation id in:\n${stdout}`);
  return match[1]!;
}

function exportedSession(stdout: string): string {
  const match = /Continue it with: (?:cd \S+ && )?opencode --session (ses_\w+)/.exec(stdout);
  if (match === null) throw new Error(`no resume command in:\n${stdout}`);
  return match[1]!;
}

beforeAll(async () => {
  opencode = requireAgent(PROJECT_ROOT, "opencode");
  ({ root, place } = newAgentPlace("cxc-opencode-e2e-"));
  opencodeBin = join(root, "bin");
  mkdirSync(opencodeBin);
  symlinkSync(opencode, join(opencodeBin, "opencode"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  writeFileSync(join(place.cwd, "big.txt"), `${BIG}\n`);
  writeFileSync(join(place.cwd, "data.txt"), `${DATA}\n`);
  fake = await startFakeProvider({
    routes: [
      { bodyIncludes: OPENCODE_TITLE_PROMPT, reply: textReply("Notes and the changelog") },
      { bodyIncludes: OPENCODE_COMPACT_PROMPT, reply: textReply(OWN_SUMMARY) },
    ],
  });
  // A small window: a reply reporting 18,000 input tokens makes opencode compact after it.
  writeOpencodeConfig(place.home, fake.url, { context: 20_000, output: 4096 });
  cxcHome = makeTempHome();

  const read = (file: string, id: string) =>
    ({ type: "tool-call", id, name: "read", arguments: { filePath: join(place.cwd, file) } }) as const;
  const script: FakeReply[][] = [
    [
      {
        blocks: [
          { type: "thinking", text: "The notes are in notes.txt.", signature: "sig-opencode-1" },
          read("notes.txt", "toolu_notes"),
        ],
      },
      textReply(ANSWERS[0]!),
    ],
    [
      {
        blocks: [
          {
            type: "tool-call",
            id: "toolu_changelog",
            name: "bash",
            arguments: { command: "cat CHANGELOG.md", description: "Read the changelog" },
          },
        ],
      },
      textReply(ANSWERS[1]!, { usage: { inputTokens: 18_000 } }),
      // After its compaction opencode goes on by itself ("Continue if you have next steps…").
      textReply(CONTINUED),
    ],
    [{ blocks: [read("big.txt", "toolu_big")] }, textReply(ANSWERS[2]!)],
    [{ blocks: [read("data.txt", "toolu_data")] }, textReply(ANSWERS[3]!)],
    [textReply(ANSWERS[4]!)],
  ];
  fake.enqueue(...script[0]!);
  await opencodeRun(PROMPTS[0]!);
  sessionId = await newestSession();
  for (const turn of [1, 2, 3, 4]) {
    fake.enqueue(...script[turn]!);
    await opencodeRun(PROMPTS[turn]!, sessionId);
  }
  expect(fake.remaining()).toBe(0);
  expect(fake.requests.some((request) => request.route === 1)).toBe(true);
}, 180_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("opencode sessions, end to end with the real agent", () => {
  let conversation: string;
  /** The sessions `export --to opencode` made, each resumed once. */
  const exportedSessions: string[] = [];

  it("imports the session whole from opencode's database, its compaction as an overlay, the same through either reader", async () => {
    const database = opencodeDatabase(place);
    const result = await cxc(["conversation", "import", database]);
    expect(result.exitCode, result.stderr).toBe(0);
    conversation = importedId(result.stdout);
    expect(result.stdout).toContain(`Imported opencode session ${database}#${sessionId} as ${conversation}`);
    expect(result.stdout).toMatch(/messages read: 6 turns, 1 compaction of opencode's as an overlay/);
    const shown = JSON.parse(
      (await cxc(["conversation", "show", conversation, "--format", "json"])).stdout,
    ) as {
      turns: number;
      source: string;
      compactions: { from_turn: number; to_turn: number; summary: string; note: string }[];
    };
    expect(shown).toMatchObject({ turns: 6, source: "opencode" });
    expect(shown.compactions).toEqual([
      expect.objectContaining({
        from_turn: 1,
        to_turn: 2,
        summary: OWN_SUMMARY,
        note: "opencode's own compaction",
      }),
    ]);
    const raw = (await cxc(["conversation", "print", conversation, "--style", "full"])).stdout;
    for (const text of [
      ...PROMPTS,
      ...ANSWERS,
      CONTINUED,
      "remember the milk",
      "No such file",
      "parser line 150",
    ]) {
      expect(raw, text).toContain(text);
    }
    const view = (await cxc(["conversation", "print", conversation, "--compacted", "--style", "full"]))
      .stdout;
    expect(view).toContain(OWN_SUMMARY);
    expect(view).not.toContain(ANSWERS[0]);
    expect((await cxc(["conversation", "ls"])).stdout).toMatch(
      new RegExp(`${conversation}\\s+6\\s+.*opencode`),
    );

    // cxc's own reader (node:sqlite) gives the very same conversation.
    const node = nodeWithSqlite(PROJECT_ROOT);
    if (node === undefined) return;
    const other = makeTempHome();
    try {
      const { execa } = await import("execa");
      const direct = await execa(node, [CXC_BIN, "--format", "json", "conversation", "import", database], {
        cwd: place.cwd,
        env: { ...other.env, ...opencodeEnvironment(place) },
        extendEnv: false,
        reject: false,
      });
      expect(direct.exitCode, String(direct.stderr)).toBe(0);
      const printed = (home: TempHome, id: string) =>
        home.run(["--format", "json", "conversation", "print", id], { env: opencodeEnvironment(place) });
      const [ours, theirs] = await Promise.all([
        printed(cxcHome, conversation),
        printed(other, conversation),
      ]);
      expect(JSON.parse(theirs.stdout)).toEqual(JSON.parse(ours.stdout));
    } finally {
      other.cleanup();
    }
  });

  it("exports cxc's compacted view through opencode import, and opencode resumes it smaller by what the dry runs promised", async () => {
    const baseline = await cxc(["conversation", "export", conversation, "--to", "opencode"]);
    expect(baseline.exitCode, baseline.stderr).toBe(0);
    exportedSessions.push(exportedSession(baseline.stdout));
    const before = await resumeMessages(exportedSessions[0]!);
    // opencode's own summary opens the baseline, in the shape of its own compaction; the rest is
    // cxc's view, but for its recall index, which only cxc q sends.
    expect(texts(before).slice(0, 2)).toEqual([OPENCODE_COMPACTION_PROMPT, OWN_SUMMARY]);
    const viewBefore = printedView(
      (await cxc(["--format", "anthropic", "conversation", "print", conversation])).stdout,
    );
    expect(viewBefore.slice(0, 2)).toEqual([SUMMARY_REQUEST_TEXT, OWN_SUMMARY]);
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

    const exported = await cxc(["conversation", "export", conversation, "--to", "opencode"]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    exportedSessions.push(exportedSession(exported.stdout));
    const after = await resumeMessages(exportedSessions[1]!);
    const sent = JSON.stringify(after);
    const view = printedView(
      (await cxc(["--format", "anthropic", "conversation", "print", conversation])).stdout,
    );
    expect(view[0]).toBe(SUMMARY_REQUEST_TEXT);
    expect(view[1]).toContain("## Digest of turns 1..4");
    expect(texts(after)[0]).toBe(OPENCODE_COMPACTION_PROMPT);
    expect(texts(after)[1]).toBe(framedSummary(view[1]!));
    expect(texts(after).slice(2)).toEqual(view.slice(2));
    expect(sent).toContain(RULE);
    for (const kept of [PROMPTS[3]!, ANSWERS[3]!, "lexer line 150", PROMPTS[4]!, ANSWERS[4]!]) {
      expect(sent).toContain(kept);
    }
    for (const gone of [OWN_SUMMARY, "parser line 150", ANSWERS[0]!, CONTINUED])
      expect(sent).not.toContain(gone);

    // Exactly the saving the dry runs promised: the two requests counted as cxc counts the views they
    // carry (leaf for leaf the same, as checked above). Counted as sent, the saving differs by what
    // cannot be the same: the export's framing of the opening summary and opencode's request for it
    // (cxc's view has its `[Summary of previous conversation]` request instead), and the calls'
    // names, which opencode sends apart from their input (cxc counts a call as one text).
    const promised = plan1.before - plan1.after + (plan2.before - plan2.after);
    expect(viewTokensOf(before, OWN_SUMMARY)).toBe(plan1.before);
    expect(viewTokensOf(after, view[1]!)).toBe(plan2.after);
    const measured = tokensOf(before) - tokensOf(after);
    console.log(
      `opencode: dry runs promised ${promised} tokens (-k r+t:..-2 ${plan1.before - plan1.after}, -k s:..-2 ${plan2.before - plan2.after}); the resumed requests counted as cxc counts views: ${viewTokensOf(before, OWN_SUMMARY)} → ${viewTokensOf(after, view[1]!)}; as sent, smaller by ${measured} (${tokensOf(before)} → ${tokensOf(after)})`,
    );
    expect(promised).toBeGreaterThan(1000);
    // Two exports through opencode import and two opencode runs: a loaded machine took over 30 s.
  }, 120_000);

  it("brings back with import --update the imported session grown in opencode and the exported ones it resumed, keeping cxc's compactions", async () => {
    const database = opencodeDatabase(place);
    const before = JSON.parse(
      (await cxc(["--format", "json", "conversation", "show", conversation])).stdout,
    ) as { turns: number; compactions: unknown[] };
    fake.enqueue(textReply("The parser goes in src/parse.ts."));
    await opencodeRun("Where does the parser go?", sessionId);
    const updated = await cxc(["conversation", "import", database, "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    // One line per session a conversation came from: imported from it, or exported to it (both
    // exports above, each resumed with one prompt); none is left out.
    const lines = updated.stdout.trimEnd().split("\n").sort();
    const line = (via: string, session: string) =>
      new RegExp(
        `^Updated ${conversation} \\(${via}\\) from ${database}#${session}: \\d+ events appended \\(1 new turn, now \\d+ turns\\)\\.$`,
      );
    expect(lines).toHaveLength(3);
    expect(lines.filter((text) => line("imported from it", sessionId).test(text))).toHaveLength(1);
    for (const exported of exportedSessions)
      expect(lines.filter((text) => line("exported to it", exported).test(text))).toHaveLength(1);
    expect(updated.stderr).not.toContain("never imported");
    const after = JSON.parse(
      (await cxc(["--format", "json", "conversation", "show", conversation])).stdout,
    ) as { turns: number; compactions: unknown[] };
    expect(after.turns).toBe(before.turns + 3);
    expect(after.compactions).toEqual(before.compactions);
    const raw = (await cxc(["conversation", "print", conversation, "--last", "3"])).stdout;
    for (const text of [
      "Where does the parser go?",
      "The parser goes in src/parse.ts.",
      "Anything else?",
      "Nothing else.",
    ])
      expect(raw, text).toContain(text);
    const again = await cxc(["conversation", "import", database, "--update"]);
    expect(again.stdout.trimEnd().split("\n").sort()).toEqual(
      [
        `Nothing new in ${database}#${sessionId}: ${conversation} (imported from it) holds all of it.`,
        ...exportedSessions.map(
          (exported) =>
            `Nothing new in ${database}#${exported}: ${conversation} (exported to it) holds all of it.`,
        ),
      ].sort(),
    );
  }, 120_000);

  it("refuses the whole update when one session of the database changed: nothing is appended to any", async () => {
    const node = nodeWithSqlite(PROJECT_ROOT);
    if (node === undefined) return;
    const turns = async () =>
      (
        JSON.parse((await cxc(["--format", "json", "conversation", "show", conversation])).stdout) as {
          turns: number;
        }
      ).turns;
    const before = await turns();
    // The imported session grows again (its new turn alone would be appended)...
    fake.enqueue(textReply("The tests go in test/."));
    await opencodeRun("Where do the tests go?", sessionId);
    // ...and in a copy of the database a prompt of the first export, already brought back, changed.
    const copy = join(root, "opencode-changed.db");
    const { execa } = await import("execa");
    const edited = await execa(
      node,
      [
        "-e",
        `const { DatabaseSync } = require("node:sqlite");
         const [source, copy, session, text] = process.argv.slice(1);
         new DatabaseSync(source).exec(\`VACUUM INTO '\${copy}'\`);
         const changed = new DatabaseSync(copy)
           .prepare("UPDATE part SET data = json_set(data, '$.text', 'EDITED') WHERE session_id = ? AND json_extract(data, '$.text') = ?")
           .run(session, text);
         process.stdout.write(String(changed.changes));`,
        opencodeDatabase(place),
        copy,
        exportedSessions[0]!,
        PROMPTS[4]!,
      ],
      { reject: false },
    );
    expect(edited.stdout, String(edited.stderr)).toBe("1");
    const refused = await cxc(["conversation", "import", copy, "--update"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^cxc: error: ${copy}#${exportedSessions[0]}: the session no longer begins with the compacted view of ${conversation} cxc exported there \\(event \\d+ of \\d+ differs: turn \\d+, a user message \\("EDITED"\\)\\)`,
      ),
    );
    expect(await turns()).toBe(before);
    // The database as opencode keeps it brings the new turn in.
    const updated = await cxc(["conversation", "import", opencodeDatabase(place), "--update"]);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(updated.stdout).toContain(`Updated ${conversation} (imported from it)`);
    expect(await turns()).toBe(before + 1);
  }, 120_000);

  it("refuses a database a running process holds locked, in one error, and imports nothing", async () => {
    const node = nodeWithSqlite(PROJECT_ROOT);
    if (node === undefined) return;
    const holder: ChildProcess = spawn(
      node,
      [
        "-e",
        `const { DatabaseSync } = require("node:sqlite");
         const db = new DatabaseSync(process.argv[1]);
         db.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; SELECT count(*) FROM session;");
         db.exec("UPDATE session SET title = title WHERE 0");
         process.stdout.write("locked\\n");
         setInterval(() => {}, 1000);`,
        opencodeDatabase(place),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      // The holder says when it holds the lock; one that cannot take it exits, failing the test.
      await new Promise((resolve, reject) => {
        holder.stdout!.once("data", resolve);
        holder.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
      });
      const other = makeTempHome();
      try {
        const { execa } = await import("execa");
        const result = await execa(node, [CXC_BIN, "conversation", "import", opencodeDatabase(place)], {
          cwd: place.cwd,
          env: { ...other.env, ...opencodeEnvironment(place) },
          extendEnv: false,
          reject: false,
        });
        expect(result.exitCode).toBe(1);
        expect(String(result.stderr)).toMatch(
          /^cxc: error: .*opencode\.db: the database is locked \(a running opencode is writing to it\); nothing was imported\n/,
        );
        expect((await other.run(["conversation", "ls", "--format", "json"])).stdout.trim()).toBe("[]");
      } finally {
        other.cleanup();
      }
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
