/**
 * Durations and timestamp arithmetic for range bounds (pure): jp's humantime-like parser, the
 * formatter that reads back, and exact timestamp shifts.
 */
import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration, shiftTimestamp } from "../../src/core/position/duration.js";

describe("durations", () => {
  it.each([
    ["5h", 5 * 3_600_000],
    ["2days", 2 * 86_400_000],
    ["30d", 30 * 86_400_000],
    ["1h 30m", 90 * 60_000],
    ["90min", 90 * 60_000],
    ["45s", 45_000],
    ["2w", 14 * 86_400_000],
    ["1hr30mins", 90 * 60_000],
    ["3 hours", 3 * 3_600_000],
  ])("parses %s", (text, milliseconds) => {
    expect(parseDuration(text)).toEqual({ ok: true, value: milliseconds });
  });

  it.each([
    ["", "value was empty"],
    ["5", "time unit needed, for example 5sec or 5min"],
    ["5x", "unknown time unit `x`, supported units: s, m, h, d, w"],
    ["h5", "expected number at 0"],
  ])("rejects %j", (text, message) => {
    expect(parseDuration(text)).toEqual({ ok: false, message });
  });

  it("formats durations it can read back", () => {
    expect(formatDuration(90 * 60_000)).toBe("1h 30m");
    expect(parseDuration(formatDuration(9 * 86_400_000 + 5000))).toEqual({
      ok: true,
      value: 9 * 86_400_000 + 5000,
    });
  });

  it("shifts timestamps exactly", () => {
    expect(shiftTimestamp("2026-01-01T00:00:00.123456789Z", -3_600_000)).toBe(
      "2025-12-31T23:00:00.123456789Z",
    );
    expect(shiftTimestamp("2026-05-29 19:42:36.46732", 0)).toBe("2026-05-29T19:42:36.467320000Z");
    expect(shiftTimestamp("not a time", 0)).toBeUndefined();
  });
});
