/**
 * cxc's hooks inside the real Gemini CLI (agents/, installed by .ci/run), offline against the
 * loopback fake provider's Gemini API in a temporary HOME: `cxc hooks install --agent gemini`
 * merges into the settings Gemini CLI runs with (and uninstall gives them back byte for byte);
 * over a low notice line the `AfterAgent` hook advises (its record names the tier); after Gemini
 * CLI's own compression, with a summary that drops everything, Gemini's next request carries the
 * user's binding sentence verbatim and the file read, after the summary, and so does the first
 * request of the next run, which loads the compressed history from the file. Three Gemini CLI runs
 * of about three seconds each, in order.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
  GEMINI_MODEL,
  geminiEnvironment,
  runAgent,
  writeGeminiSettings,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const RULE = "Never touch the migrations folder.";
const SNAPSHOT = "<state_snapshot>The user and the assistant talked about a small project.</state_snapshot>";
const LINES = {
  CXC_ADVISOR_NOTICE_TOKENS: "5",
  CXC_ADVISOR_RECOMMEND_TOKENS: "100000000",
  CXC_ADVISOR_REQUEST_TOKENS: "200000000",
};
const HEADING = "cxc kept these facts of the conversation before this compaction";

type Content = { role: string; parts: { text?: string }[] };

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let gemini: string;
let cxcHome: TempHome;
let settings: string;
let sessionId: string;

function cxc(args: string[]) {
  return cxcHome.run(args, { cwd: place.cwd, env: { HOME: place.home, GEMINI_CLI_HOME: place.home } });
}

/** One headless Gemini CLI run, the session resumed after the first. */
async function geminiRun(prompt: string): Promise<void> {
  const resume = sessionId === undefined ? [] : ["--resume", sessionId];
  const result = await runAgent(
    gemini,
    ["-m", GEMINI_MODEL, "--yolo", "-o", "json", ...resume, "-p", prompt],
    { cwd: place.cwd, env: { ...geminiEnvironment(place, fake.url), ...LINES } },
  );
  expect(result.code, `gemini: ${result.stderr.slice(-800)}`).toBe(0);
  sessionId ??= (JSON.parse(result.stdout) as { session_id: string }).session_id;
}

/** The contents of the model requests (not the summarizer's) sent since `from`. */
function turnRequests(from: number): Content[][] {
  return fake.requests
    .slice(from)
    .filter((request) => request.route === undefined)
    .map((request) => (request.body as { contents: Content[] }).contents);
}

const textOf = (content: Content) => content.parts.map((part) => part.text ?? "").join("");

beforeAll(async () => {
  gemini = requireAgent(PROJECT_ROOT, "gemini");
  ({ root, place } = newAgentPlace("cxc-gemini-hooks-"));
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  writeGeminiSettings(place.home);
  settings = join(place.home, ".gemini", "settings.json");
  fake = await startFakeProvider({
    routes: [
      { bodyIncludes: "generate the updated <state_snapshot>", reply: textReply(SNAPSHOT) },
      { bodyIncludes: "Critically evaluate the <state_snapshot>", reply: textReply(SNAPSHOT) },
    ],
  });
  cxcHome = makeTempHome();
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("cxc's hooks inside Gemini CLI", () => {
  let before: string;

  it("installs beside the user's settings, and advises at AfterAgent over a low notice line", async () => {
    before = readFileSync(settings, "utf8");
    const installed = await cxc(["hooks", "install", "--agent", "gemini"]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8").startsWith(before.slice(0, -3))).toBe(true);

    fake.enqueue(
      {
        blocks: [
          { type: "tool-call", id: "unused", name: "read_file", arguments: { file_path: "notes.txt" } },
        ],
      },
      textReply("Your notes say: remember the milk."),
    );
    await geminiRun(`${RULE} What do my notes say?`);
    const record = JSON.parse(
      readFileSync(
        join(place.home, ".local", "state", "cxc", "hooks", "gemini", `${sessionId}.json`),
        "utf8",
      ),
    ) as { last_announced?: string };
    expect(record.last_announced).toBe("notice");
  }, 60_000);

  it("brings the binding sentence and the file read back after Gemini CLI compresses, in the next request and the next run", async () => {
    const from = fake.requests.length;
    fake.enqueue(
      {
        blocks: [{ type: "tool-call", id: "unused", name: "list_directory", arguments: { dir_path: "." } }],
        // Over half of the model's window: Gemini CLI compresses before its next call.
        usage: { inputTokens: 600_000 },
      },
      textReply("There is notes.txt."),
    );
    await geminiRun("What else is there?");
    expect(fake.requests.slice(from).map((request) => request.route)).toEqual([undefined, 0, 1, undefined]);
    const [, after] = turnRequests(from);
    // Gemini CLI sends its context message and the summary as one content.
    const summary = after!.findIndex((content) => textOf(content).includes(SNAPSHOT));
    expect(summary).toBeGreaterThan(-1);
    const restored = textOf(after![summary]!);
    expect(restored).toContain(HEADING);
    expect(restored).toContain(`- "${RULE}" (turn 1)`);
    expect(restored).toContain("Files read: notes.txt");
    expect(textOf(after![summary + 1]!)).toBe("Got it. Thanks for the additional context!");
    // The conversation after the summary goes out as Gemini CLI built it.
    expect(after!.slice(summary + 1).some((content) => textOf(content).includes(HEADING))).toBe(false);

    const next = fake.requests.length;
    fake.enqueue(textReply("Nothing else."));
    await geminiRun("Anything else?");
    const [first] = turnRequests(next);
    const again = first!.find((content) => textOf(content).includes(SNAPSHOT));
    expect(again === undefined ? "" : textOf(again)).toContain(`- "${RULE}" (turn 1)`);
    expect(fake.remaining()).toBe(0);
  }, 90_000);

  it("uninstall gives the settings back byte for byte", async () => {
    const removed = await cxc(["hooks", "uninstall", "--agent", "gemini"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(before);
    const log = join(place.home, ".local", "state", "cxc", "hooks.log");
    expect(() => readFileSync(log, "utf8")).toThrow();
  });
});
