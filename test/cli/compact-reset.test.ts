/**
 * `compact --reset`, `--reset=N` and `--undo-reset`: resets are appended events (nothing is
 * deleted), numbered as `show` numbers the compactions in force, undoable, and previewable.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { errorLines } from "./conversation-helpers.js";
import { compactionsOf, homeWithSample, logBytes, readEvents, SAMPLE_ID } from "./compact-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

async function activeRanges(): Promise<string[]> {
  const shown = await home.run(["--format", "json", "conversation", "show"]);
  return JSON.parse(shown.stdout).compactions.map(
    (item: { number: number; from_turn: number; to_turn: number }) =>
      `${item.number}:${item.from_turn}..${item.to_turn}`,
  );
}

describe("cxc conversation compact --reset", () => {
  it("retires the N-th compaction in force, records it, and undoes it", async () => {
    home = await homeWithSample();
    for (const turns of ["1..2", "3..5", "7..9"]) {
      const result = await home.run(["conversation", "compact", "-r", "--turn", turns]);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    expect(await activeRanges()).toEqual(["1:1..2", "2:3..5", "3:7..9"]);

    const preview = await home.run(["conversation", "compact", "--reset=2", "--dry-run"]);
    expect(preview.stdout).toBe("Would remove compaction 2 (turns 3..5).\n");
    const before = logBytes(home);
    const reset = await home.run(["conversation", "compact", "--reset=2"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stdout).toBe("Removed compaction 2 (turns 3..5).\n");
    expect(reset.stderr).toContain("--undo-reset");
    // Appended, never rewritten: the old bytes are a prefix of the new log.
    expect(logBytes(home).startsWith(before)).toBe(true);
    const last = readEvents(home).at(-1);
    expect(last).toMatchObject({ type: "compaction_reset", retires: [compactionsOf(home)[1]!.id] });
    expect(await activeRanges()).toEqual(["1:1..2", "2:7..9"]);

    const undo = await home.run(["conversation", "compact", "--undo-reset"]);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(
      /^Undid the reset made (just now|\d+ seconds? ago): 1 compaction comes back \(turns 3\.\.5\)\.\n$/,
    );
    expect(await activeRanges()).toEqual(["1:1..2", "2:3..5", "3:7..9"]);
  });

  it("retires the compactions from A to B with --reset=A..B, in one reset one --undo-reset undoes", async () => {
    home = await homeWithSample();
    for (const turns of ["1..2", "3..5", "7..9"]) {
      expect((await home.run(["conversation", "compact", "-r", "--turn", turns])).exitCode).toBe(0);
    }
    const reset = await home.run(["conversation", "compact", "--reset=2..3"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stdout).toBe("Removed compactions 2..3 (turns 3..5; turns 7..9).\n");
    expect(readEvents(home).filter((event) => event.type === "compaction_reset")).toHaveLength(1);
    expect(await activeRanges()).toEqual(["1:1..2"]);
    const undo = await home.run(["conversation", "compact", "--undo-reset"]);
    expect(undo.stdout).toContain("2 compactions come back (turns 3..5, 7..9)");
    expect(await activeRanges()).toEqual(["1:1..2", "2:3..5", "3:7..9"]);
    const before = logBytes(home);
    for (const [value, error] of [
      ["0..2", "compaction indices are 1-based; `0` is not a valid index"],
      ["3..1", "invalid compaction range '3..1': 3 is after 1"],
      ["2..9", `conversation ${SAMPLE_ID}: compaction 9 out of range (conversation has 3 compaction events)`],
    ] as const) {
      const bad = await home.run(["conversation", "compact", `--reset=${value}`]);
      expect(bad.exitCode, value).not.toBe(0);
      expect(errorLines(bad.stderr).error).toBe(error);
    }
    expect(logBytes(home)).toBe(before);
  });

  it("retires everything with a bare --reset, and treats `--reset ID` as the target", async () => {
    home = await homeWithSample();
    await home.run(["conversation", "compact"]);
    await home.run(["conversation", "compact", "-k", "s:2..4", "-m", "builtin/digest"]);
    const preview = await home.run(["conversation", "compact", "--reset", "--dry-run"]);
    expect(preview.stdout).toBe("Would remove 2 compaction events.\n");
    const reset = await home.run(["conversation", "compact", "--reset", "sample0"]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    expect(reset.stdout).toBe("Removed 2 compaction events.\n");
    expect(await activeRanges()).toEqual([]);
    const again = await home.run(["conversation", "compact", "--reset"]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe("No compaction events to remove.\n");
    // The projection is back to raw: print --compacted shows 20 single turns.
    const printed = await home.run(["--format", "json", "conversation", "print", "--compacted"]);
    expect(JSON.parse(printed.stdout).turns).toHaveLength(20);
  });

  it("rejects bad indexes and conflicting flags with exit 2 and changes nothing", async () => {
    home = await homeWithSample();
    await home.run(["conversation", "compact"]);
    const before = logBytes(home);
    const cases: [string[], string][] = [
      [["--reset=0"], "compaction indices are 1-based; `0` is not a valid index"],
      [["--reset=x"], "invalid compaction index 'x'"],
      [
        ["--reset=4"],
        "conversation sample000001: compaction 4 out of range (conversation has 1 compaction event)",
      ],
      [["--reset", "-r"], "--reset cannot be used with --reasoning"],
      [["--reset", "-k", "s"], "--reset cannot be used with --compact"],
      [["--reset", "--keep-last", "5"], "--reset cannot be used with --keep-last"],
      [["--reset", "-m", "builtin/digest"], "--reset cannot be used with --model"],
      [["--undo-reset", "--reset"], "--undo-reset cannot be used with --reset"],
    ];
    for (const [args, message] of cases) {
      const result = await home.run(["conversation", "compact", ...args]);
      expect(result.exitCode, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(errorLines(result.stderr).error).toBe(message);
    }
    expect(logBytes(home)).toBe(before);
    const nothing = await home.run(["conversation", "compact", "--undo-reset"]);
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stdout).toBe("No compaction reset to undo.\n");
  });
});
