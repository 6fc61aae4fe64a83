/**
 * jp's behaviours as a user meets them through the CLI, each test named after the jp test it
 * translates (jp's `format_tests.rs`, `compact_tests.rs`, `compact_flag_tests.rs`, `fork_tests.rs`,
 * `stream_tests.rs`): what `show` prints for a compaction, the `-k=SPEC` spelling, several targets
 * in one `compact`, configured rules from two layers, conversation keywords, and `fork --first N
 * --last M`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import { createEventBuilder, eventsOfType } from "../helpers/builders.js";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { COMMITTED_JP_WORKSPACE } from "../helpers/jp-fixtures.js";
import { homeWithSample, logBytes, readEvents, SAMPLE_ID } from "./compact-helpers.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});

const compactionsOf = (id: string) => eventsOfType(readEvents(home, id), "compaction");

async function seed(id: string, events: readonly ConversationEvent[], active = true): Promise<void> {
  await seedConversation(home, { id, title: id, events, active });
}

describe("show: jp's compaction items", () => {
  async function showLines(
    compactions: (build: ReturnType<typeof createEventBuilder>) => ConversationEvent[],
  ) {
    home = makeTempHome();
    const build = createEventBuilder();
    await seed("items0000001", [...build.turns(6), ...compactions(build)]);
    const result = await home.run(["conversation", "show"]);
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout.split("\n").filter((line) => /^ {2}\d+\. /.test(line));
  }

  it("compaction_detail_item_summary_takes_precedence_over_mechanical_label", async () => {
    const lines = await showLines((build) => [
      build.compaction({ from: 0, to: 4, summary: "the gist of it", reasoning: true, tools: "strip" }),
    ]);
    expect(lines).toEqual(["  1. turns 1..5 (5 total, summary) [user]"]);
  });

  it("compaction_detail_item_reports_reasoning_and_tools_policy", async () => {
    const lines = await showLines((build) => [
      build.compaction({ from: 2, to: 2, reasoning: true, tools: "strip" }),
    ]);
    expect(lines).toEqual(["  1. turns 3..3 (1 total, reasoning + tools) [user]"]);
  });

  it("compaction_detail_item_with_no_policy_omits_the_label, compaction_policy_label_is_none_without_any_policy", async () => {
    const lines = await showLines((build) => [build.compaction({ from: 0, to: 1, note: "placeholder" })]);
    expect(lines).toEqual(["  1. turns 1..2 (2 total) [user] — placeholder"]);
  });

  it("compaction_policy_label_describes_partial_tool_call_strip (cxc's source stays outside jp's parentheses)", async () => {
    const lines = await showLines((build) => [
      build.compaction({ from: 0, to: 0, tools: "strip-requests" }),
      build.compaction({ from: 1, to: 1, tools: "strip-responses", source: "assistant" }),
      build.compaction({ from: 2, to: 2, tools: "omit", source: "auto" }),
    ]);
    expect(lines).toEqual([
      "  1. turns 1..1 (1 total, tool requests) [user]",
      "  2. turns 2..2 (1 total, tool responses) [assistant]",
      "  3. turns 3..3 (1 total, tools omitted) [auto]",
    ]);
  });
});

describe("-k=SPEC, -k= and -t=MODE, as clap reads them", () => {
  async function dryRun(args: string[]) {
    const result = await home.run(["conversation", "compact", "--dry-run", ...args]);
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout;
  }

  it("parse_with_range (-k=s:..-3 is the spec s:..-3, on compact)", async () => {
    home = await homeWithSample();
    const attached = await dryRun(["-k=r:..-3"]);
    expect(attached).toContain("Would have compacted turns 1..17 (17 total, reasoning).");
    expect(attached).toBe(await dryRun(["-k", "r:..-3"]));
  });

  it("bare_compact_flag_parses_without_a_value (-k= is the bare flag: the configured rules)", async () => {
    home = await homeWithSample();
    const bare = await dryRun(["-k="]);
    expect(bare).toContain("Would have compacted turns 2..19 (18 total, reasoning + tools).");
    expect(bare).toBe(await dryRun([]));
  });

  it("tool_calls_mode_maps_to_policy (-t=omit, -t=sres)", async () => {
    home = await homeWithSample();
    expect((await home.run(["conversation", "compact", "-t=omit"])).exitCode).toBe(0);
    expect((await home.run(["conversation", "compact", "-t=sres", "--turn", "3"])).exitCode).toBe(0);
    expect(compactionsOf(SAMPLE_ID).map((compaction) => compaction.tool_calls)).toEqual([
      { policy: "omit" },
      { policy: "strip", request: false, response: true },
    ]);
  });

  it("specs_only_replace_config_rules (fork -k=SPEC compacts the fork with the spec alone)", async () => {
    home = await homeWithSample();
    const result = await home.run(["--format", "json", "conversation", "fork", "-k=r:..-2"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const fork = JSON.parse(result.stdout) as { id: string };
    expect(compactionsOf(fork.id).map((c) => [c.from_turn, c.to_turn, c.reasoning, c.tool_calls])).toEqual([
      [0, 17, "strip", undefined],
    ]);
  });
});

describe("compact A B …: several conversations in one call", () => {
  it("compacts each target in turn, resolving all of them first", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    for (const id of ["multi0000001", "multi0000002"]) {
      await seed(id, build.turns(4, { reasoning: "thinking" }), id === "multi0000001");
    }
    const before = logBytes(home, "multi0000001");
    // One bad target: nothing is compacted.
    const bad = await home.run(["conversation", "compact", "multi0000001", "nosuch"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("no conversation matches 'nosuch'");
    expect(logBytes(home, "multi0000001")).toBe(before);

    const result = await home.run(["conversation", "compact", "multi0000001", "multi0000002"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        "multi0000001:",
        "  Kept turn 1.",
        "  Compacted turns 2..3 (2 total, reasoning + tools).",
        "  Kept turn 4.",
        "",
        "multi0000002:",
        "  Kept turn 1.",
        "  Compacted turns 2..3 (2 total, reasoning + tools).",
        "  Kept turn 4.",
        "",
      ].join("\n"),
    );
    for (const id of ["multi0000001", "multi0000002"]) expect(compactionsOf(id)).toHaveLength(1);
    // JSON: one document per target.
    const json = await home.run([
      "--format",
      "json",
      "conversation",
      "compact",
      "--dry-run",
      "multi0000001",
      "multi0000002",
    ]);
    expect((JSON.parse(json.stdout) as { id: string }[]).map((entry) => entry.id)).toEqual([
      "multi0000001",
      "multi0000002",
    ]);
  });

  it("reads ids from standard input for - (jp's `-` target)", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seed("stdin0000001", build.turns(4, { reasoning: "thinking" }), false);
    await seed("stdin0000002", build.turns(4, { reasoning: "thinking" }), false);
    const result = await home.run(["conversation", "compact", "-r", "-"], {
      input: "stdin0000001\n\nstdin0000002\n",
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(compactionsOf("stdin0000001")).toHaveLength(1);
    expect(compactionsOf("stdin0000002")).toHaveLength(1);
    const empty = await home.run(["conversation", "compact", "-"], { input: "\n" });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain("`-` read no conversation ids from standard input");
  });
});

describe("conversation keywords (jp's targets)", () => {
  it("parse_active_keyword, last_activated_resolves: active, . and recent", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seed("kwds00000001", build.turns(1), false);
    await seed("kwds00000002", build.turns(1), true);
    for (const keyword of ["active", "."]) {
      const shown = await home.run(["--format", "json", "conversation", "show", keyword]);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout).id).toBe("kwds00000002");
    }
    // Used last: the conversation made active last, in any session.
    expect((await home.run(["conversation", "use", "kwds00000001"])).exitCode).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const other = await home.run(["conversation", "use", "kwds00000002"], { env: { CXC_SESSION: "other" } });
    expect(other.exitCode, other.stderr).toBe(0);
    const recent = await home.run(["--format", "json", "conversation", "show", "recent"]);
    expect(JSON.parse(recent.stdout).id).toBe("kwds00000002");
    const active = await home.run(["--format", "json", "conversation", "show", "active"]);
    expect(JSON.parse(active.stdout).id).toBe("kwds00000001");
  });
});

describe("--reset and its target (compact_tests.rs)", () => {
  it("reset_takes_an_optional_compaction_index: --reset recent resets the conversation used last, --reset=2 the second compaction", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    const compacted = (id: string) => [
      ...build.turns(4),
      build.compaction({ id: `${id}-a`, from: 0, to: 1, reasoning: true }),
      build.compaction({ id: `${id}-b`, from: 2, to: 2, reasoning: true }),
    ];
    await seed("resetkw00001", compacted("one"), false);
    await seed("resetkw00002", compacted("two"), true);
    expect((await home.run(["conversation", "use", "resetkw00001"])).exitCode).toBe(0);
    const recent = await home.run(["conversation", "compact", "--reset", "recent"]);
    expect(recent.exitCode, recent.stderr).toBe(0);
    expect(recent.stdout).toBe("Removed 2 compaction events.\n");
    const indexed = await home.run(["conversation", "compact", "resetkw00002", "--reset=2"]);
    expect(indexed.stdout).toBe("Removed compaction 2 (turns 3..3).\n");
    expect(indexed.exitCode).toBe(0);
  });
});

describe("configured rules from two layers (jp's mergeable list)", () => {
  /** The user configuration file and a `-c` file: two layers. */
  function writeConfigs(user: string, overlay: string): string[] {
    mkdirSync(join(home.env.XDG_CONFIG_HOME!, "cxc"), { recursive: true });
    writeFileSync(join(home.env.XDG_CONFIG_HOME!, "cxc", "config.toml"), user);
    const path = join(home.home, "..", "overlay.toml");
    writeFileSync(path, overlay);
    return ["-c", path];
  }

  it("test_vec_with_strategy: a plain list appends to the rules below it", async () => {
    home = await homeWithSample();
    const overlay = writeConfigs(
      '[[conversation.compaction.rules]]\nkeep_first = 1\nkeep_last = 10\nreasoning = "strip"\n',
      '[[conversation.compaction.rules]]\nkeep_first = 12\nkeep_last = 2\ntool_calls = "omit"\n',
    );
    const result = await home.run([...overlay, "conversation", "compact", "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("Would have compacted turns 2..10 (9 total, reasoning).");
    expect(result.stdout).toContain("Would have compacted turns 13..18 (6 total, tools omitted).");
  });

  it("test_vec_with_strategy: the {value, strategy} form (replace)", async () => {
    home = await homeWithSample();
    const overlay = writeConfigs(
      '[[conversation.compaction.rules]]\nkeep_first = 1\nkeep_last = 10\nreasoning = "strip"\n',
      '[conversation.compaction.rules]\nstrategy = "replace"\nvalue = [{ keep_first = 12, keep_last = 2, tool_calls = "omit" }]\n',
    );
    const result = await home.run([...overlay, "conversation", "compact", "--dry-run"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("(9 total, reasoning)");
    expect(result.stdout).toContain("Would have compacted turns 13..18 (6 total, tools omitted).");
  });
});

describe("fork --first N --last M and time filters", () => {
  function stream(): ConversationEvent[] {
    const build = createEventBuilder();
    return [
      ...build.turns(8),
      // One overlay in the kept leading block, one spanning the dropped middle.
      build.compaction({ id: "lead", from: 0, to: 1, reasoning: true }),
      build.compaction({ id: "middle", from: 3, to: 6, reasoning: true }),
    ];
  }

  it("test_retain_first_and_last_keeps_leading_block_compaction", async () => {
    home = makeTempHome();
    await seed("forkfl000001", stream());
    const result = await home.run([
      "--format",
      "json",
      "conversation",
      "fork",
      "--first",
      "3",
      "--last",
      "2",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const fork = JSON.parse(result.stdout) as { id: string; turns: number; dropped_compactions: number };
    expect(fork).toMatchObject({ turns: 5, dropped_compactions: 1 });
    const requests = eventsOfType(readEvents(home, fork.id), "chat_request").map((event) => event.content);
    expect(requests).toEqual(["q0", "q1", "q2", "q6", "q7"]);
    expect(compactionsOf(fork.id).map((c) => [c.from_turn, c.to_turn])).toEqual([[0, 1]]);
    // Bare flags keep one turn each, jp's default.
    const bare = JSON.parse(
      (await home.run(["--format", "json", "conversation", "fork", "forkfl000001", "-f", "-l"])).stdout,
    );
    expect(bare.turns).toBe(2);
  });

  it("keeps every turn when --first and --last meet (retain_first_and_last_turns)", async () => {
    home = makeTempHome();
    await seed("forkfl000002", stream());
    const result = await home.run([
      "--format",
      "json",
      "conversation",
      "fork",
      "--first",
      "5",
      "--last",
      "3",
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({ turns: 8, dropped_compactions: 0 });
  });

  it("--from and --until keep the turns that started in [from, until)", async () => {
    home = makeTempHome();
    const events = createEventBuilder().turns(6);
    await seed("forktime0001", events);
    const starts = eventsOfType(events, "turn_start").map((event) => event.ts);
    const [from, until] = [starts[2]!, starts[5]!];
    const result = await home.run([
      "--format",
      "json",
      "conversation",
      "fork",
      "--from",
      from,
      "--until",
      until,
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const fork = JSON.parse(result.stdout) as { id: string };
    const requests = eventsOfType(readEvents(home, fork.id), "chat_request").map((event) => event.content);
    expect(requests).toEqual(["q2", "q3", "q4"]);
    // Then --last applies to what the time filter left, as in jp.
    const last = await home.run([
      "--format",
      "json",
      "conversation",
      "fork",
      "forktime0001",
      "--from",
      from,
      "--last",
      "1",
    ]);
    const lastId = (JSON.parse(last.stdout) as { id: string }).id;
    expect(eventsOfType(readEvents(home, lastId), "chat_request").map((event) => event.content)).toEqual([
      "q5",
    ]);
    const bad = await home.run(["conversation", "fork", "forktime0001", "--from", "yesterdayish"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("invalid --from value 'yesterdayish'");
  });
});

describe("an imported jp conversation keeps what jp recorded", () => {
  const JP_CONVERSATION = join(
    COMMITTED_JP_WORKSPACE.conversations,
    "17758406187-missing-date-in-version-string",
  );

  async function importIt(): Promise<{ id: string; stderr: string }> {
    const result = await home.run(["--format", "json", "conversation", "import", JP_CONVERSATION]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [imported] = JSON.parse(result.stdout) as { id: string }[];
    expect((await home.run(["conversation", "use", imported!.id])).exitCode).toBe(0);
    return { id: imported!.id, stderr: result.stderr };
  }

  const env = () => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: provider.anthropicBaseURL });

  it("q runs on its model ({provider, name}) with its system prompt, and names jp's tools once", async () => {
    home = makeTempHome();
    provider.reset();
    const { stderr } = await importIt();
    expect(stderr).toMatch(
      /^cxc: warning: jp's tools of this conversation \(cargo_check, .* and \d+ more\) do not come along/m,
    );
    provider.enqueue(textReply("first answer"), textReply("second answer"));
    const first = await home.run(["q", "what next?"], { env: env() });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain("jp's tools of this conversation (cargo_check");
    const body = provider.requests[0]!.body as { model: string; system: { text: string }[] };
    expect(body.model).toBe("claude-opus-4-6");
    const system = body.system.map((part) => part.text).join("\n");
    expect(system).toMatch(/^You are Jean-Pierre, the AI Pair Programmer/);
    // jp's sections and instructions, rendered as jp renders them.
    expect(system).toContain('<instruction title="Rust Best Practices">');
    // Once: the second turn is cxc's own.
    const second = await home.run(["q", "and then?"], { env: env() });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("jp's tools");
    expect((provider.requests[1]!.body as { model: string }).model).toBe("claude-opus-4-6");
  });

  it("print --format anthropic|openai uses its model and system prompt", async () => {
    home = makeTempHome();
    await importIt();
    const body = JSON.parse((await home.run(["--format", "anthropic", "conversation", "print"])).stdout);
    expect(body.model).toBe("claude-opus-4-6");
    expect(JSON.stringify(body.system)).toContain("You are Jean-Pierre");
    const openai = JSON.parse((await home.run(["--format", "openai", "conversation", "print"])).stdout);
    expect(openai.messages[0]).toMatchObject({ role: "system" });
    expect(JSON.stringify(openai.messages[0])).toContain("You are Jean-Pierre");
  });

  it.each([
    ["the .jp folder", (root: string) => join(root, ".jp")],
    ["the workspace above it", (root: string) => root],
    [".jp/conversations", (root: string) => join(root, ".jp", "conversations")],
  ])("import accepts %s (the README's `cxc conversation import ~/project/.jp`)", async (_, path) => {
    home = makeTempHome();
    const result = await home.run(["conversation", "import", path(COMMITTED_JP_WORKSPACE.root)]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Imported 7 conversations \(1 archived\)\.$/m);
  });
});
