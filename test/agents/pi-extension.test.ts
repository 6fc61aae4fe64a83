/**
 * cxc's advisor as a pi package, inside the real pi (agents/, installed by .ci/run), offline
 * against the loopback fake provider: loaded from the checkout with `-e` (the built
 * dist/pi/extension.js, through package.json's pi manifest), its tools are offered; a scripted
 * `should_i_compact` call gets the verdict's fields; over a low notice line the advisor's steering
 * message reaches the next request; `compact_now` compacts at the end of the turn with its note
 * in pi's summary request; the advisor's confident cut point moves pi's `firstKeptEntryId`
 * earlier (read from pi's session file); the facts of the raw turns are added to pi's summary. Then
 * `pi install <checkout>` in another HOME loads it too, and a disabled advisor registers nothing.
 * One pi process drives the main session; each start costs seconds.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  agentBinary,
  fromPlaceholders,
  messageTexts,
  PI_MODEL,
  PI_PROVIDER,
  PiRpc,
  type PiRpcEvent,
  piEnvironment,
  piSessionDirectory,
  runAgent,
  writePiConfig,
} from "../helpers/agents.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";

const PI_SUMMARY_SYSTEM = "You are a context summarization assistant";
const SUMMARY = "## Goal\nWork on the project.\n\n## Progress\n- some reading";
const BINDING = "Never touch the migrations folder.";
const NOTE = "mid-parser work; keep the list of open questions";
const PROMPTS = [`${BINDING} What do my notes say?`, "Should we compact? Ask the advisor."];
const LINES = {
  AE_PI_COMPACT_ADVISOR_NOTICE_TOKENS: "5",
  AE_PI_COMPACT_ADVISOR_RECOMMEND_TOKENS: "10",
  AE_PI_COMPACT_ADVISOR_REQUEST_TOKENS: "100000000",
};
const ANSWERS = { switched_gears: 0.9, at_boundary: 0.9, needs_history: 0.1, mid_operation: 0.1 };
/** The first turn's answers: the agent is in the middle of an operation, so the advisor keeps quiet. */
const BUSY = { ...ANSWERS, mid_operation: 0.9 };

const call = (id: string, name: string, input: Record<string, unknown>) =>
  ({ type: "tool-call", id, name, arguments: input }) as const;

let fake: FakeProvider;
let root: string;
let place: AgentPlace;
let pi: string;
const notices: string[] = [];

function bodies(from = 0): string[] {
  return fake.requests.slice(from).map((request) => JSON.stringify(request.body));
}

/** The requests of the agent's own turns (not the advisor's decisions, not the summary). */
function turnRequests(from = 0) {
  return fake.requests.slice(from).filter((request) => request.route === undefined);
}

beforeAll(async () => {
  const binary = agentBinary(PROJECT_ROOT, "pi");
  if (binary === undefined) throw new Error("pi is not installed: run npm ci --prefix agents");
  pi = binary;
  root = mkdtempSync(join(tmpdir(), "cxc-pi-extension-"));
  place = { home: join(root, "home"), cwd: join(root, "project") };
  mkdirSync(place.home, { recursive: true });
  mkdirSync(place.cwd, { recursive: true });
  writeFileSync(join(place.cwd, "notes.txt"), "remember the milk\n");
  fake = await startFakeProvider({
    routes: [
      { bodyIncludes: PI_SUMMARY_SYSTEM, reply: textReply(SUMMARY) },
      {
        bodyIncludes: '"pick_live_from"',
        reply: { blocks: [call("d2", "pick_live_from", { live_from_turn: 2, confidence: 0.9 })] },
      },
      // The first turn's advice point: at its end, its read cycle can be compacted.
      {
        bodyIncludes: '"answer_questions"',
        times: 1,
        reply: { blocks: [call("d0", "answer_questions", BUSY)] },
      },
      { bodyIncludes: '"answer_questions"', reply: { blocks: [call("d1", "answer_questions", ANSWERS)] } },
    ],
  });
  // A tiny budget of recent tokens: pi's own cut falls in the last turn.
  writePiConfig(place.home, fake.url, { compaction: { keepRecentTokens: 1 } });
}, 60_000);

afterAll(async () => {
  await fake?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("cxc's advisor inside the real pi", () => {
  it("offers its tools, answers should_i_compact, steers over the notice line, and compact_now moves the cut and adds the check", async () => {
    const rpc = new PiRpc(pi, ["--provider", PI_PROVIDER, "--model", PI_MODEL, "-e", PROJECT_ROOT], {
      cwd: place.cwd,
      env: { ...piEnvironment(place), ...LINES },
    });
    const collect = (event: PiRpcEvent): boolean => {
      if (event.type === "extension_ui_request" && event.method === "notify")
        notices.push(String(event.message));
      return false;
    };
    try {
      // Turn 1: once its answer came, its first cycle (the read) can be compacted (one long turn
      // can be), so the advisor asks at that turn_end; the agent is mid-operation: silent.
      fake.enqueue(
        { blocks: [call("toolu_p_read", "read", { path: "notes.txt" })] },
        textReply("Remember the milk."),
      );
      await rpc.prompt(PROMPTS[0]!);
      const first = turnRequests()[0]!.body as { tools: { name: string }[] };
      expect(first.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["should_i_compact", "compact_now"]),
      );

      // Turn 2: the agent asks should_i_compact; the advice at that cycle's end steers it. pi
      // runs extension handlers beside its loop, so the steer is delivered at pi's next check:
      // with the request after the answer already on its way, which the agent answers by
      // calling compact_now; pi compacts when the turn ends, with the note as the focus.
      const before = fake.requests.length;
      fake.enqueue(
        { blocks: [call("toolu_p_ask", "should_i_compact", {})] },
        textReply("The advisor recommends compacting."),
        { blocks: [call("toolu_p_now", "compact_now", { note: NOTE })] },
        textReply("Compaction scheduled."),
      );
      await rpc.prompt(PROMPTS[1]!);
      const ended = await rpc.waitFor((event) => collect(event) || event.type === "compaction_end", 60_000);
      expect(ended.errorMessage, JSON.stringify(ended)).toBeUndefined();
      const after = turnRequests(before);
      expect(after).toHaveLength(4);
      const texts = messageTexts((after[1]!.body as { messages: unknown }).messages);
      const result = texts.find(
        (text) => text.trimStart().startsWith("{") && text.includes('"should_compact"'),
      );
      expect(result, texts.join("\n").slice(-2000)).toBeDefined();
      const verdict = JSON.parse(result!) as Record<string, unknown>;
      expect(Object.keys(verdict)).toEqual([
        "should_compact",
        "tier",
        "reason",
        "context_tokens",
        "context_percent",
        "lines",
        "signals",
        "next_step",
      ]);
      expect(verdict).toMatchObject({
        should_compact: true,
        tier: "recommend",
        lines: { notice: 5, recommend: 10, request: 100000000 },
        signals: ANSWERS,
      });
      const steered = messageTexts((after[2]!.body as { messages: unknown }).messages).join("\n");
      expect(steered).toContain("[cxc advisor] Recommended: compact now.");
      expect(steered).toContain("Call compact_now with a short note");
      expect(notices.join("\n")).toContain("cxc advisor: Recommended: compact now.");
      const all = bodies(before);
      expect(all.filter((body) => body.includes('"answer_questions"')).length).toBeGreaterThanOrEqual(1);
      const summaryRequest = all.find((body) => body.includes(PI_SUMMARY_SYSTEM));
      expect(summaryRequest).toBeDefined();
      expect(summaryRequest).toContain(NOTE);
      expect(all.some((body) => body.includes('"pick_live_from"'))).toBe(true);
    } finally {
      await rpc.close();
    }
    const [name] = readdirSync(piSessionDirectory(place));
    const entries = readFileSync(join(piSessionDirectory(place), name!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown> & { id: string });
    const compaction = entries.find((entry) => entry.type === "compaction") as unknown as {
      firstKeptEntryId: string;
      summary: string;
      fromHook?: boolean;
    };
    const prompts = entries.filter(
      (entry) => (entry.message as { role?: string } | undefined)?.role === "user",
    );
    const text = (entry: (typeof entries)[number]) => JSON.stringify(entry.message);
    // pi's own cut lay inside the last turn (its budget of recent tokens is 1); the advisor's
    // pick moved it earlier, onto that turn's prompt, which pi now keeps verbatim.
    const kept = entries.find((entry) => entry.id === compaction.firstKeptEntryId)!;
    expect(kept).toBe(prompts[1]);
    expect(text(kept)).toContain(PROMPTS[1]);
    expect(notices.join("\n")).toContain(`cxc advisor: the live work starts at "${PROMPTS[1]}"`);
    // pi's summary, its file lists, and cxc's facts of the raw turns it replaced.
    expect(compaction.summary.startsWith(SUMMARY)).toBe(true);
    expect(compaction.summary).toContain("<read-files>");
    expect(compaction.summary).toContain("## cxc: facts of the compacted turns, from their raw events");
    expect(compaction.summary).toContain(`- "${BINDING}" (turn 1)`);
    expect(compaction.fromHook).toBe(true);
    // The advisor's record, as a custom entry pi does not send to the model.
    expect(entries.some((entry) => entry.type === "custom" && entry.customType === "cxc-advisor")).toBe(true);
  });

  it("loads from `pi install <checkout>` in another HOME, and registers nothing when disabled", async () => {
    const other: AgentPlace = { home: join(root, "home-installed"), cwd: place.cwd };
    writePiConfig(other.home, fake.url);
    const installed = await runAgent(pi, ["install", PROJECT_ROOT], {
      cwd: other.cwd,
      env: piEnvironment(other),
    });
    expect(installed.code, installed.stderr).toBe(0);
    const settingsDirectory = join(other.home, ".pi", "agent");
    const settings = JSON.parse(readFileSync(join(settingsDirectory, "settings.json"), "utf8")) as {
      packages?: unknown[];
    };
    // pi records a local package relative to its settings file when both share a root (a checkout
    // under the same temporary directory as the HOME, as in CI), absolute otherwise.
    const packages = (settings.packages ?? []).map((entry) =>
      typeof entry === "string" ? resolve(settingsDirectory, entry) : entry,
    );
    expect(packages).toContain(resolve(PROJECT_ROOT));
    const toolsOf = async (env: Record<string, string>) => {
      fake.enqueue(textReply("Hello."));
      const before = fake.requests.length;
      const result = await runAgent(pi, ["--provider", PI_PROVIDER, "--model", PI_MODEL, "-p", "hi"], {
        cwd: other.cwd,
        env: { ...piEnvironment(other), ...env },
      });
      expect(result.code, result.stderr.slice(0, 400)).toBe(0);
      const body = turnRequests(before)[0]!.body as { tools: { name: string }[] };
      return body.tools.map((tool) => tool.name);
    };
    expect(await toolsOf({})).toEqual(expect.arrayContaining(["should_i_compact", "compact_now"]));
    const disabled = await toolsOf({ AE_PI_COMPACT_ADVISOR_ENABLED: "false" });
    expect(disabled).not.toContain("should_i_compact");
    expect(disabled).not.toContain("compact_now");
  });

  it("says once per session, naming its format, which entries cxc did not know (a newer pi's)", async () => {
    const directory = join(root, "newer");
    mkdirSync(directory, { recursive: true });
    const session = join(directory, "session.jsonl");
    const fixture = readFileSync(join(PROJECT_ROOT, "fixtures", "agents", "pi", "session.jsonl"), "utf8");
    const lines = fromPlaceholders(fixture, place).trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1)!) as { id: string };
    // An entry of a kind a newer pi might write, on the branch.
    lines.push(
      JSON.stringify({
        type: "hologram",
        id: "h0l0gram",
        parentId: last.id,
        timestamp: "2026-12-01T10:20:00.000Z",
      }),
    );
    writeFileSync(session, `${lines.join("\n")}\n`);
    const rpc = new PiRpc(
      pi,
      ["--provider", PI_PROVIDER, "--model", PI_MODEL, "-e", PROJECT_ROOT, "--session", session],
      { cwd: place.cwd, env: { ...piEnvironment(place), ...LINES } },
    );
    const unknownNotice = (event: PiRpcEvent): boolean =>
      event.type === "extension_ui_request" &&
      event.method === "notify" &&
      String(event.message).includes("kinds cxc does not know");
    try {
      for (const prompt of ["Anything else?", "And now?"]) {
        fake.enqueue(textReply("Nothing else."));
        await rpc.prompt(prompt);
      }
      const notice = await rpc.waitFor(unknownNotice, 5_000);
      expect(String(notice.message)).toBe(
        "cxc advisor: this session was written by pi session format 3: 1 record of kinds cxc does not know was left out (hologram 1); the advice reads the rest.",
      );
      // Once per session, not at every turn.
      await expect(rpc.waitFor(unknownNotice, 1_000)).rejects.toThrow(/timed out/);
    } finally {
      await rpc.close();
    }
  });
});
