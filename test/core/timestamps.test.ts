/**
 * The timestamps the agents' readers and the import's event ids go through (jp-encoding.ts): the
 * time of day is computed, each day is checked or printed once with `Date`; the results must be
 * exactly `Date`'s, for any time, in any order (the day remembered must never leak into the next).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentTimestamp } from "../../src/core/interop/agent-session.js";
import { isoTimestamp, timestampMilliseconds } from "../../src/core/interop/jp-encoding.js";

/** Any time a `Date` holds, and the edges of days, years and the range. */
const times = fc.oneof(
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
  fc.integer({ min: -1e12, max: 4e12 }),
  fc.constantFrom(0, -1, 1, 86_399_999, 86_400_000, -86_400_000, 951_782_400_000, 8.64e15, -8.64e15),
);

/** What `timestampMilliseconds` gave for `toISOString`'s form before it kept a day: parse, print back, compare. */
function byRoundTrip(value: string): number | undefined {
  const milliseconds = Date.parse(value);
  return !Number.isNaN(milliseconds) && new Date(milliseconds).toISOString() === value
    ? milliseconds
    : undefined;
}

describe("isoTimestamp", () => {
  it("is toISOString for every time, in any order", () => {
    fc.assert(
      fc.property(fc.array(times, { minLength: 1, maxLength: 20 }), (values) => {
        for (const value of values) expect(isoTimestamp(value)).toBe(new Date(value).toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  it("drops a fraction of a millisecond as Date does, and has no answer for a time no Date holds", () => {
    expect(isoTimestamp(1.9)).toBe(new Date(1.9).toISOString());
    expect(isoTimestamp(-1.9)).toBe(new Date(-1.9).toISOString());
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1, -8.64e15 - 1, 1e20]) {
      expect(isoTimestamp(value)).toBeUndefined();
      expect(agentTimestamp(value)).toBeUndefined();
    }
  });
});

describe("timestampMilliseconds", () => {
  it("reads toISOString's form as Date does, in any order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -6e13, max: 2.5e14 }), { minLength: 1, maxLength: 20 }),
        (values) => {
          for (const value of values) {
            const text = new Date(value).toISOString();
            expect(timestampMilliseconds(text)).toBe(value);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("refuses what is no time, right after a real day was checked", () => {
    // Each one right after a valid time on a near day: a day remembered must not vouch for another.
    for (const bad of [
      "2026-02-30T10:00:00.000Z",
      "2026-13-01T10:00:00.000Z",
      "2026-02-00T10:00:00.000Z",
      "2025-02-29T10:00:00.000Z",
    ]) {
      expect(timestampMilliseconds("2026-02-28T10:00:00.000Z")).toBe(Date.parse("2026-02-28T10:00:00.000Z"));
      expect(byRoundTrip(bad)).toBeUndefined();
      expect(timestampMilliseconds(bad)).toBeNaN();
    }
    expect(timestampMilliseconds("2024-02-29T23:59:59.999Z")).toBe(Date.parse("2024-02-29T23:59:59.999Z"));
  });

  it("gives what parsing and printing back gave, for times out of range too", () => {
    const pieces = fc.record({
      day: fc.constantFrom(
        "2026-01-31",
        "2026-02-28",
        "2026-02-29",
        "2024-02-29",
        "2026-04-31",
        "2026-12-31",
      ),
      hour: fc.integer({ min: 0, max: 25 }),
      minute: fc.integer({ min: 0, max: 61 }),
      second: fc.integer({ min: 0, max: 61 }),
      millisecond: fc.integer({ min: 0, max: 999 }),
    });
    const pad = (value: number, width: number) => String(value).padStart(width, "0");
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 1, maxLength: 10 }), (list) => {
        for (const { day, hour, minute, second, millisecond } of list) {
          const text = `${day}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(millisecond, 3)}Z`;
          const before = byRoundTrip(text);
          // What the round trip took, the fast form takes alike; the rest goes to the general reader.
          if (before !== undefined) expect(timestampMilliseconds(text)).toBe(before);
          else if (!Number.isNaN(timestampMilliseconds(text))) {
            // The general reader (jp's forms) takes only real calendar times.
            expect(hour).toBeLessThan(24);
            expect(minute).toBeLessThan(60);
            expect(second).toBeLessThan(60);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
