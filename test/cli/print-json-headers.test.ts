/**
 * `print --format json` gives each block's header as fields, not only as display text: `kind`
 * (`turn`, `summary`), `from_turn`, `to_turn`, a summary's `compaction_id`, and the cycles a
 * summary replaced inside a kept turn (`summarized_cycles`), all 1-based like the command line.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import { compactionsOf, homeWithSample } from "./compact-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

interface Block {
  header: string;
  kind: string;
  from_turn: number;
  to_turn: number;
  compaction_id?: string;
  summarized_cycles: Record<string, unknown>[];
  turns: number[];
}

describe("print --format json headers", () => {
  it("are fields for raw turns, summaries of turns and summaries inside a turn", async () => {
    home = await homeWithSample();
    const raw = JSON.parse(
      (await home.run(["--format", "json", "conversation", "print", "--turn", "3"])).stdout,
    );
    expect(raw.turns.map(({ events: _events, ...block }: Block & { events: unknown }) => block)).toEqual([
      {
        header: expect.stringMatching(/^turn 3 · /),
        kind: "turn",
        from_turn: 3,
        to_turn: 3,
        summarized_cycles: [],
        turns: [3],
      },
    ]);
    for (const spec of ["s:2..5", "s:19.1..19.2"]) {
      const result = await home.run(["conversation", "compact", "-k", spec]);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    const [turns, cycles] = compactionsOf(home);
    const printed = await home.run(["--format", "json", "conversation", "print", "--compacted"]);
    const blocks = JSON.parse(printed.stdout).turns as Block[];
    const fields = (block: Block) => {
      const { events: _events, ...rest } = block as Block & { events: unknown };
      return rest;
    };
    expect(fields(blocks[1]!)).toEqual({
      header: "turns 2..5 (summary)",
      kind: "summary",
      from_turn: 2,
      to_turn: 5,
      compaction_id: turns!.id,
      summarized_cycles: [],
      turns: [2, 3, 4, 5],
    });
    const nineteen = blocks.find((block) => block.from_turn === 19)!;
    expect(fields(nineteen)).toEqual({
      header: "turn 19 (cycles 1..2 summarized)",
      kind: "turn",
      from_turn: 19,
      to_turn: 19,
      summarized_cycles: [
        { from_turn: 19, from_cycle: 1, to_turn: 19, to_cycle: 2, compaction_id: cycles!.id },
      ],
      turns: [19],
    });
  });
});
