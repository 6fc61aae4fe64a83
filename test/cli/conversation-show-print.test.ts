/**
 * `cxc conversation show` and `print`: details recomputed from the log, the compactions list, the
 * raw transcript with its selectors, JSON output, and sanitizing of untrusted text.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { openStore, seedConversation } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

async function seedCompacted(): Promise<void> {
  const build = createEventBuilder();
  const events = [
    ...build.turn("first question", {
      reasoning: "thinking",
      tools: [{ name: "read_file", result: "file body" }],
    }),
    ...build.turns(3),
    build.compaction({ id: "c-one", from: 0, to: 1, summary: "the summary", note: "why we did it" }),
    build.compaction({ id: "c-two", from: 1, to: 2, reasoning: true, tools: "omit" }),
    build.reset(["c-one"]),
    build.compaction({
      id: "c-three",
      from: 0,
      to: 0,
      reasoning: true,
      source: "assistant",
      deferredUntilTurn: 5,
    }),
  ];
  await seedConversation(home, { id: "show00000001", title: "Compacted", events, active: true });
}

describe("cxc conversation show", () => {
  it("shows details recomputed from the log and the active compactions, numbered from 1", async () => {
    home = makeTempHome();
    await seedCompacted();
    const result = await home.run(["--format", "json", "conversation", "show"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const details = JSON.parse(result.stdout);
    expect(details).toMatchObject({
      id: "show00000001",
      title: "Compacted",
      events: 15,
      turns: 4,
      archived: false,
      pinned: false,
      active: true,
      forked_from: null,
      warnings: [],
    });
    expect(details.compactions).toEqual([
      expect.objectContaining({
        number: 1,
        id: "c-two",
        from_turn: 2,
        to_turn: 3,
        label: "reasoning + tools omitted",
        summary: null,
        reasoning: true,
        tool_calls: { policy: "omit" },
        source: "user",
        deferred_until_turn: null,
        deferred: false,
      }),
      expect.objectContaining({
        number: 2,
        id: "c-three",
        from_turn: 1,
        to_turn: 1,
        source: "assistant",
        deferred_until_turn: 6,
        deferred: true,
      }),
    ]);
    expect(details.review).toBeNull();
    expect(details.open_review).toBeNull();
    const text = await home.run(["conversation", "show", "show"]);
    expect(text.stdout).toMatch(/^id:\s+show00000001$/m);
    expect(text.stdout).toMatch(/^turns:\s+4$/m);
    expect(text.stdout).toMatch(/^active:\s+yes$/m);
    // Where it is: its directory, and the store with why it is there.
    expect(details).toMatchObject({
      directory: `${home.home}/conversations/show00000001`,
      store: `${home.home} (from CXC_HOME)`,
    });
    expect(text.stdout).toContain(
      `directory:   ${home.home}/conversations/show00000001\nstore:       ${home.home} (from CXC_HOME)\n`,
    );
    expect(text.stdout).toContain(
      "Compactions:\n  1. turns 2..3 (2 total, reasoning + tools omitted) [user]\n",
    );
    expect(text.stdout).toContain(
      "  2. turns 1..1 (1 total, reasoning) [assistant, deferred until turn 6]\n",
    );
  });

  it("shows times in the local zone, with its offset, and how long ago", async () => {
    home = makeTempHome();
    await seedConversation(home, { id: "zone00000001", createdAt: "2026-07-01T10:00:00.000Z", active: true });
    const paris = await home.run(["conversation", "show"], { env: { TZ: "Europe/Paris" } });
    expect(paris.stdout).toMatch(/^created:\s+2026-07-01 12:00:00 \+02:00 \(.+ ago\)$/m);
    const utc = await home.run(["conversation", "show"]);
    expect(utc.stdout).toMatch(/^created:\s+2026-07-01 10:00:00 UTC \(/m);
    const kolkata = await home.run(["conversation", "show"], { env: { TZ: "Asia/Kolkata" } });
    expect(kolkata.stdout).toMatch(/^created:\s+2026-07-01 15:30:00 \+05:30 \(/m);
  });

  it("stops saying a compaction is deferred once the turn it waits for has started", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    // Recorded during turn 2 (0-based 1) to take effect when turn 3 starts (0-based 2).
    const events = [
      ...build.turns(2),
      build.compaction({ id: "c-wait", from: 0, to: 0, reasoning: true, deferredUntilTurn: 2 }),
    ];
    await seedConversation(home, { id: "defer0000001", events, active: true });
    const waiting = await home.run(["conversation", "show"]);
    expect(waiting.stdout).toContain("  1. turns 1..1 (1 total, reasoning) [user, deferred until turn 3]\n");
    const store = openStore(home);
    await store.appendLocked("defer0000001", build.turn("the third turn"), "test");
    const started = await home.run(["conversation", "show"]);
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.stdout).toContain("  1. turns 1..1 (1 total, reasoning) [user]\n");
    expect(started.stdout).not.toContain("deferred");
    const json = JSON.parse((await home.run(["--format", "json", "conversation", "show"])).stdout);
    expect(json.compactions[0]).toMatchObject({ deferred_until_turn: 3, deferred: false });
  });
});

describe("cxc conversation print", () => {
  async function seedFive(): Promise<void> {
    const build = createEventBuilder();
    await seedConversation(home, { id: "print0000001", title: "Five", events: build.turns(5), active: true });
  }

  it("prints every turn numbered from 1 with user and assistant text", async () => {
    home = makeTempHome();
    await seedCompacted();
    const result = await home.run(["conversation", "print"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^── turn 1 · 2026-01-01 00:00:00 UTC ──\n\[user\]\nfirst question\n· cycle 1\.1\n\[reasoning\]\nthinking\n/,
    );
    expect(result.stdout).toContain(
      '[tool call] read_file {"path":"read_file.txt"}\n[tool result] read_file ok\nfile body\n',
    );
    expect(result.stdout).toContain("[assistant]\na:first question\n");
    expect(result.stdout).toContain("── turn 4 ·");
    expect(result.stdout).toContain("[compaction] turns 1..2 (2 total, summary) [user] — why we did it");
    expect(result.stdout.match(/^── turn /gm)).toHaveLength(4);
  });

  it.each([
    [
      ["--first", "2"],
      [1, 2],
    ],
    [
      ["--last", "2"],
      [4, 5],
    ],
    [
      ["--last", "9"],
      [1, 2, 3, 4, 5],
    ],
    [["--turn", "3"], [3]],
    [
      ["--turn", "2..4"],
      [2, 3, 4],
    ],
    [
      ["--turn", "4.."],
      [4, 5],
    ],
    [
      ["--turn", "..2"],
      [1, 2],
    ],
    [
      ["--turn", ".."],
      [1, 2, 3, 4, 5],
    ],
  ])("%j selects turns %j", async (flags, expected) => {
    home = makeTempHome();
    await seedFive();
    const result = await home.run(["conversation", "print", ...flags]);
    expect(result.exitCode, result.stderr).toBe(0);
    const numbers = [...result.stdout.matchAll(/^── turn (\d+) /gm)].map((match) => Number(match[1]));
    expect(numbers).toEqual(expected);
    // Turn N of the builder asked question q(N-1).
    for (const number of expected) expect(result.stdout).toContain(`[user]\nq${number - 1}\n`);
  });

  it("--first 0 selects nothing and says so on stderr", async () => {
    home = makeTempHome();
    await seedFive();
    const result = await home.run(["conversation", "print", "--first", "0"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("cxc: No turns selected.\n");
  });

  it("prints JSON with the stored event shapes", async () => {
    home = makeTempHome();
    await seedFive();
    const result = await home.run(["--format", "json", "conversation", "print", "--turn", "2"]);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({ id: "print0000001", title: "Five", turn_count: 5 });
    expect(document.turns).toHaveLength(1);
    expect(document.turns[0].turns).toEqual([2]);
    expect(document.turns[0].events.map((event: { type: string }) => event.type)).toEqual([
      "turn_start",
      "chat_request",
      "chat_response",
    ]);
    expect(document.turns[0].events[1]).toMatchObject({ content: "q1" });
  });

  it("sanitizes untrusted text in the raw view", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    const events = build.turn("hi\u001b[2J\u001b]52;c;ZXZpbA==\u0007 there\r", {
      tools: [{ name: "run\u001b[31m", result: "out\u0007put\u009b\u0000" }],
      answer: "fine\u001b[1A\rthanks",
    });
    await seedConversation(home, { id: "evil00000001", events });
    const result = await home.run(["conversation", "print", "evil"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain("[user]\nhi there\n");
    expect(result.stdout).toContain("[tool result] run ok\noutput\n");
    expect(result.stdout).toContain("[assistant]\nfinethanks\n");
  });

  it("rejects a --format print does not support", async () => {
    home = makeTempHome();
    await seedFive();
    const result = await home.run(["--format", "yaml", "conversation", "print"]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /^cxc: error: --format yaml is not supported here\nhint: use one of: text, json\b/,
    );
  });
});
