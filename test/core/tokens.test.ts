/** Token accounting per turn and kind, the provider's scale, and the text renderers. */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/core/conversation/events.js";
import { SUMMARY_REQUEST_TEXT } from "../../src/core/conversation/projection.js";
import {
  countTurnTokens,
  formatTokenCount,
  plausibleScale,
  renderTokenBars,
  summarizeTokens,
  type TokenCounter,
  tokenKindRows,
} from "../../src/core/conversation/tokens.js";
import { groupTurns, type Turn } from "../../src/core/conversation/turns.js";
import { loadSample } from "../helpers/sample.js";

/** One token per character: makes every expected number readable. */
const countCharacters: TokenCounter = (text) => text.length;

let sequence = 0;
const base = () => ({ id: `E${++sequence}`, ts: "2026-01-01T00:00:00Z" });
const turnStart = (): TurnEvent => ({ ...base(), type: "turn_start" });
const user = (content: string): TurnEvent => ({ ...base(), type: "chat_request", content });
const say = (message: string, metadata?: Record<string, unknown>): TurnEvent => ({
  ...base(),
  type: "chat_response",
  message,
  ...(metadata ? { metadata } : {}),
});
const think = (reasoning: string): TurnEvent => ({ ...base(), type: "chat_response", reasoning });
const call = (name: string, args: Record<string, unknown>, content: string): TurnEvent[] => [
  { ...base(), type: "tool_call_request", call_id: `c${sequence}`, name, arguments: args },
  { ...base(), type: "tool_call_response", call_id: `c${sequence}`, content, is_error: false },
];
const turns = (...groups: TurnEvent[][]): Turn[] =>
  groupTurns(groups.flatMap((events) => [turnStart(), ...events]));

describe("countTurnTokens", () => {
  it("counts each kind of content", () => {
    const [turn] = turns([
      user("hello"),
      think("hmm"),
      say("hi!"),
      ...call("read_file", { path: "a" }, "0123456789"),
    ]);
    const counted = countTurnTokens(turn!, countCharacters);
    expect(counted.byKind).toEqual({
      user: 5,
      assistant: 3,
      reasoning: 3,
      tool_arguments: 'read_file {"path":"a"}'.length,
      tool_output: 10,
      summary: 0,
    });
    expect(counted.total).toBe(5 + 3 + 3 + 22 + 10);
    expect(counted.usage).toBeUndefined();
  });

  it("counts a projected summary turn as summary", () => {
    const [turn] = turns([user(SUMMARY_REQUEST_TEXT), say("we built X")]);
    const counted = countTurnTokens(turn!, countCharacters);
    expect(counted.byKind.summary).toBe(SUMMARY_REQUEST_TEXT.length + "we built X".length);
    expect(counted.byKind.user).toBe(0);
    expect(counted.byKind.assistant).toBe(0);
  });

  it("reads the usage of the turn's last request that reported one, and ignores malformed or empty usage", () => {
    const usage = { input_tokens: 3, output_tokens: 20, cache_read_input_tokens: 100 };
    const later = { input_tokens: 5, output_tokens: 1, reasoning_tokens: 1, reported_by: "pi" };
    const [withUsage, earlierOnly, twoRequests, malformed, empty] = turns(
      [user("q"), say("a", { usage })],
      [user("q"), say("a", { usage }), say("b")],
      [user("q"), say("a", { usage }), say("b", { usage: later })],
      [user("q"), say("a", { usage: { input_tokens: "3", output_tokens: 1 } })],
      [user("q"), say("a", { usage: { input_tokens: 0, output_tokens: 0 } })],
    );
    const full = { ...usage, cache_creation_input_tokens: 0 };
    expect(countTurnTokens(withUsage!, countCharacters).usage).toEqual(full);
    expect(countTurnTokens(earlierOnly!, countCharacters).usage).toEqual(full);
    expect(countTurnTokens(twoRequests!, countCharacters).usage).toEqual({
      ...later,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    expect(countTurnTokens(malformed!, countCharacters).usage).toBeUndefined();
    expect(countTurnTokens(empty!, countCharacters).usage).toBeUndefined();
  });
});

describe("counting an event once per counter", () => {
  it("counts each event object once, however many views share it, and again for another counter", () => {
    const seen: string[] = [];
    const counting: TokenCounter = (text) => {
      seen.push(text);
      return text.length;
    };
    const view = turns([user("hello"), ...call("read_file", { path: "a.ts" }, "content")]);
    const first = summarizeTokens(view, counting);
    const calls = seen.length;
    expect(calls).toBeGreaterThan(0);
    // A second view holding the same event objects (as projections do for turns they leave alone).
    expect(summarizeTokens([...view], counting)).toEqual(first);
    expect(seen).toHaveLength(calls);
    // Another counter counts for itself.
    const other: TokenCounter = (text) => text.length * 2;
    expect(summarizeTokens(view, other).total).toBe(first.total * 2);
    // Equal content in new objects is counted again (the memo is by event, not by text).
    summarizeTokens(turns([user("hello")]), counting);
    expect(seen.slice(calls)).toEqual(["hello"]);
  });
});

describe("summarizeTokens", () => {
  it("sums turns and kinds", () => {
    const summary = summarizeTokens(
      turns([user("ab"), say("cd")], [user("ef"), think("gh")]),
      countCharacters,
    );
    expect(summary.turns.map((turn) => turn.total)).toEqual([4, 4]);
    expect(summary.byKind).toMatchObject({ user: 4, assistant: 2, reasoning: 2 });
    expect(summary.total).toBe(8);
  });

  it("on the sample with o200k, puts tool output first", () => {
    const summary = summarizeTokens(loadSample().turns, countTokens);
    expect(summary.turns).toHaveLength(20);
    const largest = tokenKindRows(summary.byKind).sort((left, right) => right.value - left.value)[0];
    expect(largest?.label).toBe("tool_output");
    expect(summary.total).toBeGreaterThan(30_000);
  });
});

describe("plausibleScale", () => {
  it("is the ratio of two counts of one context", () => {
    expect(plausibleScale(60, 40)).toBe(1.5);
    expect(plausibleScale(88, 100)).toBe(0.88);
  });

  it("refuses a ratio that no tokenizer difference explains (usage from another context)", () => {
    // A fork that kept only the last turns still carries the usage of the whole original context.
    expect(plausibleScale(620, 20)).toBeUndefined();
    expect(plausibleScale(5, 20)).toBeUndefined();
    expect(plausibleScale(0, 20)).toBeUndefined();
    expect(plausibleScale(20, 0)).toBeUndefined();
  });
});

describe("formatTokenCount", () => {
  it.each([
    [0, "0"],
    [950, "950"],
    [999.4, "999"],
    [1000, "1.0k"],
    [4_812, "4.8k"],
    [48_213, "48.2k"],
    [99_949, "99.9k"],
    [99_950, "100k"],
    [482_000, "482k"],
    [999_499, "999k"],
    [999_500, "1.0M"],
    [1_250_000, "1.3M"],
    [123_000_000, "123M"],
    [-4_812, "-4.8k"],
  ])("%d → %s", (count, expected) => expect(formatTokenCount(count)).toBe(expected));
});

describe("renderTokenBars", () => {
  it("scales bars to the largest value in eighths of a cell", () => {
    const chart = renderTokenBars(
      [
        { label: "user", value: 1_000 },
        { label: "tool_output", value: 8_000 },
        { label: "summary", value: 0 },
        { label: "reasoning", value: 1 },
      ],
      4,
    );
    expect(chart).toBe(
      ["user         1.0k  ▌", "tool_output  8.0k  ████", "summary         0", "reasoning       1  ▏"].join(
        "\n",
      ),
    );
  });

  it("keeps at least one cell and handles an empty list", () => {
    expect(renderTokenBars([{ label: "a", value: 5 }], 0)).toBe("a  5  █");
    expect(renderTokenBars([], 10)).toBe("");
  });

  it("lists kinds with tokens in a fixed order", () => {
    const rows = tokenKindRows({
      user: 1,
      assistant: 0,
      reasoning: 3,
      tool_arguments: 0,
      tool_output: 2,
      summary: 0,
    });
    expect(rows.map((row) => row.label)).toEqual(["user", "reasoning", "tool_output"]);
  });
});
