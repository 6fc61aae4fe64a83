/**
 * `cxc conversation fork`: copies the selected turns with new ids, titles and links the fork,
 * makes it active, carries only the compactions that still describe its history, and never
 * changes the source.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { metaOf, openStore, seedConversation, snapshotTree } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

async function seedSource(): Promise<void> {
  const build = createEventBuilder();
  const events = [
    build.configDelta({ assistant: { model: { id: "anthropic/one" } } }),
    ...build.turns(2),
    build.compaction({ id: "early", from: 0, to: 1, summary: "first two" }),
    ...build.turns(2),
    build.configDelta({ assistant: { model: { id: "anthropic/two" } } }),
    ...build.turns(1),
    build.compaction({ id: "late", from: 3, to: 3, reasoning: true, deferredUntilTurn: 6 }),
    build.reset(["late"]),
  ];
  await seedConversation(home, { id: "source000001", title: "Source", events, active: true });
}

function forkOf(stdout: string): { id: string; dropped_compactions: number; turns: number } {
  return JSON.parse(stdout);
}

describe("cxc conversation fork", () => {
  it("copies every event with new ids, links the fork and makes it active", async () => {
    home = makeTempHome();
    await seedSource();
    const sourceFiles = snapshotTree(join(home.home, "conversations", "source000001"));
    const result = await home.run(["--format", "json", "conversation", "fork"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const fork = forkOf(result.stdout);
    expect(fork).toMatchObject({
      title: "Fork of Source",
      forked_from: "source000001",
      turns: 5,
      events: 15,
    });
    expect(fork.dropped_compactions).toBe(0);
    expect(snapshotTree(join(home.home, "conversations", "source000001"))).toEqual(sourceFiles);
    const store = openStore(home);
    expect(store.active()).toBe(fork.id);
    const source = store.load("source000001").events;
    const copied = store.load(fork.id).events;
    expect(copied.map((event) => event.type)).toEqual(source.map((event) => event.type));
    const sourceIds = new Set(source.map((event) => (event.type === "unknown" ? "" : event.id)));
    for (const event of copied) if (event.type !== "unknown") expect(sourceIds.has(event.id)).toBe(false);
    // The reset still retires the copy of the compaction it retired in the source.
    const late = copied.find((event) => event.type === "compaction" && event.to_turn === 3)!;
    const reset = copied.find((event) => event.type === "compaction_reset");
    expect(reset && reset.type === "compaction_reset" && reset.retires).toEqual([
      late.type === "compaction" ? late.id : "",
    ]);
    expect(metaOf(home, fork.id)).toMatchObject({ title: "Fork of Source", forked_from: "source000001" });
    const shown = JSON.parse((await home.run(["--format", "json", "c", "show"])).stdout);
    expect(shown).toMatchObject({ id: fork.id, forked_from: "source000001", turns: 5, active: true });
  });

  it("--first keeps the head, its compactions and the config in force", async () => {
    home = makeTempHome();
    await seedSource();
    const fork = forkOf((await home.run(["--format", "json", "c", "fork", "--first", "3"])).stdout);
    expect(fork).toMatchObject({ turns: 3, dropped_compactions: 1 });
    const events = openStore(home).load(fork.id).events;
    expect(events.filter((event) => event.type === "config_delta")).toHaveLength(1);
    expect(events.filter((event) => event.type === "compaction")).toEqual([
      expect.objectContaining({
        from_turn: 0,
        to_turn: 1,
        summary: expect.objectContaining({ summary: "first two" }),
      }),
    ]);
    expect(events.some((event) => event.type === "compaction_reset")).toBe(false);
  });

  it("--last renumbers what it keeps and drops compactions reaching removed turns", async () => {
    home = makeTempHome();
    await seedSource();
    const result = await home.run(["--format", "json", "c", "fork", "source", "--last", "2"]);
    const fork = forkOf(result.stdout);
    expect(fork).toMatchObject({ turns: 2, dropped_compactions: 1 });
    expect(result.stderr).toMatch(
      /^cxc: 1 compaction of source000001 reaches turns the fork leaves out and was not copied\.$/m,
    );
    const events = openStore(home).load(fork.id).events;
    // Both config deltas came before the kept turns' end, so the fork runs with the latest model.
    expect(events.filter((event) => event.type === "config_delta")).toHaveLength(2);
    expect(events.filter((event) => event.type === "compaction")).toEqual([
      expect.objectContaining({ from_turn: 0, to_turn: 0, deferred_until_turn: 3 }),
    ]);
    const printed = await home.run(["c", "print"]);
    expect([...printed.stdout.matchAll(/^── turn (\d+) /gm)].map((match) => match[1])).toEqual(["1", "2"]);
    expect(printed.stdout).toContain("[user]\nq0\n");
    expect(printed.stdout).toContain("[user]\nq1\n");
    expect(readFileSync(join(home.home, "conversations", fork.id, "events.jsonl"), "utf8")).toContain(
      '"cxc":"conversation-log"',
    );
  });

  it("prints the new id in text mode too", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, { id: "plain0000001", events: build.turns(2) });
    const result = await home.run(["c", "fork", "plain"]);
    expect(result.exitCode).toBe(0);
    const match = /^Forked plain0000001 into (\S+) \(2 turns\); it is now active\.\n$/.exec(result.stdout);
    expect(match).not.toBeNull();
    expect(metaOf(home, match![1]!)).toMatchObject({ title: "Fork of plain0000001" });
    // One turn is `1 turn`.
    const one = await home.run(["c", "fork", "plain", "--last"]);
    expect(one.stdout).toMatch(/^Forked plain0000001 into \S+ \(1 turn\); it is now active\.\n$/);
  });
});
