/**
 * Automatic compaction never writes to a conversation under review (seed D66): it is skipped
 * with a notice, whatever triggered it.
 */
import { describe, expect, it } from "vitest";
import { readAutoSettings } from "../../src/compaction/core/advisor/advisor.js";
import { compactAutomatically } from "../../src/compaction/automatic.js";
import { createCompactionEnvironment } from "../../src/compaction/environment.js";
import { createEventBuilder } from "../helpers/builders.js";

function options(refusal: (() => string | undefined) | undefined, printed: string[]) {
  let counter = 0;
  return {
    advisor: undefined,
    auto: {
      ...readAutoSettings({ conversation: { compaction: { auto: { enabled: true } } } }).settings,
      keepLast: 1,
    },
    contextWindow: 200_000,
    print: (text: string) => printed.push(text),
    countTokens: (text: string) => Math.ceil(text.length / 4),
    reportFailure: () => {},
    compaction: createCompactionEnvironment({
      config: {},
      env: {},
      report: { info: () => {}, warn: () => {} },
      counter: async () => (text: string) => Math.ceil(text.length / 4),
      clock: {
        now: () => "2026-11-30T10:00:00.000Z",
        newEventId: () => `01AUTOTEST${String(++counter).padStart(16, "0")}`,
      },
    }),
    ...(refusal === undefined ? {} : { refusal }),
  };
}

describe("automatic compaction and an open review", () => {
  const build = createEventBuilder();
  const events = [
    ...build.turns(6, { reasoning: "thinking", tools: [{ name: "read_file", result: "x".repeat(200) }] }),
  ];
  const request = { why: "compact_now" as const, atOnce: false, signal: new AbortController().signal };

  it("compacts when no review is open", async () => {
    const printed: string[] = [];
    const compactions = await compactAutomatically(
      events,
      request,
      options(() => undefined, printed),
    );
    expect(compactions.length).toBeGreaterThan(0);
  });

  it("is skipped with a notice while a review is open", async () => {
    const printed: string[] = [];
    const compactions = await compactAutomatically(
      events,
      request,
      options(() => "a compaction review of this conversation is open: 01review", printed),
    );
    expect(compactions).toEqual([]);
    expect(printed.join("\n")).toContain(
      "auto-compact: skipped — a compaction review of this conversation is open",
    );
  });
});
