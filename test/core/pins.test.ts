/**
 * Pins and what every compaction keeps by construction (docs/decisions/010-facts-and-pins.md):
 * pins resolved against the events, kept verbatim by mechanical policies and after summaries,
 * retired by their reset; the facts block the planner attaches to every summary; keep rules; the
 * rule that only touches pinned messages is nothing to compact; forks.
 */
import { describe, expect, it } from "vitest";
import { readKeeping, readKeepRules } from "../../src/compaction/core/keeping.js";
import { type CompactionPlan, planCompaction } from "../../src/compaction/core/plan.js";
import { realizePlan } from "../../src/compaction/core/realize.js";
import type { CompactionRule } from "../../src/compaction/core/rules.js";
import { parseCompactSpec, specToRule } from "../../src/compaction/core/spec.js";
import {
  type ConversationEvent,
  type Pin,
  type PinReset,
  parseEvent,
  type TurnEvent,
} from "../../src/core/conversation/events.js";
import { copyEventsForFork } from "../../src/core/conversation/fork.js";
import { CXC_PINNED_KEY, importClaudeCodeSession } from "../../src/core/interop/claude-code.js";
import { exportClaudeCodeSession } from "../../src/core/interop/claude-code-export.js";
import { exportCodexSession } from "../../src/core/interop/codex-export.js";
import { convertOpencodeSession } from "../../src/core/interop/opencode.js";
import { exportOpencodeSession } from "../../src/core/interop/opencode-export.js";
import { exportPiSession } from "../../src/core/interop/pi-export.js";
import {
  activePins,
  buildPinEvent,
  buildPinResetEvent,
  pinnedMessages,
  planPin,
  planUnpin,
} from "../../src/core/conversation/pins.js";
import { projectConversation } from "../../src/core/conversation/projection.js";
import { PINNED_HEADING, pinnedSectionOf } from "../../src/core/conversation/summary-message.js";
import { parseMessagePosition } from "../../src/core/position/parse.js";
import { createEventBuilder, type EventBuilder } from "../helpers/builders.js";
import { agentTurn, cycleCompaction } from "../helpers/cycles.js";

const NOW = "2026-01-02T00:00:00Z";

function spec(text: string): CompactionRule {
  const parsed = parseCompactSpec(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return specToRule(parsed.value);
}

let pins = 0;
function pin(build: EventBuilder, target: { turn: number; cycle?: number; only?: Pin["only"] }): Pin {
  return buildPinEvent(target, { id: `pin${++pins}`, ts: build.now() });
}

/** The events of a plan applied, summaries given as `S<n>`. */
function applied(events: readonly ConversationEvent[], plan: CompactionPlan): ConversationEvent[] {
  if (plan.kind !== "planned") throw new Error(`expected a plan, got ${plan.kind}`);
  let counter = 0;
  const summaries = plan.segments.map((segment, index) =>
    segment.summary === undefined ? undefined : { summary: `S${index}`, source: "derived" as const },
  );
  return [...events, ...realizePlan(plan, summaries, { newEventId: () => `c${counter++}`, now: () => NOW })];
}

function textOf(events: readonly ConversationEvent[]): string {
  return JSON.stringify(projectConversation(events).events);
}

/** Turn 1 says a rule and reads a file; turn 2 has four cycles of calls; turn 3 asks again. */
function session() {
  const build = createEventBuilder();
  const events: TurnEvent[] = [
    ...agentTurn(build, "Never touch the migrations folder.", [{ calls: 1 }]),
    ...agentTurn(build, "now fix it", [
      { reasoning: "r0", calls: 1 },
      { reasoning: "r1", calls: 1 },
      { reasoning: "r2", calls: 1 },
      { reasoning: "r3", calls: 1 },
    ]),
    ...agentTurn(build, "and the docs", [{ calls: 1 }]),
  ];
  const results = events.filter((event) => event.type === "tool_call_response");
  return { build, events, results };
}

describe("pins", () => {
  it("resolve to the messages of a turn, a cycle, or one part of them; reasoning is never pinned", () => {
    const { build, events } = session();
    const turnEvents = (turn: number) => {
      const starts = events.flatMap((event, index) => (event.type === "turn_start" ? [index] : []));
      return events.slice(starts[turn], starts[turn + 1]);
    };
    const whole = pinnedMessages([...events, pin(build, { turn: 1 })]);
    expect([...whole.ids]).toEqual(
      turnEvents(1)
        .filter(
          (event) => event.type !== "turn_start" && !(event.type === "chat_response" && event.reasoning),
        )
        .map((event) => event.id),
    );
    const cycle = pinnedMessages([...events, pin(build, { turn: 1, cycle: 2, only: "results" })]);
    const results = turnEvents(1).filter((event) => event.type === "tool_call_response");
    expect([...cycle.ids]).toEqual([results[2]!.id]);
    const users = pinnedMessages([...events, pin(build, { turn: 0, only: "user" })]);
    expect([...users.ids]).toEqual([turnEvents(0)[1]!.id]);
  });

  it("are retired by a pin_reset, and only those it names", () => {
    const { build, events } = session();
    const first = pin(build, { turn: 0 });
    const second = pin(build, { turn: 2 });
    const reset: PinReset = buildPinResetEvent([first.id], { id: "unpin1", ts: build.now() });
    expect(activePins([...events, first, second, reset]).map((entry) => entry.pin.id)).toEqual([second.id]);
  });

  it("are events an older schema reader keeps and this one validates", () => {
    const value = JSON.parse(
      JSON.stringify(buildPinEvent({ turn: 3, cycle: 1, only: "results" }, { id: "p", ts: NOW })),
    );
    expect(parseEvent(value)).toEqual({ ok: true, event: value });
    expect(parseEvent({ ...value, turn: -1 }).ok).toBe(false);
    expect(parseEvent({ ...value, only: "everything" }).ok).toBe(false);
  });

  it("are planned against the turns and cycles there are, worded as the position algebra words them", () => {
    const { build, events } = session();
    expect(planPin(events, { turn: 9 })).toEqual({
      ok: false,
      message: "turn 10 out of range (conversation has 3 turns)",
    });
    expect(planPin(events, { turn: 1, cycle: 7 })).toEqual({
      ok: false,
      message: "turn 2 has 5 cycles; there is no cycle 8",
    });
    expect(planPin(events, { turn: 0, cycle: 1, only: "results" })).toEqual({
      ok: false,
      message: "turn 1, cycle 2 (tool results) has no message to keep",
    });
    expect(planPin(events, { turn: 1, cycle: 0 })).toEqual({ ok: true, kind: "new", messages: 2 });
    const kept = pin(build, { turn: 1, cycle: 0 });
    expect(planPin([...events, kept], { turn: 1, cycle: 0 })).toEqual({
      ok: true,
      kind: "already",
      pin: kept,
    });
    expect(planUnpin([...events, kept], { turn: 1, cycle: 0 })).toEqual({
      ok: true,
      retires: [kept],
      left: [],
    });
    expect(planUnpin([...events, kept], { turn: 2 })).toEqual({
      ok: false,
      message: "turn 3 is not kept (1 pin: turn 2, cycle 1)",
    });
    expect(planUnpin(events, { turn: 2 })).toEqual({
      ok: false,
      message: "turn 3 is not kept: the conversation has no pins",
    });
  });

  it("unkeep retires the pin it names, never the one beside it; the lists say what each keeps", () => {
    const { build, events } = session();
    const whole = pin(build, { turn: 1 });
    const results = pin(build, { turn: 1, only: "results" });
    const users = pin(build, { turn: 1, only: "user" });
    const both = [...events, whole, results];
    expect(planUnpin(both, { turn: 1 })).toEqual({ ok: true, retires: [whole], left: [results] });
    expect(planUnpin(both, { turn: 1 }, "results")).toEqual({ ok: true, retires: [results], left: [whole] });
    expect(planUnpin(both, { turn: 1 }, "user")).toEqual({
      ok: false,
      message: "turn 2 (user messages) is not kept (2 pins: turn 2; turn 2 (tool results))",
    });
    // Without the whole pin: the one narrowed pin, or a question when there are several.
    expect(planUnpin([...events, results], { turn: 1 })).toEqual({ ok: true, retires: [results], left: [] });
    expect(planUnpin([...events, results, users], { turn: 1 })).toEqual({
      ok: false,
      message:
        "turn 2 is kept by 2 pins: turn 2 (tool results); turn 2 (user messages); name one with --only results|user",
    });
    expect(planUnpin([...events, results], { turn: 2 })).toEqual({
      ok: false,
      message: "turn 3 is not kept (1 pin: turn 2 (tool results))",
    });
  });

  it("take the keep/unkeep positions 1-based, as --from reads them", () => {
    expect(parseMessagePosition("3")).toEqual({ ok: true, value: { turn: 2 } });
    expect(parseMessagePosition("4.2")).toEqual({ ok: true, value: { turn: 3, cycle: 1 } });
    expect(parseMessagePosition("0")).toMatchObject({
      ok: false,
      message: "turn numbers are 1-based; `0` is not a valid turn",
    });
    expect(parseMessagePosition("4.0")).toMatchObject({
      ok: false,
      message: "cycles are 1-based; `4.0` is not a valid cycle",
    });
    expect(parseMessagePosition("-1")).toMatchObject({ ok: false });
  });
});

describe("projection keeps pinned messages", () => {
  it("whole under observation masking (r+t:-5calls): the pinned result and its text survive", () => {
    const { build, events, results } = session();
    const pinned = results[1]!; // turn 2, cycle 1: a result masking would replace
    const masked = cycleCompaction(build, { from: 0, to: 1, toCycle: 1, reasoning: true, tools: "strip" });
    const byId = (view: ReturnType<typeof projectConversation>, id: string) =>
      view.events.find((event) => "id" in event && event.id === id);
    const without = projectConversation([...events, masked]);
    expect(byId(without, pinned.id)).not.toEqual(pinned);
    const withPin = projectConversation([
      ...events,
      pin(build, { turn: 1, cycle: 0, only: "results" }),
      masked,
    ]);
    expect(byId(withPin, pinned.id)).toEqual(pinned);
    // Its neighbour, not pinned, is masked still; reasoning is stripped whatever the pin.
    expect(byId(withPin, results[0]!.id)).not.toEqual(results[0]);
    expect(JSON.stringify(withPin.events)).not.toContain('"reasoning":"r0"');
  });

  it("together with their calls under omit", () => {
    const { build, events, results } = session();
    const omitted = build.compaction({ from: 1, to: 1, tools: "omit" });
    const view = projectConversation([
      ...events,
      pin(build, { turn: 1, cycle: 3, only: "results" }),
      omitted,
    ]);
    const calls = view.events.flatMap((event) =>
      event.type === "tool_call_request" || event.type === "tool_call_response" ? [event.call_id] : [],
    );
    // Turn 2's calls are omitted but the pinned one, whose call stays with its result.
    expect(calls).toEqual(["call-1", "call-1", "call-5", "call-5", "call-6", "call-6"]);
    expect(view.events).toContainEqual(results[4]);
  });

  it("after a summary, in order, marked, with the facts block stored with it before them", () => {
    const { build, events, results } = session();
    const plan = planCompaction(
      [...events, pin(build, { turn: 1, cycle: 3, only: "results" }), pin(build, { turn: 0, only: "user" })],
      {
        rules: [spec("s:..-1")],
        now: NOW,
      },
    );
    const view = projectConversation(
      applied(
        [
          ...events,
          pin(build, { turn: 1, cycle: 3, only: "results" }),
          pin(build, { turn: 0, only: "user" }),
        ],
        plan,
      ),
    );
    const summary = view.turns[0]!;
    const text = summary.events.find((event) => event.type === "chat_response")!;
    const message = text.type === "chat_response" ? text.message! : "";
    expect(message.startsWith("S0\n\n[Facts of these turns, from their raw events]\n")).toBe(true);
    expect(message).toContain('- "Never touch the migrations folder." (turn 1)');
    const section = pinnedSectionOf(message)!;
    expect(section.split("\n").slice(0, 3)).toEqual([PINNED_HEADING, "turn 1, the user:", "```text"]);
    expect(section.indexOf("Never touch the migrations folder.")).toBeLessThan(
      section.indexOf(results[4]!.content),
    );
    expect(section).toContain(`turn 2, the result of read_file {"path":"now-fix-it-3-0.ts"}:`);
    expect(summary.pinnedEvents?.map((entry) => entry.event.id)).toEqual([events[1]!.id, results[4]!.id]);
    // Found again whatever an agent put after the message: a frame's end, an index, kept messages.
    const after = `<summary>\n${message}\n</summary>\n\n[Recall index: …]\nturn 3: x\n\nGo on.\n\nturn 4, a trap:`;
    expect(pinnedSectionOf(after)).toBe(section);
    expect(section.endsWith("```")).toBe(true);
  });

  it("after an agent's own imported summary too, whose text stays as the agent wrote it", () => {
    const { build, events, results } = session();
    const own = {
      ...build.compaction({ from: 0, to: 1, summary: { summary: "Claude's summary", source: "supplied" } }),
      origin: { agent: "claude-code" },
    };
    const view = projectConversation([...events, pin(build, { turn: 1, cycle: 2 }), own]);
    const response = view.turns[0]!.events.find((event) => event.type === "chat_response");
    const message = response?.type === "chat_response" ? response.message! : "";
    expect(message.startsWith(`Claude's summary\n\n${PINNED_HEADING}\n`)).toBe(true);
    expect(message).not.toContain("[Facts of these turns");
    expect(message).toContain(results[3]!.content);
  });

  it("and a reset of the pin restores the earlier view exactly", () => {
    const { build, events } = session();
    const compaction = build.compaction({ from: 0, to: 1, summary: "S", reasoning: true });
    const kept = pin(build, { turn: 1 });
    const before = textOf([...events, compaction]);
    expect(textOf([...events, kept, compaction])).not.toBe(before);
    expect(textOf([...events, kept, compaction, buildPinResetEvent([kept.id], { id: "r", ts: NOW })])).toBe(
      before,
    );
  });
});

describe("the planner", () => {
  it("attaches the facts block of its raw turns to every summary: twelve files, all of them", () => {
    const build = createEventBuilder();
    const files = Array.from({ length: 12 }, (_, index) => `src/module-${index}.ts`);
    const events = [
      ...agentTurn(build, "Refactor the modules. Do not change the public API.", [
        { calls: files.slice(0, 6).map((path) => ({ name: "read_file", arguments: { path } })) },
        { calls: files.slice(6).map((path) => ({ name: "edit_file", arguments: { path, content: "x" } })) },
      ]),
      ...agentTurn(build, "thanks", []),
    ];
    const plan = planCompaction(events, { rules: [spec("s:..-1")], now: NOW });
    if (plan.kind !== "planned") throw new Error(plan.kind);
    const facts = plan.segments[0]!.facts!;
    for (const path of files) expect(facts).toContain(path);
    expect(facts).toContain('- "Do not change the public API." (turn 1)');
    // Mechanical rules get no block; a budget of 0 turns it off.
    const mechanical = planCompaction(events, { rules: [spec("r+t:..-1")], now: NOW });
    expect(mechanical.kind === "planned" && mechanical.segments[0]!.facts).toBeUndefined();
    const off = planCompaction(events, {
      rules: [spec("s:..-1")],
      now: NOW,
      keeping: { factsCharacters: 0, rules: [] },
    });
    expect(off.kind === "planned" && off.segments[0]!.facts).toBeUndefined();
  });

  it("records the messages keep rules match, and keeps them as pinned ones", () => {
    const { events, results } = session();
    const keeping = readKeeping({
      conversation: {
        compaction: { keep: [{ contains: ["never"] }, { pattern: "cycle 2 call", only: "results" }] },
      },
    });
    if (!keeping.ok) throw new Error(keeping.message);
    const plan = planCompaction(events, { rules: [spec("r+t:..-1")], now: NOW, keeping: keeping.value });
    if (plan.kind !== "planned") throw new Error(plan.kind);
    expect(plan.segments[0]!.pinnedEvents).toEqual([events[1]!.id, results[3]!.id]);
    const view = projectConversation(applied(events, plan));
    expect(view.events.find((event) => "id" in event && event.id === results[3]!.id)).toEqual(results[3]);
  });

  it("finds nothing to compact in a rule that would only touch pinned messages", () => {
    const { build, events } = session();
    const kept = pin(build, { turn: 1, only: "results" });
    const onlyResults = { ...spec("t=sres:2..2") };
    expect(planCompaction([...events, kept], { rules: [onlyResults], now: NOW }).kind).toBe(
      "nothing-to-compact",
    );
    // Unpinned, the same rule compacts; with something else to touch, it compacts the rest.
    expect(planCompaction(events, { rules: [onlyResults], now: NOW }).kind).toBe("planned");
    expect(planCompaction([...events, kept], { rules: [spec("r+t=sres:2..2")], now: NOW }).kind).toBe(
      "planned",
    );
  });
});

describe("keep rules in configuration", () => {
  it("name what is wrong", () => {
    expect(readKeepRules({})).toEqual({
      ok: false,
      message: "conversation.compaction.keep must be a list of rules ([[conversation.compaction.keep]])",
    });
    expect(readKeepRules([{ contains: "must", pattern: "x" }])).toMatchObject({
      ok: false,
      message: expect.stringContaining("exactly one of"),
    });
    expect(readKeepRules([{ pattern: "(" }])).toMatchObject({
      ok: false,
      message: expect.stringContaining("is not a regular expression"),
    });
    expect(readKeepRules([{ contains: "must", only: "tools" }])).toMatchObject({
      ok: false,
      message: expect.stringContaining(".only must be"),
    });
    expect(
      readKeeping({ conversation: { compaction: { summary: { facts: { max_characters: -1 } } } } }),
    ).toMatchObject({ ok: false });
  });

  it("match whole words in any case", () => {
    const read = readKeepRules([{ contains: ["must", "never"] }]);
    if (!read.ok) throw new Error(read.message);
    const [rule] = read.value;
    expect(rule!.pattern.test("You MUST keep it.")).toBe(true);
    expect(rule!.pattern.test("Mustard and nevermore.")).toBe(false);
  });
});

describe("exports", () => {
  it("carry the facts block and the pinned messages after the summary, to Claude Code, pi and Codex", () => {
    const { build, events, results } = session();
    const kept = pin(build, { turn: 1, cycle: 2, only: "results" });
    const plan = planCompaction([...events, kept], { rules: [spec("s:..-1")], now: NOW });
    const compacted = applied([...events, kept], plan);
    let ids = 0;
    const newId = () => `id-${++ids}`;
    const sessions = {
      "claude-code": exportClaudeCodeSession(compacted, {
        sessionId: "s",
        cwd: "/p",
        newUuid: newId,
        model: "m",
      }),
      pi: exportPiSession(compacted, {
        sessionId: "s",
        cwd: "/p",
        timestamp: NOW,
        provider: "anthropic",
        model: "m",
        newId,
      }),
      codex: exportCodexSession(compacted, { sessionId: "s", cwd: "/p", timestamp: NOW, version: "0.169.0" }),
    };
    for (const [agent, exported] of Object.entries(sessions)) {
      if (!exported.ok) throw new Error(`${agent}: ${exported.message}`);
      const text = exported.value.lines.join("\n");
      expect(text, agent).toContain("[Facts of these turns, from their raw events]");
      expect(text, agent).toContain(JSON.stringify(`${PINNED_HEADING}\nturn 2, the result of `).slice(1, -1));
      expect(text, agent).toContain(JSON.stringify(results[3]!.content).slice(1, -1));
    }
  });

  it("mark pinned messages that stay in place for Claude Code, and the import reads the mark back", () => {
    const { build, events } = session();
    const exported = exportClaudeCodeSession([...events, pin(build, { turn: 2, only: "user" })], {
      sessionId: "s",
      cwd: "/p",
      newUuid: (() => {
        let n = 0;
        return () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
      })(),
      model: "m",
    });
    if (!exported.ok) throw new Error(exported.message);
    const marked = exported.value.lines
      .map((line) => JSON.parse(line))
      .filter((record) => record.cxcPinned !== undefined);
    expect(marked.map((record) => [record.message.content, record.cxcPinned])).toEqual([
      ["and the docs", [0]],
    ]);
    const imported = importClaudeCodeSession(`${exported.value.lines.join("\n")}\n`, "s.jsonl");
    if (!imported.ok) throw new Error(imported.message);
    const back = imported.value.conversation.events.filter(
      (event) => event.type !== "unknown" && event.metadata?.[CXC_PINNED_KEY] === true,
    );
    expect(back.map((event) => event.type === "chat_request" && event.content)).toEqual(["and the docs"]);
  });

  it("mark pinned messages that stay in place for opencode, on the part, and the import reads the mark back", () => {
    const { build, events, results } = session();
    let counter = 0;
    const exported = exportOpencodeSession(
      [...events, pin(build, { turn: 2, only: "user" }), pin(build, { turn: 0, only: "results" })],
      {
        sessionId: "ses_pins",
        directory: "/p",
        title: "Pins",
        timestamp: "2026-12-04T00:00:00.000Z",
        version: "1.18.33",
        providerID: "fake",
        modelID: "fake-model",
        newId: (kind) => `${kind}_${String(++counter).padStart(6, "0")}`,
      },
    );
    if (!exported.ok) throw new Error(exported.message);
    const marked = exported.value.document.messages
      .flatMap((message) => message.parts)
      .filter((part) => (part.metadata as Record<string, unknown> | undefined)?.[CXC_PINNED_KEY] === true);
    expect(marked.map((part) => [part.type, part.text ?? part.callID])).toEqual([
      ["tool", results[0]!.call_id],
      ["text", "and the docs"],
    ]);
    const imported = convertOpencodeSession(exported.value.document, "db#ses_pins");
    if (!imported.ok) throw new Error(imported.message);
    const back = imported.value.events.filter(
      (event) => event.type !== "unknown" && event.metadata?.[CXC_PINNED_KEY] === true,
    );
    expect(back.map((event) => (event.type === "chat_request" ? event.content : event.type))).toEqual([
      "tool_call_response",
      "and the docs",
    ]);
  });
});

describe("forks", () => {
  it("carry pins of kept turns renumbered, and their resets", () => {
    const { build, events } = session();
    const late = pin(build, { turn: 2, only: "user" });
    const early = pin(build, { turn: 0 });
    const reset = buildPinResetEvent([early.id], { id: "unpin", ts: NOW });
    const forked = copyEventsForFork(
      [...events, late, early, reset],
      [
        { start: 0, end: 1 },
        { start: 2, end: 3 },
      ],
      (id) => `n-${id}`,
    );
    const copied = forked.events.filter((event) => event.type === "pin" || event.type === "pin_reset");
    expect(copied).toEqual([
      { ...late, id: `n-${late.id}`, turn: 1 },
      { ...early, id: `n-${early.id}` },
      { ...reset, id: "n-unpin", retires: [`n-${early.id}`] },
    ]);
    const dropped = copyEventsForFork([...events, late], { start: 0, end: 2 }, (id) => `n-${id}`);
    expect(dropped.events.some((event) => event.type === "pin")).toBe(false);
  });
});
