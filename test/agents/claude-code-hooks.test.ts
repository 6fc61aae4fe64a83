/**
 * cxc's hooks inside the real Claude Code (agents/, installed by .ci/run), offline against the
 * loopback fake provider in a temporary HOME: `cxc hooks install` merges into a settings file that
 * already holds the user's own hooks (and uninstall gives it back byte for byte); over a low notice
 * line the Stop hook's advice reaches the user (Claude Code's `systemMessage`, shown in its
 * stream-json output), first on the token lines, then with a decision model and the cut point
 * quoted; after `/compact` with a summary that drops everything, Claude Code's next request
 * carries the restore: the user's binding sentence and the files the session modified. The steps
 * share one session and run in order; each Claude Code start costs about a second.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  claudeCodeEnvironment,
  messageTexts,
  runAgent,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const MODEL = "claude-sonnet-4-5";
const CLAUDE_COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far";
const BINDING = "Never touch the migrations folder.";
const PROMPTS = [
  `${BINDING} Fix the greeting in src/app.ts.`,
  "Now add a README.",
  "Then write the changelog.",
  "What is left?",
];
const SUMMARY = "The user and the assistant talked about a small project.";
// With a byte-order mark, which the pinned Claude Code reads (and cxc keeps).
const USERS_SETTINGS = `\uFEFF{
  "permissions": {
    "allow": ["Bash(ls)"]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [{ "type": "command", "command": "true" }]
      }
    ]
  }
}
`;
const LINES = {
  CXC_ADVISOR_NOTICE_TOKENS: "5",
  CXC_ADVISOR_RECOMMEND_TOKENS: "10",
  CXC_ADVISOR_REQUEST_TOKENS: "100000000",
};

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name, arguments: input }) as const;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let claude: string;
let cxcHome: TempHome;
let sessionId: string;
let settings: string;

/** One Claude Code run in the session; returns what it printed as stream-json events. */
async function claudeRun(
  prompt: string,
  env: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const resume = sessionId === undefined ? [] : ["--resume", sessionId];
  const result = await runAgent(
    claude,
    [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      MODEL,
      "--allowedTools",
      "Read Edit Write",
      ...resume,
    ],
    { cwd: place.cwd, env: { ...claudeCodeEnvironment(place, fake.url), ...env } },
  );
  expect(result.code, `claude: ${result.stderr.slice(0, 400)} ${result.stdout.slice(-400)}`).toBe(0);
  const events = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  sessionId ??= events.find((event) => typeof event.session_id === "string")!.session_id as string;
  return events;
}

/** What the hooks showed the user in one run (Claude Code's `informational` system events). */
function shown(events: readonly Record<string, unknown>[]): string {
  return events
    .filter((event) => event.type === "system" && event.subtype === "informational")
    .map((event) => String(event.content))
    .join("\n");
}

function cxc(args: string[]) {
  return cxcHome.run(args, { cwd: place.cwd, env: { HOME: place.home } });
}

beforeAll(async () => {
  claude = requireAgent(PROJECT_ROOT, "claude");
  ({ root, place } = newAgentPlace("cxc-claude-hooks-"));
  mkdirSync(join(place.cwd, "src"), { recursive: true });
  mkdirSync(join(place.cwd, "migrations"), { recursive: true });
  writeFileSync(join(place.cwd, "src", "app.ts"), 'export const greeting = "helo";\n');
  writeFileSync(join(place.cwd, "migrations", "0001.sql"), "create table t (id int);\n");
  settings = join(place.home, ".claude", "settings.json");
  mkdirSync(join(place.home, ".claude"), { recursive: true });
  writeFileSync(settings, USERS_SETTINGS);
  const answers = {
    switched_gears: 0.9,
    at_boundary: 0.9,
    needs_history: 0.1,
    mid_operation: 0.1,
  };
  fake = await startFakeProvider({
    routes: [
      { bodyIncludes: CLAUDE_COMPACT_PROMPT, reply: textReply(`<summary>${SUMMARY}</summary>`) },
      {
        bodyIncludes: '"pick_live_from"',
        reply: { blocks: [call("d2", "pick_live_from", { live_from_turn: 3, confidence: 0.9 })] },
      },
      { bodyIncludes: '"answer_questions"', reply: { blocks: [call("d1", "answer_questions", answers)] } },
    ],
  });
  cxcHome = makeTempHome();
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("cxc's hooks inside the real Claude Code", () => {
  it("installs beside the user's own hooks, once, and uninstalls back to their file byte for byte", async () => {
    const installed = await cxc(["hooks", "install", "--agent", "claude-code", "--user"]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    const merged = readFileSync(settings, "utf8");
    expect(merged.startsWith("\uFEFF{")).toBe(true);
    expect(JSON.parse(merged.slice(1)).hooks.Stop[0]).toEqual({
      hooks: [{ type: "command", command: "true" }],
    });
    expect((await cxc(["hooks", "install"])).stdout).toContain("already installed");
    expect(readFileSync(settings, "utf8")).toBe(merged);
    expect((await cxc(["hooks", "uninstall"])).exitCode).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(USERS_SETTINGS);
    expect((await cxc(["hooks", "install"])).exitCode).toBe(0);
  });

  it("shows the advice over a low notice line: token lines first, then the four questions and the cut point", async () => {
    const script: FakeReply[][] = [
      [
        { blocks: [call("toolu_h_read", "Read", { file_path: join(place.cwd, "src", "app.ts") })] },
        {
          blocks: [
            call("toolu_h_edit", "Edit", {
              file_path: join(place.cwd, "src", "app.ts"),
              old_string: '"helo"',
              new_string: '"hello"',
            }),
          ],
        },
        textReply("Fixed the greeting."),
      ],
      [
        {
          blocks: [
            call("toolu_h_write", "Write", { file_path: join(place.cwd, "README.md"), content: "# app\n" }),
          ],
        },
        textReply("Added the README."),
      ],
      [
        {
          blocks: [
            call("toolu_h_log", "Write", { file_path: join(place.cwd, "CHANGELOG.md"), content: "# log\n" }),
          ],
        },
        textReply("Wrote it."),
      ],
    ];
    fake.enqueue(...script[0]!);
    // One turn of three cycles: its first two (the read, the edit) can be compacted, so the advice
    // comes at its end.
    const first = shown(await claudeRun(PROMPTS[0]!, LINES));
    expect(readFileSync(join(place.cwd, "src", "app.ts"), "utf8")).toContain('"hello"');
    expect(first).toContain("cxc advisor: Recommended: compact now. Context is at");
    expect(first).toContain("(token lines only: no decision model answered)");
    expect(first).toContain(
      `To compact, type: /compact Keep the user's instructions verbatim: "${BINDING}"; keep the list of files modified: src/app.ts.`,
    );
    expect(first).toContain("no decision model is configured");

    // Still at the recommend line: the same tier is not shown twice in a row.
    fake.enqueue(...script[1]!);
    const second = shown(await claudeRun(PROMPTS[1]!, LINES));
    expect(second).toBe("");

    const decisions = fake.requests.length;
    fake.enqueue(...script[2]!);
    const third = shown(
      await claudeRun(PROMPTS[2]!, {
        ...LINES,
        CXC_ADVISOR_REQUEST_TOKENS: "12",
        CXC_ADVISOR_MODEL: "anthropic/claude-haiku-4-5",
      }),
    );
    // An escalation is shown; the words follow the number: far from the window, not "nearly full".
    expect(third).toContain(
      "cxc advisor: Compaction requested: the context is past the request line you set.",
    );
    expect(third).toContain("past the request line and the task changed");
    expect(third).toContain(
      `The live work starts at the request "${PROMPTS[2]}": keep it and everything after it in full.`,
    );
    expect(third).not.toContain("no decision model is configured");
    const asked = fake.requests.slice(decisions).map((request) => JSON.stringify(request.body));
    expect(asked.filter((body) => body.includes('"answer_questions"'))).toHaveLength(1);
    expect(asked.filter((body) => body.includes('"pick_live_from"'))).toHaveLength(1);
  });

  it("restores the binding sentence and the files modified after /compact with a summary that drops them", async () => {
    await claudeRun("/compact");
    fake.enqueue(textReply("The changelog is left."));
    const before = fake.requests.length;
    await claudeRun(PROMPTS[3]!);
    const turns = fake.requests
      .slice(before)
      .filter((request) => request.route === undefined)
      .map((request) => messageTexts((request.body as { messages: unknown }).messages));
    expect(turns).toHaveLength(1);
    const texts = turns[0]!;
    expect(texts.some((text) => text.includes(SUMMARY))).toBe(true);
    const restore = texts.find((text) =>
      text.includes("SessionStart hook additional context: cxc kept these facts"),
    );
    expect(restore, texts.join("\n---\n").slice(0, 3000)).toBeDefined();
    expect(restore).toContain(`- "${BINDING}" (turn 1)`);
    expect(restore).toContain("Files modified: src/app.ts, README.md, CHANGELOG.md");
    // The summary Claude Code wrote holds none of it.
    const summary = texts.find((text) => text.includes(SUMMARY))!;
    expect(summary).not.toContain(BINDING);
    expect((await cxc(["hooks", "status"])).stdout).toContain("Hook log");
    const status = await cxc(["--format", "json", "hooks", "status"]);
    expect(JSON.parse(status.stdout).log.failures).toBe(0);
  });
  it("runs from the project's settings.local.json after `install --local`, and `uninstall --local` takes it out", async () => {
    expect((await cxc(["hooks", "uninstall"])).exitCode).toBe(0);
    const local = join(place.cwd, ".claude", "settings.local.json");
    const installed = await cxc(["hooks", "install", "--local"]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    fake.enqueue(textReply("Nothing is left."));
    const shownLocally = shown(
      await claudeRun("Anything else?", { ...LINES, CXC_ADVISOR_RECOMMEND_TOKENS: "6" }),
    );
    expect(shownLocally).toContain("cxc advisor:");
    expect((await cxc(["hooks", "uninstall", "--local"])).stdout).toContain(
      `Removed cxc's Claude Code hooks from ${local}`,
    );
    expect(readFileSync(local, "utf8")).toBe("{}\n");
  });
});
