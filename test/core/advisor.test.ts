/**
 * Unit tests of the advisor's pure decisions: the tier table, the line-set fallback, the no-repeat
 * rule, the cut-point movement, the auto trigger and the no-loop guard.
 */
import { describe, expect, it } from "vitest";
import {
  ADVISOR_QUESTIONS_TOOL,
  type AdvisorSignals,
  AUTO_METADATA_KEY,
  autoTriggerTokens,
  buildAutoRules,
  clearAnnouncements,
  cutPointCandidates,
  DEFAULT_TOKEN_LINES,
  decideAnnouncement,
  tierHeadline,
  decideTier,
  isHeldByNoLoopGuard,
  LIVE_FROM_TOOL,
  moveCutEarlier,
  parseAdvisorAnswers,
  planAutoRange,
  readAdvisorSettings,
  readAutoSettings,
  readAutoTrigger,
  type Tier,
  withPackageVariables,
} from "../../src/compaction/core/advisor/advisor.js";
import type { Compaction } from "../../src/core/conversation/events.js";

const LINES = DEFAULT_TOKEN_LINES;

function signals(switched: number, boundary: number, history: number, mid: number): AdvisorSignals {
  return { switched_gears: switched, at_boundary: boundary, needs_history: history, mid_operation: mid };
}

describe("decideTier: the tier table of docs/advisor.md", () => {
  // [tokens, switched_gears, at_boundary, needs_history, mid_operation, expected tier]
  const table: [number, number, number, number, number, Tier][] = [
    [50_000, 0.9, 0.9, 0.0, 0.0, "silent"], // below the notice line
    [60_000, 0.9, 0.9, 0.0, 0.0, "notice"], // exactly on a line counts as crossed
    [99_999, 0.9, 0.0, 0.0, 0.0, "notice"],
    [100_000, 0.0, 0.9, 0.0, 0.0, "recommend"],
    [140_000, 0.9, 0.9, 0.0, 0.0, "request"],
    [200_000, 0.9, 0.9, 0.0, 0.6, "silent"], // mid operation beats a full context
    [200_000, 0.9, 0.9, 0.0, 0.59, "request"],
    [200_000, 0.49, 0.49, 0.0, 0.0, "silent"], // the work has not moved on
    [200_000, 0.5, 0.0, 0.0, 0.0, "request"],
    [200_000, 0.9, 0.9, 0.7, 0.0, "recommend"], // needs history: one step quieter
    [120_000, 0.9, 0.9, 0.7, 0.0, "notice"],
    [70_000, 0.9, 0.9, 0.69, 0.0, "notice"],
    [70_000, 0.9, 0.9, 0.7, 0.0, "silent"],
  ];
  for (const [tokens, switched, boundary, history, mid, expected] of table) {
    it(`${tokens} tokens, answers ${switched}/${boundary}/${history}/${mid} → ${expected}`, () => {
      const decision = decideTier({
        tokens,
        lines: LINES,
        signals: signals(switched, boundary, history, mid),
        compactable: 5,
      });
      expect(decision.tier).toBe(expected);
    });
  }

  it("is silent when there is nothing to compact, before anything else", () => {
    const decision = decideTier({
      tokens: 500_000,
      lines: LINES,
      signals: signals(1, 1, 0, 0),
      compactable: 0,
    });
    expect(decision).toEqual({ tier: "silent", reason: "nothing to compact yet" });
  });

  it("follows the lines only, and says so, when no decision model answered", () => {
    const decision = decideTier({ tokens: 101_000, lines: LINES, compactable: 3 });
    expect(decision.tier).toBe("recommend");
    expect(decision.reason).toContain("token lines only");
  });
});

describe("readAdvisorSettings: the line set", () => {
  const advisor = (values: Record<string, unknown>) => ({
    conversation: { compaction: { advisor: values } },
  });

  it("uses the defaults quietly when no line is set", () => {
    const read = readAdvisorSettings({});
    expect(read.settings.lines).toEqual({ notice: 60_000, recommend: 100_000, request: 140_000 });
    expect(read.warnings).toEqual([]);
    expect(read.settings).toMatchObject({ enabled: true, timeoutMs: 5000, cutPoint: true });
  });

  it("takes a complete, strictly increasing set", () => {
    const read = readAdvisorSettings(
      advisor({ notice_tokens: 22_000, recommend_tokens: 28_000, request_tokens: 34_000 }),
    );
    expect(read.settings.lines).toEqual({ notice: 22_000, recommend: 28_000, request: 34_000 });
    expect(read.warnings).toEqual([]);
  });

  it("falls back with all three together when one is missing", () => {
    const read = readAdvisorSettings(advisor({ notice_tokens: 22_000, recommend_tokens: 28_000 }));
    expect(read.settings.lines).toEqual(DEFAULT_TOKEN_LINES);
    expect(read.warnings).toHaveLength(1);
    expect(read.warnings).toEqual([
      "the advisor's token lines are read as a set, and notice 22000, recommend 28000, request unset is not a full, " +
        "strictly increasing one (notice < recommend < request): all three use the defaults 60000/100000/140000; set all three, or none",
    ]);
  });

  it("falls back when the set is not strictly increasing", () => {
    for (const set of [
      { notice_tokens: 50_000, recommend_tokens: 50_000, request_tokens: 90_000 },
      { notice_tokens: 90_000, recommend_tokens: 80_000, request_tokens: 100_000 },
      { notice_tokens: -1, recommend_tokens: 80_000, request_tokens: 100_000 },
    ]) {
      const read = readAdvisorSettings(advisor(set));
      expect(read.settings.lines).toEqual(DEFAULT_TOKEN_LINES);
      expect(read.warnings[0]).toContain("strictly increasing");
    }
  });

  it("lets CXC_ADVISOR_* override the config, line by line, and still checks the set", () => {
    const config = advisor({ notice_tokens: 22_000, recommend_tokens: 28_000, request_tokens: 34_000 });
    const ok = readAdvisorSettings(config, {
      CXC_ADVISOR_REQUEST_TOKENS: "40000",
      CXC_ADVISOR_TIMEOUT_MS: "250",
    });
    expect(ok.settings.lines.request).toBe(40_000);
    expect(ok.settings.timeoutMs).toBe(250);
    const bad = readAdvisorSettings(config, { CXC_ADVISOR_NOTICE_TOKENS: "30000" });
    expect(bad.settings.lines).toEqual(DEFAULT_TOKEN_LINES);
    expect(readAdvisorSettings({}, { CXC_ADVISOR_ENABLED: "false" }).settings.enabled).toBe(false);
  });

  it("warns and keeps the default for a bad scalar", () => {
    const read = readAdvisorSettings(advisor({ timeout_ms: "soon" }));
    expect(read.settings.timeoutMs).toBe(5000);
    expect(read.warnings[0]).toContain("timeout_ms");
  });

  it("offers the decision model's declared choice-option limit minus one turns, else 12 (MAX_TURNS)", () => {
    expect(readAdvisorSettings({}).settings.maxTurns).toBe(12);
    const declared = readAdvisorSettings(advisor({ choice_options: 8 }));
    expect(declared.settings).toMatchObject({ maxTurns: 7, choiceOptions: 8 });
    expect(declared.warnings).toEqual([]);
    expect(readAdvisorSettings({}, { CXC_ADVISOR_CHOICE_OPTIONS: "5" }).settings.maxTurns).toBe(4);
    // The package's own variable inside pi, below the limit: kept.
    const env = withPackageVariables({ AE_PI_COMPACT_ADVISOR_MAX_TURNS: "3" });
    expect(readAdvisorSettings(advisor({ choice_options: 8 }), env).settings.maxTurns).toBe(3);
    // More turns than the model can list: the limit, said.
    const over = readAdvisorSettings(advisor({ choice_options: 8, max_turns: 20 }));
    expect(over.settings.maxTurns).toBe(7);
    expect(over.warnings).toEqual([
      "conversation.compaction.advisor.max_turns = 20 is more than the decision model's 8 choice options allow; using 7",
    ]);
    const bad = readAdvisorSettings(advisor({ choice_options: 1 }));
    expect(bad.settings.maxTurns).toBe(12);
    expect(bad.warnings).toEqual([
      "conversation.compaction.advisor.choice_options = 1 is not a count of at least 2; treated as not declared",
    ]);
  });
});

describe("decideAnnouncement: the no-repeat rule", () => {
  it("announces a tier once, then not again in a row; an escalation is announced", () => {
    const sequence: Tier[] = [
      "silent",
      "notice",
      "notice",
      "silent",
      "notice",
      "recommend",
      "recommend",
      "request",
      "request",
    ];
    let state = clearAnnouncements();
    const announced: Tier[] = [];
    for (const tier of sequence) {
      const step = decideAnnouncement(state, tier);
      if (step.announce) announced.push(tier);
      state = step.state;
    }
    expect(announced).toEqual(["notice", "recommend", "request"]);
  });

  it("never announces a quieter tier after a louder one: the context only eased off", () => {
    let state = decideAnnouncement({}, "request").state;
    for (const tier of ["recommend", "notice", "recommend"] as const) {
      const step = decideAnnouncement(state, tier);
      expect(step.announce).toBe(false);
      state = step.state;
    }
    expect(decideAnnouncement(state, "request").announce).toBe(false);
  });

  it("announces the same tier again after a compaction cleared the state", () => {
    const first = decideAnnouncement({}, "recommend");
    expect(decideAnnouncement(first.state, "recommend").announce).toBe(false);
    expect(decideAnnouncement(clearAnnouncements(), "recommend").announce).toBe(true);
  });
});

describe("tierHeadline: the words follow the number", () => {
  it('says "nearly full" only near the window, else the request line', () => {
    expect(tierHeadline("request", 180_000, 200_000)).toBe(
      "Compaction requested: the context is nearly full",
    );
    expect(tierHeadline("request", 150_000, 200_000)).toBe(
      "Compaction requested: the context is past the request line you set",
    );
    expect(tierHeadline("request", 150_000, undefined)).toBe(
      "Compaction requested: the context is past the request line you set",
    );
    expect(tierHeadline("recommend", 199_000, 200_000)).toBe("Recommended: compact now");
  });
});

describe("moveCutEarlier: the cut point", () => {
  const planned = { from: 0, to: 9 };

  it("moves the end onto the turn before a confident pick", () => {
    expect(moveCutEarlier(planned, { turn: 6, confidence: 0.9 })).toEqual({ to: 5 });
  });

  it("never moves the end later", () => {
    expect(moveCutEarlier(planned, { turn: 12, confidence: 1 })).toEqual({ to: 9 });
    expect(moveCutEarlier(planned, { turn: 10, confidence: 1 })).toEqual({ to: 9 });
  });

  it("keeps the planned end for an unsure pick or no pick", () => {
    expect(moveCutEarlier(planned, { turn: 6, confidence: 0.59 })).toEqual({ to: 9 });
    expect(moveCutEarlier(planned, undefined)).toEqual({ to: 9 });
  });

  it("keeps the planned end when the pick would leave nothing to compact", () => {
    expect(moveCutEarlier(planned, { turn: 0, confidence: 1 })).toEqual({ to: 9 });
    expect(moveCutEarlier({ from: 3, to: 9 }, { turn: 3, confidence: 1 })).toEqual({ to: 9 });
    expect(moveCutEarlier({ from: 3, to: 9 }, { turn: 4, confidence: 1 })).toEqual({ to: 3 });
  });

  it("cuts inside a planned turn at a confident pick of its cycle (never later)", () => {
    expect(moveCutEarlier(planned, { turn: 6, cycle: 3, confidence: 0.9 })).toEqual({ to: 6, toCycle: 2 });
    expect(moveCutEarlier(planned, { turn: 9, cycle: 1, confidence: 0.9 })).toEqual({ to: 9, toCycle: 0 });
    expect(moveCutEarlier({ from: 3, to: 9 }, { turn: 3, cycle: 1, confidence: 1 })).toEqual({
      to: 3,
      toCycle: 0,
    });
    // Inside the turn after the planned end would compact more than planned.
    expect(moveCutEarlier(planned, { turn: 10, cycle: 4, confidence: 1 })).toEqual({ to: 9 });
    expect(moveCutEarlier(planned, { turn: 6, cycle: 3, confidence: 0.5 })).toEqual({ to: 9 });
  });

  it("offers the last max_turns turns up to the turn after the planned end", () => {
    expect(cutPointCandidates(planned, 4)).toEqual([7, 8, 9, 10]);
    expect(cutPointCandidates({ from: 0, to: 1 }, 12)).toEqual([1, 2]);
  });
});

describe("automatic compaction", () => {
  it("reads the trigger as a fraction or a token count", () => {
    expect(readAutoTrigger(0.75)).toEqual({ kind: "fraction", fraction: 0.75 });
    expect(readAutoTrigger("80%")).toEqual({ kind: "fraction", fraction: 0.8 });
    expect(readAutoTrigger(150_000)).toEqual({ kind: "tokens", tokens: 150_000 });
    expect(readAutoTrigger("150000")).toEqual({ kind: "tokens", tokens: 150_000 });
    expect(readAutoTrigger(0)).toBeUndefined();
    expect(readAutoTrigger("soon")).toBeUndefined();
    expect(autoTriggerTokens({ kind: "fraction", fraction: 0.8 }, 200_000)).toBe(160_000);
    expect(autoTriggerTokens({ kind: "fraction", fraction: 0.8 }, undefined)).toBeUndefined();
    expect(autoTriggerTokens({ kind: "tokens", tokens: 1000 }, undefined)).toBe(1000);
  });

  it("is off by default and reads its keys", () => {
    expect(readAutoSettings({}).settings.enabled).toBe(false);
    const read = readAutoSettings({
      conversation: {
        compaction: { auto: { enabled: true, trigger: 5000, keep_last: 3, keep_last_cycles: 7 } },
      },
    });
    expect(read.settings).toEqual({
      enabled: true,
      trigger: { kind: "tokens", tokens: 5000 },
      keepLast: 3,
      keepLastCycles: 7,
    });
    expect(readAutoSettings({}).settings.keepLastCycles).toBe(5);
  });

  it("plans all but the last turns; with too few, all but the last cycles of one long turn", () => {
    expect(planAutoRange(10, 2)).toEqual({ from: 0, to: 7 });
    expect(planAutoRange(2, 2)).toBeUndefined();
    expect(planAutoRange(2, 2, [3, 5], 5)).toBeUndefined();
    // One turn answered by 20 calls and an answer: 21 cycles, the last 5 kept.
    expect(planAutoRange(1, 2, [21], 5)).toEqual({ from: 0, to: 0, toCycle: 15 });
    expect(planAutoRange(2, 2, [3, 9], 5)).toEqual({ from: 0, to: 1, toCycle: 3 });
  });

  it("offers the turns up to one whose cycles are being cut, and moves the cut only earlier inside it", () => {
    const inside = { from: 0, to: 0, toCycle: 15 };
    expect(cutPointCandidates(inside, 12)).toEqual([0]);
    expect(moveCutEarlier(inside, { turn: 0, cycle: 12, confidence: 0.9 })).toEqual({ to: 0, toCycle: 11 });
    expect(moveCutEarlier(inside, { turn: 0, cycle: 17, confidence: 0.9 })).toEqual({ to: 0, toCycle: 15 });
    // The turn's start leaves nothing before it.
    expect(moveCutEarlier(inside, { turn: 0, confidence: 0.9 })).toEqual({ to: 0, toCycle: 15 });
    const two = { from: 0, to: 1, toCycle: 3 };
    expect(cutPointCandidates(two, 12)).toEqual([0, 1]);
    expect(moveCutEarlier(two, { turn: 1, confidence: 0.9 })).toEqual({ to: 0 });
  });

  it("reads auto.rules, and falls back to the default with a warning when they are unusable", () => {
    const auto = (rules: unknown) => ({ conversation: { compaction: { auto: { rules } } } });
    const read = readAutoSettings(auto([{ summary: { model: { id: "openai/gpt-5" } } }]));
    expect(read.warnings).toEqual([]);
    expect(read.settings.rules).toEqual([{ summary: { model: { id: "openai/gpt-5" } } }]);
    const bad = readAutoSettings(auto([{ tool_calls: "sometimes" }]));
    expect(bad.settings.rules).toBeUndefined();
    expect(bad.warnings[0]).toContain("conversation.compaction.auto.rules");
    const empty = readAutoSettings(auto([{ keep_last: 3 }]));
    expect(empty.settings.rules).toBeUndefined();
    expect(empty.warnings[0]).toContain("no rule has a policy");
  });

  it("adds the note to the context of configured summary rules", () => {
    const rules = buildAutoRules("the auth refactor", [
      { reasoning: "strip" },
      { summary: { context: "be brief" } },
    ]);
    expect(rules).toHaveLength(2);
    expect(rules[0]).toMatchObject({ reasoning: "strip" });
    expect(rules[1]!.summary).toEqual({ context: "be brief\n\nthe auth refactor" });
    expect(buildAutoRules()[1]!.summary).toEqual({});
  });

  it("strips reasoning and tools, then summarizes with the note as focus", () => {
    const rules = buildAutoRules("keep the file list");
    expect(rules[0]).toMatchObject({ reasoning: "strip", tool_calls: "strip" });
    expect(rules[0]!.summary).toBeUndefined();
    expect(rules[1]!.summary).toEqual({ context: "keep the file list" });
  });

  const autoCompaction = (turn: number, before: number, after: number): Compaction => ({
    type: "compaction",
    id: `c${turn}`,
    ts: "2026-01-01T00:00:00Z",
    from_turn: 0,
    to_turn: 1,
    source: "auto",
    metadata: { [AUTO_METADATA_KEY]: { tokens_before: before, tokens_after: after, turn } },
  });

  it("holds a compaction that saved under 10% on the next turn only", () => {
    const poor = [autoCompaction(4, 1000, 950)];
    expect(isHeldByNoLoopGuard(poor, 5)).toBe(true);
    expect(isHeldByNoLoopGuard(poor, 6)).toBe(false);
    expect(isHeldByNoLoopGuard([autoCompaction(4, 1000, 800)], 5)).toBe(false);
    expect(isHeldByNoLoopGuard([], 5)).toBe(false);
  });
});

describe("the decision tools", () => {
  it("send the JSON Schema of the zod schemas that validate the answers", () => {
    const parameters = ADVISOR_QUESTIONS_TOOL.parameters as {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(parameters.required).toEqual(["switched_gears", "at_boundary", "needs_history", "mid_operation"]);
    expect(parameters.properties.mid_operation).toMatchObject({ type: "number", minimum: 0, maximum: 1 });
    expect(parameters).not.toHaveProperty("$schema");
    expect((LIVE_FROM_TOOL.parameters as { required: string[] }).required).toEqual([
      "live_from_turn",
      "confidence",
    ]);
  });
});

describe("parseAdvisorAnswers", () => {
  it("accepts four numbers in 0..1 and names the first problem otherwise", () => {
    expect(parseAdvisorAnswers(signals(0.1, 0.2, 0.3, 0.4))).toEqual({
      ok: true,
      signals: signals(0.1, 0.2, 0.3, 0.4),
    });
    const bad = parseAdvisorAnswers({ ...signals(0.1, 0.2, 0.3, 0.4), mid_operation: 2 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toContain("mid_operation");
  });
});
