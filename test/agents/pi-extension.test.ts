/**
 * cxc's advisor as a pi package, inside the real pi (agents/, installed by .ci/run), offline
 * against the loopback fake provider: loaded from the checkout with `-e` (the built
 * dist/pi/extension.js, through package.json's pi manifest), its tools are offered; a scripted
 * `should_i_compact` call gets the verdict's fields; over a low notice line the advisor's steering
 * message reaches the next request; `compact_now` compacts at the end of the turn with its note
 * in pi's summary request; the advisor's confident cut point moves pi's `firstKeptEntryId`
 * earlier (read from pi's session file), the question offering only turns that exist; pi writes
 * its summary and the facts of the raw turns follow it as a message the next request carries (or,
 * with `pi_facts = summary`, are added to a summary cxc has pi's summarizer write); a notice line
 * below pi's keepRecentTokens is warned about. Then
 * `pi install <checkout>` in another HOME loads it too, and a disabled advisor registers nothing.
 * One pi process drives the main session; each start costs seconds.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPlace,
  requireAgent,
  newAgentPlace,
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
const PROMPTS = [`${BINDING} What do my notes say?`, "Should we compact? Ask the advisor.", "What next?"];
const FACTS_HEADING = "## cxc: facts of the compacted turns, from their raw events";
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
  pi = requireAgent(PROJECT_ROOT, "pi");
  ({ root, place } = newAgentPlace("cxc-pi-extension-"));
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
  it("offers its tools, answers should_i_compact, steers over the notice line, compact_now moves the cut, and the facts follow pi's own summary", async () => {
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
        expect.arrayContaining(["should_i_compact", "compact_now", "recall"]),
      );

      // Turn 2: the agent asks should_i_compact; the advice at that cycle's end steers it. pi
      // runs extension handlers beside its loop, so the steer is delivered at pi's next check:
      // with the request after the answer already on its way, which the agent answers by
      // calling compact_now; pi compacts when the turn ends, with the note as the focus.
      // The answer to the question's result is held until the advice was given (its notice is
      // printed right before the steer is queued): under load the advice can take longer than
      // that answer, and the turn would end before the steer was ever delivered.
      const before = fake.requests.length;
      let adviceGiven!: () => void;
      const advised = new Promise<void>((resolve) => {
        adviceGiven = resolve;
      });
      fake.enqueue(
        { blocks: [call("toolu_p_ask", "should_i_compact", {})] },
        textReply("The advisor recommends compacting.", { holdAfterEvents: 1, release: advised }),
        { blocks: [call("toolu_p_now", "compact_now", { note: NOTE })] },
        textReply("Compaction scheduled."),
      );
      const answered = rpc.prompt(PROMPTS[1]!);
      const advice = await rpc.waitFor(
        (event) =>
          event.type === "extension_ui_request" &&
          event.method === "notify" &&
          String(event.message).includes("Recommended: compact now."),
      );
      notices.push(String(advice.message));
      adviceGiven();
      await answered;
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
      // pi's cut splits the last turn (turn 2 of 2): the question offers that turn and its
      // cycles, never a turn 3 that does not exist.
      const pick = all.find((body) => body.includes('"pick_live_from"'));
      expect(pick).toContain("Which of turns 2 starts the work");
      expect(pick).toContain("[turn 2, cycle 2]");
      // Prompt 3: the facts that followed pi's compaction reach the model, after pi's summary.
      // The model recalls the read pi's summary replaced, by the reference the index gave it.
      const third = fake.requests.length;
      fake.enqueue(
        { blocks: [call("toolu_p_recall", "recall", { reference: "turn 1, call 1" })] },
        textReply("Onwards."),
      );
      await rpc.prompt(PROMPTS[2]!);
      const next = messageTexts((turnRequests(third)[0]!.body as { messages: unknown }).messages).join("\n");
      expect(next).toContain(SUMMARY);
      expect(next).toContain(FACTS_HEADING);
      expect(next.indexOf(FACTS_HEADING)).toBeGreaterThan(next.indexOf(SUMMARY));
      expect(next).toContain(`- "${BINDING}" (turn 1)`);
      expect(next).toContain("[Recall index: compaction hid these from your context.");
      expect(next).toMatch(
        /\nturn 1: summarized \(1 call, \d+ chars\)\nturn 1, call 1: read notes\.txt \(\d+ chars\)/,
      );
      const recalled = messageTexts((turnRequests(third)[1]!.body as { messages: unknown }).messages).join(
        "\n",
      );
      expect(recalled).toContain('turn 1, call 1: read\narguments:\n{"path":"notes.txt"}\nresult:\n');
      expect(recalled).toContain("remember the milk");
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
    // pi's own summary with its file lists, written by pi (the cut point never changes how the
    // summary is written); cxc's facts of the raw turns it replaced follow it, verbatim, as a
    // message of their own.
    expect(compaction.summary.startsWith(SUMMARY)).toBe(true);
    expect(compaction.summary).toContain("<read-files>");
    expect(compaction.summary).not.toContain(FACTS_HEADING);
    expect(compaction.fromHook).toBe(false);
    const after = entries[entries.indexOf(compaction as unknown as (typeof entries)[number]) + 1]!;
    expect(after).toMatchObject({ type: "custom_message", customType: "cxc-facts", display: true });
    expect(String(after.content)).toContain(FACTS_HEADING);
    expect(String(after.content)).toContain(`- "${BINDING}" (turn 1)`);
    // The advisor's record, as a custom entry pi does not send to the model.
    expect(entries.some((entry) => entry.type === "custom" && entry.customType === "cxc-advisor")).toBe(true);
  }, 120_000);

  it("keeps today's form behind pi_facts = summary: cxc has pi's summarizer write the summary and adds the facts and the recall index to it", async () => {
    const other: AgentPlace = { home: join(root, "home-summary"), cwd: place.cwd };
    writePiConfig(other.home, fake.url, { compaction: { keepRecentTokens: 1 } });
    const rpc = new PiRpc(pi, ["--provider", PI_PROVIDER, "--model", PI_MODEL, "-e", PROJECT_ROOT], {
      cwd: other.cwd,
      env: { ...piEnvironment(other), ...LINES, CXC_ADVISOR_PI_FACTS: "summary" },
    });
    try {
      fake.enqueue(
        { blocks: [call("toolu_s_read", "read", { path: "notes.txt" })] },
        textReply("Remember the milk."),
      );
      await rpc.prompt(PROMPTS[0]!);
      fake.enqueue(textReply("Let us go on."));
      await rpc.prompt(PROMPTS[2]!);
      const response = await rpc.command({ type: "compact" });
      expect(response.success, JSON.stringify(response)).toBe(true);
      // The model recalls the read the summary replaced, by the reference the summary's index gave.
      const next = fake.requests.length;
      fake.enqueue(
        { blocks: [call("toolu_s_recall", "recall", { reference: "turn 1, call 1" })] },
        textReply("Onwards."),
      );
      await rpc.prompt(PROMPTS[1]!);
      const sent = messageTexts((turnRequests(next)[0]!.body as { messages: unknown }).messages).join("\n");
      expect(sent).toContain(SUMMARY);
      expect(sent).toMatch(/\nturn 1, call 1: read notes\.txt \(\d+ chars\)/);
      const recalled = messageTexts((turnRequests(next)[1]!.body as { messages: unknown }).messages).join(
        "\n",
      );
      expect(recalled).toContain('turn 1, call 1: read\narguments:\n{"path":"notes.txt"}\nresult:\n');
      expect(recalled).toContain("remember the milk");
    } finally {
      await rpc.close();
    }
    const [name] = readdirSync(piSessionDirectory(other));
    const entries = readFileSync(join(piSessionDirectory(other), name!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const compaction = entries.find((entry) => entry.type === "compaction") as {
      summary: string;
      fromHook: boolean;
    };
    expect(compaction.summary.startsWith(SUMMARY)).toBe(true);
    expect(compaction.summary).toContain(FACTS_HEADING);
    expect(compaction.summary).toContain(`- "${BINDING}" (turn 1)`);
    // The recall index after the facts, as the facts message carries it in the other form.
    const index = compaction.summary.indexOf("[Recall index: compaction hid these from your context.");
    expect(index).toBeGreaterThan(compaction.summary.indexOf(FACTS_HEADING));
    expect(compaction.summary.slice(index)).toMatch(
      /\nturn 1: summarized \(1 call, \d+ chars\)\nturn 1, call 1: read notes\.txt \(\d+ chars\)$/,
    );
    expect(compaction.fromHook).toBe(true);
    expect(entries.some((entry) => entry.customType === "cxc-facts")).toBe(false);
  }, 120_000);

  it("warns when the notice line sits below pi's keepRecentTokens (20000 unless pi's settings say otherwise)", async () => {
    const other: AgentPlace = { home: join(root, "home-keep"), cwd: place.cwd };
    writePiConfig(other.home, fake.url);
    const below = (event: PiRpcEvent): boolean =>
      event.type === "extension_ui_request" &&
      event.method === "notify" &&
      String(event.message).includes("keepRecentTokens");
    const rpc = new PiRpc(pi, ["--provider", PI_PROVIDER, "--model", PI_MODEL, "-e", PROJECT_ROOT], {
      cwd: other.cwd,
      env: { ...piEnvironment(other), ...LINES },
    });
    try {
      fake.enqueue(textReply("Hello."));
      await rpc.prompt("hi");
      const notice = await rpc.waitFor(below, 5_000);
      expect(notice.message).toBe(
        "cxc advisor: the notice line (5 tokens) is below pi's keepRecentTokens (20000): a compaction advised " +
          "there has little to drop; set the three lines (AE_PI_COMPACT_ADVISOR_NOTICE_TOKENS and the other two, " +
          "or conversation.compaction.advisor) above it",
      );
      expect(notice.notifyType).toBe("warning");
    } finally {
      await rpc.close();
    }
    // The main session's pi keeps 1 recent token: no warning there.
    expect(notices.join("\n")).not.toContain("keepRecentTokens");
  }, 120_000);

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
