/** The summary check: what a summary of a range lost, by kind, most important first. */
import { describe, expect, it } from "vitest";
import { digestTurns } from "../../src/core/digest.js";
import type { TurnEvent } from "../../src/core/events.js";
import { checkSummary, findConstraints, findIdentifiers, findNumbers } from "../../src/core/summary-check.js";
import { groupTurns, type Turn } from "../../src/core/turns.js";
import { loadSample } from "../helpers/sample.js";

let sequence = 0;
const base = () => ({ id: `E${++sequence}`, ts: "2026-01-01T00:00:00Z" });
const turnStart = (): TurnEvent => ({ ...base(), type: "turn_start" });
const user = (content: string): TurnEvent => ({ ...base(), type: "chat_request", content });
const say = (message: string): TurnEvent => ({ ...base(), type: "chat_response", message });
const think = (reasoning: string): TurnEvent => ({ ...base(), type: "chat_response", reasoning });
const call = (name: string, args: Record<string, unknown>, content = "ok"): TurnEvent[] => [
  { ...base(), type: "tool_call_request", call_id: `c${sequence}`, name, arguments: args },
  { ...base(), type: "tool_call_response", call_id: `c${sequence}`, content, is_error: false },
];
const turns = (...groups: TurnEvent[][]): Turn[] =>
  groupTurns(groups.flatMap((events) => [turnStart(), ...events]));
const values = (items: readonly { value: string }[]) => items.map((item) => item.value);

describe("checkSummary", () => {
  const conversation = turns(
    [
      user("Add `--since` to the CLI. Don't add dependencies. It must work on Node 20."),
      think("maybe useSecretHelper here"),
      say("I'll put parseSince in src/since.ts and wire it into parseCommandLine."),
      ...call(
        "read_file",
        { path: "src/cli.ts" },
        "const UNIT_MILLISECONDS = 1; // tool output is not searched",
      ),
      ...call("run_command", { command: "npx vitest run test/since.test.ts" }),
    ],
    [user("The big file is 400 MB; keep memory flat."), say("It took 7 s on v20.11.1.")],
  );
  const range = { fromTurn: 0, toTurn: 1 };

  it("lists everything when the summary says nothing", () => {
    const losses = checkSummary(conversation, range, "");
    expect(values(losses.paths)).toEqual(["src/since.ts", "src/cli.ts", "test/since.test.ts"]);
    expect(values(losses.identifiers)).toEqual(["--since", "parseSince", "parseCommandLine"]);
    expect(values(losses.numbers)).toEqual(["Node 20", "400 MB", "7 s", "v20.11.1"]);
    expect(values(losses.constraints)).toEqual(["Don't add dependencies.", "It must work on Node 20."]);
    expect(losses.omitted).toEqual({ paths: 0, identifiers: 0, numbers: 0, constraints: 0 });
  });

  it("leaves out reasoning and tool output", () => {
    const losses = checkSummary(conversation, range, "");
    const everything = JSON.stringify(losses);
    expect(everything).not.toContain("useSecretHelper");
    expect(everything).not.toContain("UNIT_MILLISECONDS");
  });

  it("drops what the summary mentions, loosely for file names, numbers and constraints", () => {
    const summary =
      "Added --since via parseSince (since.ts) and parseCommandLine; src/cli.ts read. Node20 required, " +
      "no new dependencies added. The file is 400MB.";
    const losses = checkSummary(conversation, range, summary);
    expect(values(losses.paths)).toEqual(["test/since.test.ts"]);
    expect(values(losses.identifiers)).toEqual([]);
    expect(values(losses.numbers)).toEqual(["7 s", "v20.11.1"]);
    expect(values(losses.constraints)).toEqual(["It must work on Node 20."]);
  });

  it("weights user mentions over assistant and tool mentions and records the first turn", () => {
    const losses = checkSummary(conversation, range, "");
    expect(losses.paths[0]).toEqual({ value: "src/since.ts", weight: 2, firstTurn: 0 });
    expect(losses.identifiers[0]).toEqual({ value: "--since", weight: 3, firstTurn: 0 });
    expect(losses.numbers[1]).toEqual({ value: "400 MB", weight: 3, firstTurn: 1 });
  });

  it("only looks at the range", () => {
    const losses = checkSummary(conversation, { fromTurn: 1, toTurn: 1 }, "");
    expect(values(losses.paths)).toEqual([]);
    expect(values(losses.numbers)).toEqual(["400 MB", "7 s", "v20.11.1"]);
  });

  it("caps each list and counts what it left out", () => {
    const losses = checkSummary(conversation, range, "", { limit: 1 });
    expect(values(losses.paths)).toEqual(["src/since.ts"]);
    expect(losses.omitted).toEqual({ paths: 2, identifiers: 2, numbers: 3, constraints: 1 });
  });

  it("finds nothing lost in the builtin digest's paths and constraints on the sample", () => {
    const { turns: sample } = loadSample();
    for (const sampleRange of [
      { fromTurn: 0, toTurn: 19 },
      { fromTurn: 3, toTurn: 11 },
    ]) {
      const losses = checkSummary(sample, sampleRange, digestTurns(sample, sampleRange));
      expect(losses.constraints).toEqual([]);
      // Only paths written in prose (a branch name) can be missing; every tool path is in the digest.
      expect(values(losses.paths).filter((path) => path !== "feature/since")).toEqual([]);
    }
  });

  it("reports the sample's key facts against a thin summary", () => {
    const { turns: sample } = loadSample();
    const losses = checkSummary(sample, { fromTurn: 0, toTurn: 19 }, "Added a --since flag to logcat.");
    expect(values(losses.paths)).toContain("src/since.ts");
    expect(values(losses.identifiers)).toContain("parseSince");
    expect(values(losses.numbers).slice(0, 2)).toEqual(["Node 20", "400 MB"]);
    expect(losses.constraints.some((item) => item.value.includes("don't add dependencies"))).toBe(true);
  });
});

describe("extractors", () => {
  it("finds code-like identifiers, longest first at a position", () => {
    expect(
      findIdentifiers(
        "Call Number.isNaN in parseSince; FilterOptions, fs_read_file, MAX_SIZE, std::fs::read, --noEmit",
      ),
    ).toEqual([
      "Number.isNaN",
      "parseSince",
      "FilterOptions",
      "fs_read_file",
      "MAX_SIZE",
      "std::fs::read",
      "--noEmit",
    ]);
  });

  it("does not take file names, abbreviations or plain words for identifiers", () => {
    expect(findIdentifiers("Edit since.ts, e.g. the Parser, then README.md and --")).toEqual([]);
  });

  it("finds quantities and versions but not bare numbers", () => {
    expect(
      findNumbers("In 2026 turn 3 took 7 s, 2h or 1h30m, 400 MB, 12.5% on Node 20 (v20.11.1, 0.4.2)"),
    ).toEqual(["7 s", "2h", "1h30m", "400 MB", "12.5%", "Node 20", "v20.11.1", "0.4.2"]);
  });

  it("finds binding user sentences", () => {
    expect(
      findConstraints(
        "Please look. You must keep it pure; never touch main.\n- Always run lint\nThanks, that is all.",
      ),
    ).toEqual(["You must keep it pure;", "never touch main.", "Always run lint"]);
  });
});
