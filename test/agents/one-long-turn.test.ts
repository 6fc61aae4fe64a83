/**
 * The commonest agent session, one request answered by 20 tool calls, inside the real Claude Code
 * and pi (agents/, offline against the loopback fake, which reports the usage it counts): cxc's
 * advice comes at the end of that one turn (its earlier cycles can be compacted), with the cut
 * inside the turn where the agent allows it. Claude Code's `/compact` line names the call the live
 * work starts at, quoted from it; pi's compaction, whose own cut splits the turn, keeps the turn
 * from the assistant message of the picked cycle on. An imported session's figure is the agent's
 * last reported usage.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  claudeCodeEnvironment,
  claudeProjectDirectory,
  PI_MODEL,
  PI_PROVIDER,
  PiRpc,
  type PiRpcEvent,
  piEnvironment,
  piSessionDirectory,
  runAgent,
  writePiConfig,
} from "../helpers/agents.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, type FakeReply, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const CALLS = 20;
const PROMPT = "Read every part of the report, one after another, and tell me what it says.";
const ANSWERS = { switched_gears: 0.9, at_boundary: 0.9, needs_history: 0.1, mid_operation: 0.1 };
/** The live work starts at cycle 15 of the turn (1-based): its call 15, the 15th part. */
const LIVE_CYCLE = 15;
const PI_SUMMARY_SYSTEM = "You are a context summarization assistant";

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name, arguments: input }) as const;

let fake: FakeProvider;
let root: string;
let cxcHome: TempHome;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "cxc-one-long-turn-"));
  fake = await startFakeProvider({
    countUsage: true,
    routes: [
      { bodyIncludes: PI_SUMMARY_SYSTEM, reply: textReply("## Goal\nRead the report.") },
      {
        bodyIncludes: '"pick_live_from"',
        reply: {
          blocks: [
            call("d2", "pick_live_from", { live_from_turn: 1, live_from_cycle: LIVE_CYCLE, confidence: 0.9 }),
          ],
        },
      },
      { bodyIncludes: '"answer_questions"', reply: { blocks: [call("d1", "answer_questions", ANSWERS)] } },
    ],
  });
  cxcHome = makeTempHome();
}, 60_000);

afterAll(async () => {
  await fake?.close();
  cxcHome?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

/** A project with the 20 parts of a report. */
function project(name: string): AgentPlace {
  const place = { home: join(root, name, "home"), cwd: join(root, name, "project") };
  mkdirSync(place.home, { recursive: true });
  mkdirSync(place.cwd, { recursive: true });
  for (let part = 1; part <= CALLS; part++)
    writeFileSync(
      join(place.cwd, `part-${part}.txt`),
      `Part ${part}: ${"the figures are fine. ".repeat(20)}\n`,
    );
  return place;
}

/** The 20 calls of the one turn, then its answer. */
function script(place: AgentPlace, tool: string, argument: string): FakeReply[] {
  return [
    ...Array.from({ length: CALLS }, (_, index) => ({
      blocks: [
        call(`toolu_part_${index + 1}`, tool, { [argument]: join(place.cwd, `part-${index + 1}.txt`) }),
      ],
    })),
    textReply("Every part says the figures are fine."),
  ];
}

const LINES = { notice: "5", recommend: "10", request: "100000000" };

describe("one request answered by 20 tool calls", () => {
  it("Claude Code: the Stop hook advises at the end of the turn, the live work starting at a call inside it", async () => {
    const claude = requireAgent(PROJECT_ROOT, "claude");
    const place = project("claude");
    const installed = await cxcHome.run(["hooks", "install", "--agent", "claude-code", "--user"], {
      cwd: place.cwd,
      env: { HOME: place.home },
    });
    expect(installed.exitCode, installed.stderr).toBe(0);
    fake.enqueue(...script(place, "Read", "file_path"));
    const result = await runAgent(
      claude,
      [
        "-p",
        PROMPT,
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        "claude-sonnet-4-5",
        "--allowedTools",
        "Read",
      ],
      {
        cwd: place.cwd,
        env: {
          ...claudeCodeEnvironment(place, fake.url),
          CXC_ADVISOR_NOTICE_TOKENS: LINES.notice,
          CXC_ADVISOR_RECOMMEND_TOKENS: LINES.recommend,
          CXC_ADVISOR_REQUEST_TOKENS: LINES.request,
          CXC_ADVISOR_MODEL: "anthropic/claude-haiku-4-5",
        },
      },
    );
    expect(result.code, result.stderr.slice(0, 400)).toBe(0);
    const shown = result.stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === "system" && event.subtype === "informational")
      .map((event) => String(event.content))
      .join("\n");
    expect(shown).toContain("cxc advisor: Recommended: compact now. Context is at");
    expect(shown).toContain(
      `The live work starts at call ${LIVE_CYCLE} (Read {"file_path":"${join(place.cwd, `part-${LIVE_CYCLE}.txt`)}"})`,
    );

    // The session imported: its figure is Claude Code's last reported usage, its system prompt and
    // tools included.
    const [file] = readdirSync(claudeProjectDirectory(place)).filter((name) => name.endsWith(".jsonl"));
    const transcript = join(claudeProjectDirectory(place), file!);
    const lastUsage = readFileSync(transcript, "utf8")
      .split("\n")
      .filter((line) => line.includes('"type":"assistant"'))
      .map((line) => (JSON.parse(line) as { message: { usage: Record<string, number> } }).message.usage)
      .at(-1)!;
    const imported = await cxcHome.run(["conversation", "import", transcript]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const stats = JSON.parse((await cxcHome.run(["--format", "json", "conversation", "stats"])).stdout);
    expect(stats.context).toMatchObject({
      tokens:
        lastUsage.input_tokens! +
        lastUsage.output_tokens! +
        lastUsage.cache_read_input_tokens! +
        lastUsage.cache_creation_input_tokens!,
      tokens_source: "reported",
      reported_by: "claude-code",
    });
    expect(stats.context.tokens).toBeGreaterThan(5000);
  });

  it("pi: the extension advises during the turn, and moves pi's cut inside its split turn onto the live cycle", async () => {
    const pi = requireAgent(PROJECT_ROOT, "pi");
    const place = project("pi");
    // A tiny budget of recent tokens: pi's own cut falls inside the one turn (a split turn).
    writePiConfig(place.home, fake.url, { compaction: { keepRecentTokens: 1 } });
    const notices: string[] = [];
    const rpc = new PiRpc(pi, ["--provider", PI_PROVIDER, "--model", PI_MODEL, "-e", PROJECT_ROOT], {
      cwd: place.cwd,
      env: {
        ...piEnvironment(place),
        AE_PI_COMPACT_ADVISOR_NOTICE_TOKENS: LINES.notice,
        AE_PI_COMPACT_ADVISOR_RECOMMEND_TOKENS: LINES.recommend,
        AE_PI_COMPACT_ADVISOR_REQUEST_TOKENS: LINES.request,
      },
    });
    const collect = (event: PiRpcEvent): boolean => {
      if (event.type === "extension_ui_request" && event.method === "notify")
        notices.push(String(event.message));
      return false;
    };
    try {
      fake.enqueue(...script(place, "read", "path"));
      await rpc.prompt(PROMPT);
      await rpc.waitFor(collect, 200).catch(() => undefined);
      const compacted = await rpc.command({ type: "compact" });
      expect(compacted.success, JSON.stringify(compacted)).toBe(true);
      await rpc.waitFor(collect, 200).catch(() => undefined);
    } finally {
      await rpc.close();
    }
    expect(notices.join("\n")).toContain("cxc advisor: Recommended: compact now.");
    expect(notices.join("\n")).toContain(`cxc advisor: the live work starts at call ${LIVE_CYCLE} (read`);
    const [name] = readdirSync(piSessionDirectory(place));
    const entries = readFileSync(join(piSessionDirectory(place), name!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown> & { id: string });
    const compaction = entries.find((entry) => entry.type === "compaction") as unknown as {
      firstKeptEntryId: string;
    };
    // The assistant message that opens cycle 15 of the turn (its 15th answer), which pi now
    // keeps with everything after it.
    const answers = entries.filter(
      (entry) => entry.type === "message" && (entry.message as { role?: string }).role === "assistant",
    );
    expect(compaction.firstKeptEntryId).toBe(answers[LIVE_CYCLE - 1]!.id);
  });
});
