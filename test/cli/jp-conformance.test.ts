/**
 * jp's own compaction tests as a conformance checklist (jp commit 4c1c39f1): compaction_tests.rs,
 * projection_tests.rs without its two property tests (cxc has its own in
 * test/core/projection.property.test.ts), compact_tests.rs, compact_flag_tests.rs, the config's
 * compaction_tests.rs, turn_range_tests.rs, the compaction tests of stream_tests.rs and
 * format_tests.rs, and the storage's directory names: 152 tests.
 *
 * Each is either reachable through cxc's CLI — its behaviour shows in what cxc prints, writes or
 * sends — and then a cxc test carries its name (the ledger test below checks that), or it tests an
 * internal API of jp with no counterpart a user can meet (the reason is given).
 *
 * The tests here translate those that no other cxc test carried yet, through the built CLI.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEventBuilder, eventsOfType } from "../helpers/builders.js";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { compactionsOf, homeWithSample, logBytes, readEvents, SAMPLE_ID } from "./compact-helpers.js";
import { errorLines, seedConversation } from "./conversation-helpers.js";

/** Where each jp test stands: a cxc test carries its name, or it is jp-internal (why). */
const LEDGER: Readonly<Record<string, "cli" | { internal: string }>> = {
  // crates/jp_conversation/src/compaction_tests.rs
  builder_with_reasoning: "cli",
  builder_with_tool_calls: "cli",
  builder_chained: "cli",
  roundtrip_mechanical_compaction: "cli",
  roundtrip_summary_compaction: "cli",
  none_policies_omitted_from_json: "cli",
  tool_call_policy_strip_roundtrip: "cli",
  tool_call_policy_omit_roundtrip: "cli",
  reasoning_policy_roundtrip: "cli",
  summary_policy_roundtrip: "cli",
  extend_no_existing_summaries: "cli",
  extend_no_overlap: "cli",
  extend_partial_overlap_right: "cli",
  extend_partial_overlap_left: "cli",
  extend_new_fully_contains_old: "cli",
  extend_old_fully_contains_new: "cli",
  extend_transitive_chain: "cli",
  extend_ignores_mechanical_compactions: "cli",
  // crates/jp_conversation/src/stream/projection_tests.rs
  no_compaction_is_noop: "cli",
  no_compaction_returns_kept_origins: "cli",
  summary_origins_preserve_raw_turn_numbers: "cli",
  mechanical_compaction_keeps_one_to_one_origins: "cli",
  contained_summary_origins_reflect_actual_runs: "cli",
  strip_reasoning_removes_reasoning_events: "cli",
  strip_request_only_blanks_args_and_keeps_response: "cli",
  strip_tool_calls_replaces_content: "cli",
  strip_tool_response_only: "cli",
  strip_tool_response_preserves_error_status: "cli",
  omit_tool_calls_removes_them: "cli",
  summary_replaces_all_events_in_range: "cli",
  summary_ignores_per_type_policies: "cli",
  summary_partial_range: "cli",
  summary_is_injected_as_its_own_turn: "cli",
  distinct_adjacent_summaries_with_identical_text_stay_separate: "cli",
  contained_summary_reinjects_outer_summary_tail: "cli",
  timestamp_tie_breaks_by_stream_order: "cli",
  later_compaction_wins_for_same_turn: "cli",
  later_compaction_overrides_earlier_for_same_type: "cli",
  summary_wins_over_mechanical_for_same_turns: "cli",
  compaction_applies_only_to_covered_turns: "cli",
  compaction_beyond_max_turn_is_clamped: "cli",
  config_deltas_preserved_through_projection: "cli",
  compaction_events_consumed_by_projection: "cli",
  empty_stream_with_compaction: "cli",
  recompact_projected_stream_with_new_compaction: "cli",
  turn_indices_basic: "cli",
  turn_indices_with_implicit_leading_turn: "cli",
  compaction_targets_correct_turn_with_implicit_leading_turn: "cli",
  // crates/jp_cli/src/cmd/conversation/compact_tests.rs
  bare_compact_flag_parses_without_a_value: "cli",
  keep_last_only_does_not_inject_a_policyless_rule: "cli",
  model_flag_targets_the_assistant_model: "cli",
  model_alias_reaches_a_configured_summary_model_through_the_pipeline: "cli",
  model_flag_overrides_a_configured_summary_model: "cli",
  without_the_model_flag_a_configured_summary_model_is_kept: "cli",
  model_flag_leaves_summaryless_rules_untouched: "cli",
  policy_flag_conflicts_with_dsl_spec: "cli",
  reset_conflicts_with_selection_flags: "cli",
  reset_takes_an_optional_compaction_index: "cli",
  reset_index_addresses_compactions_in_stream_order: "cli",
  tool_calls_mode_maps_to_policy: "cli",
  keep_last_duration_covering_whole_conversation_compacts_nothing: "cli",
  from_last_resolves_against_original_stream_for_every_rule: "cli",
  config_rule_strip_requests_blanks_args_through_projection: "cli",
  keep_first_composes_with_first: "cli",
  keep_last_composes_with_last: "cli",
  keep_first_greater_than_first_is_rejected: "cli",
  keep_last_greater_than_last_is_rejected: "cli",
  summarize_flag_distinguishes_absent_bare_and_valued: "cli",
  turn_out_of_range_is_rejected: "cli",
  timeline_keeps_genesis_and_trailing_turns: "cli",
  timeline_interleaves_gaps_between_compactions: "cli",
  timeline_sorts_by_start_turn_regardless_of_generation_order: "cli",
  timeline_collapses_overlapping_ranges: "cli",
  timeline_labels_describe_compaction_type: "cli",
  timeline_dry_run_uses_conditional_verbs: "cli",
  segment_label_reflects_mechanical_policies: "cli",
  timeline_reports_pre_existing_compactions_not_as_kept: "cli",
  timeline_dry_run_keeps_pre_existing_compactions_factual: "cli",
  // crates/jp_cli/src/cmd/compact_flag_tests.rs
  parse_policy_only: "cli",
  parse_tool_modes: "cli",
  parse_tool_mode_with_range: "cli",
  parse_with_range: "cli",
  parse_absolute_range: "cli",
  parse_single_number_shorthand: "cli",
  parse_errors: "cli",
  to_partial_rule_with_range: "cli",
  to_partial_rule_no_range: "cli",
  specs_only_replace_config_rules: "cli",
  bare_compact_plus_dsl_appends_to_config_rules: "cli",
  bare_compact_only_uses_config_rules_unchanged: "cli",
  // crates/jp_config/src/conversation/compaction_tests.rs
  tool_calls_mode_parse: "cli",
  tool_calls_mode_parse_short_aliases: "cli",
  tool_calls_mode_roundtrip: {
    internal: "serializes jp's config type back to text; cxc reads configuration and never writes it",
  },
  reasoning_mode_parse: "cli",
  rule_bound_deserializes_from_integer_and_string: "cli",
  rule_bound_after_last_compaction_is_canonical_with_alias: "cli",
  rule_bound_absolute_is_one_based_and_rejects_zero: "cli",
  rule_config_deserializes_integer_bounds: "cli",
  rule_partial_roundtrip_json: {
    internal: "serializes jp's partial config type; cxc reads configuration and never writes it",
  },
  rule_partial_none_fields_omitted: "cli",
  // crates/jp_cli/src/cmd/turn_range_tests.rs
  parse_bound_absolute_is_one_based: "cli",
  parse_bound_from_end_is_one_based: "cli",
  parse_bound_rejects_zero: "cli",
  parse_bound_accepts_last_compaction_and_alias: "cli",
  parse_to_bound_rejects_last_compaction_but_accepts_indices: "cli",
  first_and_last_are_complete_selectors: "cli",
  first_zero_is_an_empty_selection: "cli",
  parse_turn_single_and_range: "cli",
  turn_open_ended_ranges_set_both_bounds: "cli",
  parse_one_based_rejects_zero: "cli",
  // crates/jp_conversation/src/stream_tests.rs (the compaction tests)
  last_turn_event_skips_trailing_overlays: {
    internal: "the stream's last-event accessor of jp's query loop; cxc's loop has no such step",
  },
  pop_if_preserves_trailing_compaction: {
    internal: "popping the last event (jp's retry path); cxc never removes a stored event",
  },
  trim_chat_request_preserves_trailing_compaction: {
    internal: "trimming a request (jp's interrupt path); cxc never rewrites a stored event",
  },
  test_to_parts_base64_encodes_tool_call_fields: "cli",
  test_compaction_not_counted_by_len: "cli",
  test_compaction_not_counted_by_is_empty: "cli",
  test_remove_compaction_by_index: "cli",
  test_remove_compaction_out_of_range_is_a_no_op: "cli",
  test_retain_removing_events_drops_compactions: "cli",
  test_retain_keeping_everything_preserves_compactions: "cli",
  test_retain_removing_within_turn_event_drops_compactions: {
    internal:
      "removing one event inside a kept turn; cxc's fork filters keep or drop whole turns, so no command can do it",
  },
  test_retain_first_turns_drops_compactions: "cli",
  test_retain_keeps_compactions_entirely_before_removal: "cli",
  test_retain_first_and_last_keeps_leading_block_compaction: "cli",
  test_retain_last_turns_drops_compactions: "cli",
  test_retain_last_turns_no_truncation_keeps_compactions: "cli",
  test_compaction_skipped_by_iter: { internal: "jp's stream iterator; cxc's events are a plain list" },
  test_compaction_skipped_by_into_iter: { internal: "jp's stream iterator; cxc's events are a plain list" },
  test_compaction_preserved_by_sanitize: {
    internal: "jp's stream repair after an event filter; cxc keeps whole turns and has no repair step",
  },
  test_compaction_roundtrip_via_to_parts_from_parts: "cli",
  test_compactions_accessor: "cli",
  test_compaction_does_not_affect_config: "cli",
  test_turn_count_empty: "cli",
  test_turn_count_two_turns: "cli",
  test_turn_at_time: "cli",
  test_resolve_range_defaults: "cli",
  test_resolve_range_absolute: "cli",
  test_resolve_range_from_end: "cli",
  test_resolve_range_after_last_compaction: "cli",
  test_resolve_range_after_last_compaction_at_end_is_none: "cli",
  test_resolve_range_keep_first_beyond_end_is_none: "cli",
  test_resolve_range_keep_last_beyond_end_is_none: "cli",
  test_resolve_range_empty_stream: "cli",
  test_resolve_range_inverted_returns_none: "cli",
  test_resolve_range_clamps_beyond_max: "cli",
  test_internal_event_compaction_roundtrip: "cli",
  test_internal_event_preserves_unknown_kind_verbatim: "cli",
  test_from_parts_tolerates_unknown_event_kind: "cli",
  // crates/jp_cli/src/format_tests.rs
  compaction_detail_item_with_no_policy_omits_the_label: "cli",
  compaction_policy_label_describes_partial_tool_call_strip: "cli",
  compaction_policy_label_is_none_without_any_policy: "cli",
  // crates/jp_storage/src/lib_tests.rs
  test_conversation_dir_name_generation: "cli",
};

/** Every test file's text (this one's ledger entries are not test titles). */
function allTestSources(): string {
  const root = join(PROJECT_ROOT, "test");
  const texts: string[] = [];
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, name.name);
      if (name.isDirectory()) walk(path);
      else if (name.name.endsWith(".test.ts")) texts.push(readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return texts.join("\n");
}

describe("the ledger", () => {
  it("lists the 152 tests, and a cxc test names every one the CLI can reach", () => {
    const names = Object.keys(LEDGER);
    expect(names).toHaveLength(152);
    const reachable = names.filter((name) => LEDGER[name] === "cli");
    expect(reachable).toHaveLength(143);
    const sources = allTestSources();
    // A test carries the name in its title: `it("… (name)")` or `it("name …")`.
    const titled = (name: string): RegExp =>
      new RegExp(`\\bit(\\.each\\([^]*?\\))?\\(\\s*("[^"]*|'[^']*|\`[^\`]*)\\b${name}\\b`);
    const unnamed = reachable.filter((name) => !titled(name).test(sources));
    expect(unnamed).toEqual([]);
  });
});

let home: TempHome;
afterEach(() => home?.cleanup());

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});

const anthropicEnv = () => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: provider.anthropicBaseURL });
const openaiEnv = () => ({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: provider.openaiBaseURL });

function writeUserConfig(toml: string): void {
  mkdirSync(join(home.env.XDG_CONFIG_HOME!, "cxc"), { recursive: true });
  writeFileSync(join(home.env.XDG_CONFIG_HOME!, "cxc", "config.toml"), toml);
}

describe("what compact writes (compaction_tests.rs)", () => {
  it("builder_with_reasoning, builder_with_tool_calls, builder_chained: each policy alone or together, never a summary", async () => {
    home = await homeWithSample();
    for (const args of [["-r"], ["-t", "omit"], ["-r", "-t", "omit"]]) {
      expect((await home.run(["conversation", "compact", ...args])).exitCode).toBe(0);
    }
    const written = compactionsOf(home).map((c) => ({
      reasoning: c.reasoning ?? null,
      tool_calls: c.tool_calls ?? null,
      summary: c.summary ?? null,
    }));
    expect(written).toEqual([
      { reasoning: "strip", tool_calls: null, summary: null },
      { reasoning: null, tool_calls: { policy: "omit" }, summary: null },
      { reasoning: "strip", tool_calls: { policy: "omit" }, summary: null },
    ]);
  });
});

describe("jp's file format, through export and import (compaction_tests.rs, stream_tests.rs)", () => {
  async function exportJp(id: string): Promise<{ directory: string; entries: Record<string, unknown>[] }> {
    const output = join(home.home, "..", "exported");
    const result = await home.run(["conversation", "export", id, "--to", "jp", "--output", output]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [directory] = readdirSync(output);
    return {
      directory: directory!,
      entries: JSON.parse(readFileSync(join(output, directory!, "events.json"), "utf8")),
    };
  }

  it("tool_call_policy_strip_roundtrip, reasoning_policy_roundtrip, summary_policy_roundtrip, test_internal_event_compaction_roundtrip: jp's compaction entries", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "format000001",
      title: "Format",
      events: [
        ...build.turns(6, { reasoning: "r" }),
        build.compaction({ from: 0, to: 5, reasoning: true }),
        build.compaction({ from: 1, to: 2, tools: "strip-responses" }),
        build.compaction({ from: 0, to: 3, summary: "Set up a Rust project." }),
      ],
      active: true,
    });
    const { entries } = await exportJp("format000001");
    const compactions = entries.filter((entry) => entry.type === "compaction");
    const withoutTimes = compactions.map(({ timestamp: _, ...rest }) => rest);
    expect(withoutTimes).toEqual([
      { type: "compaction", from_turn: 0, to_turn: 5, reasoning: "strip" },
      {
        type: "compaction",
        from_turn: 1,
        to_turn: 2,
        tool_calls: { policy: "strip", request: false, response: true },
      },
      { type: "compaction", from_turn: 0, to_turn: 3, summary: { summary: "Set up a Rust project." } },
    ]);
    // Key order as jp writes it.
    expect(Object.keys(compactions[0]!)).toEqual(["type", "timestamp", "from_turn", "to_turn", "reasoning"]);
  });

  it("test_compaction_roundtrip_via_to_parts_from_parts: an exported compaction is read back the same", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "format000002",
      events: [...build.turns(1), build.compaction({ from: 0, to: 0, reasoning: true })],
      active: true,
    });
    const { directory } = await exportJp("format000002");
    const imported = await home.run([
      "--format",
      "json",
      "conversation",
      "import",
      join(home.home, "..", "exported", directory),
    ]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const [entry] = JSON.parse(imported.stdout) as { id: string }[];
    const compactions = compactionsOf(home, entry!.id);
    expect(compactions.map((c) => [c.from_turn, c.to_turn, c.reasoning])).toEqual([[0, 0, "strip"]]);
    expect(eventsOfType(readEvents(home, entry!.id), "turn_start")).toHaveLength(1);
  });

  it("test_to_parts_base64_encodes_tool_call_fields: tool arguments and results are base64 on disk, plain once read", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "format000003",
      events: build.turn("read it", {
        tools: [{ name: "read_file", arguments: { path: "src/main.rs" }, result: "file contents here" }],
      }),
      active: true,
    });
    const { directory, entries } = await exportJp("format000003");
    const text = JSON.stringify(entries);
    expect(text).not.toContain("src/main.rs");
    expect(text).not.toContain("file contents here");
    const other = makeTempHome();
    try {
      const result = await other.run([
        "--format",
        "json",
        "conversation",
        "import",
        join(home.home, "..", "exported", directory),
      ]);
      expect(result.exitCode, result.stderr).toBe(0);
      const [entry] = JSON.parse(result.stdout) as { id: string }[];
      const printed = await other.run(["conversation", "print", entry!.id]);
      expect(printed.stdout).toContain('[tool call] read_file {"path":"src/main.rs"}');
      expect(printed.stdout).toContain("file contents here");
    } finally {
      other.cleanup();
    }
  });

  it("test_internal_event_preserves_unknown_kind_verbatim, test_from_parts_tolerates_unknown_event_kind", async () => {
    home = makeTempHome();
    const source = join(home.home, "..", "jp", "17457886043-future");
    mkdirSync(source, { recursive: true });
    const unknown = {
      type: "unknown_future_kind",
      timestamp: "2025-01-01 00:01:00.0",
      summary: "a compacted summary",
      metadata: { foo: "YmFy" },
    };
    const events = [
      { timestamp: "2025-01-01 00:00:00.0", type: "turn_start" },
      { timestamp: "2025-01-01 00:00:00.1", type: "chat_request", content: "hello" },
      unknown,
    ];
    writeFileSync(join(source, "events.json"), `${JSON.stringify(events, null, 2)}\n`);
    writeFileSync(
      join(source, "metadata.json"),
      `${JSON.stringify({ last_activated_at: "2025-01-01 00:00:00.0" }, null, 2)}\n`,
    );
    const imported = await home.run(["--format", "json", "conversation", "import", source]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const [entry] = JSON.parse(imported.stdout) as { id: string; turns: number }[];
    // Invisible to the turns ...
    expect(entry!.turns).toBe(1);
    const shown = JSON.parse(
      (await home.run(["--format", "json", "conversation", "show", entry!.id])).stdout,
    );
    expect(shown).toMatchObject({ events: 2, turns: 1 });
    // ... but written back byte for byte.
    const { entries } = await exportJp(entry!.id);
    expect(entries).toContainEqual(unknown);
    expect(entries).toEqual(events);
  });

  it("test_conversation_dir_name_generation: export names jp's directories as jp does", async () => {
    home = makeTempHome();
    const createdAt = "2025-04-27T21:16:44.300Z"; // 17457886043 deciseconds
    const cases: [string | undefined, string][] = [
      [undefined, "17457886043"],
      ["Simple Title", "17457886043-simple-title"],
      [" Title with spaces & chars!", "17457886043-title-with-spaces---chars"],
      [
        "A very long title that definitely exceeds the sixty character limit for testing purposes",
        "17457886043-a-very-long-title-that-definitely-exceeds-the-sixty",
      ],
    ];
    for (const [index, [title, expected]] of cases.entries()) {
      const id = `dirname00000${index}`;
      await seedConversation(home, { id, ...(title === undefined ? {} : { title }), createdAt });
      const output = join(home.home, "..", `dir-${index}`);
      const result = await home.run(["conversation", "export", id, "--to", "jp", "--output", output]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(readdirSync(output)).toEqual([expected]);
    }
  });
});

describe("compactions and the rest of the conversation (stream_tests.rs)", () => {
  it("test_compaction_not_counted_by_is_empty: a compaction alone is no event", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "empty0000001",
      events: [build.compaction({ from: 0, to: 0 })],
      active: true,
    });
    const shown = JSON.parse((await home.run(["--format", "json", "conversation", "show"])).stdout);
    expect(shown).toMatchObject({ events: 0, turns: 0 });
    expect(shown.compactions).toHaveLength(1);
    expect((await home.run(["conversation", "compact"])).stdout).toBe("Nothing to compact.\n");
  });

  it("test_compaction_does_not_affect_config: the model and system prompt are the same after a compaction", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    const delta = build.configDelta({
      assistant: {
        model: { id: { provider: "anthropic", name: "claude-opus-4-6" } },
        system_prompt: "Be terse.",
      },
    });
    await seedConversation(home, { id: "config000001", events: [delta, ...build.turns(3)], active: true });
    const body = async () =>
      JSON.parse((await home.run(["--format", "anthropic", "conversation", "print"])).stdout);
    const before = await body();
    expect(before).toMatchObject({ model: "claude-opus-4-6", system: [{ type: "text", text: "Be terse." }] });
    expect((await home.run(["conversation", "compact", "-r"])).exitCode).toBe(0);
    const after = await body();
    expect({ model: after.model, system: after.system }).toEqual({
      model: before.model,
      system: before.system,
    });
  });

  it("test_retain_removing_events_drops_compactions: a fork that keeps no turn keeps no compaction", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, {
      id: "retain000001",
      events: [...build.turns(1), build.compaction({ from: 0, to: 0, reasoning: true })],
      active: true,
    });
    for (const args of [
      ["--last", "0"],
      ["--from", "2099-01-01"],
    ]) {
      const result = await home.run(["--format", "json", "conversation", "fork", "retain000001", ...args]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ turns: 0, events: 0, dropped_compactions: 1 });
    }
  });
});

describe("compact's model flag (compact_tests.rs)", () => {
  const SUMMARY_RULE = [
    "[[conversation.compaction.rules]]",
    "keep_first = 1",
    "keep_last = 1",
    "[conversation.compaction.rules.summary.model]",
    'id = "anthropic/claude-configured"',
    "",
  ].join("\n");

  it("model_alias_reaches_a_configured_summary_model_through_the_pipeline (jp's providers.llm.aliases)", async () => {
    home = await homeWithSample();
    provider.reset();
    writeUserConfig(`${SUMMARY_RULE}[providers.llm.aliases]\ngpt = "openai/gpt-test"\n`);
    provider.enqueue(textReply("A summary by the aliased model."));
    const result = await home.run(["conversation", "compact", "-m", "gpt"], { env: openaiEnv() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(provider.requests[0]!.path).toBe("/v1/responses");
    expect((provider.requests[0]!.body as { model: string }).model).toBe("gpt-test");
    expect(compactionsOf(home)[0]!.summary).toMatchObject({ recipe: "openai/gpt-test" });
  });

  it("without_the_model_flag_a_configured_summary_model_is_kept", async () => {
    home = await homeWithSample();
    provider.reset();
    writeUserConfig(SUMMARY_RULE);
    provider.enqueue(textReply("A summary by the configured model."));
    const result = await home.run(["conversation", "compact"], { env: anthropicEnv() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect((provider.requests[0]!.body as { model: string }).model).toBe("claude-configured");
  });

  it("model_flag_targets_the_assistant_model: -s -m MODEL summarizes with MODEL", async () => {
    home = await homeWithSample();
    provider.reset();
    provider.enqueue(textReply("A summary."));
    const result = await home.run(["conversation", "compact", "-s", "-m", "anthropic/claude-flag"], {
      env: anthropicEnv(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect((provider.requests[0]!.body as { model: string }).model).toBe("claude-flag");
  });

  it("model_flag_leaves_summaryless_rules_untouched: -r -m MODEL writes no summary and calls no model", async () => {
    home = await homeWithSample();
    provider.reset();
    const result = await home.run(["conversation", "compact", "-r", "-m", "openai/gpt-5"], {
      env: openaiEnv(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(compactionsOf(home).map((c) => c.summary)).toEqual([undefined]);
    expect(provider.requests).toHaveLength(0);
  });

  it("summarize_flag_distinguishes_absent_bare_and_valued: -s, and -s CONTEXT as extra guidance", async () => {
    home = await homeWithSample();
    provider.reset();
    provider.enqueue(textReply("Bare."), textReply("Focused."));
    const env = { ...anthropicEnv(), CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6" };
    expect((await home.run(["conversation", "compact", "-s", "--turn", "2..4"], { env })).exitCode).toBe(0);
    expect(
      (await home.run(["conversation", "compact", SAMPLE_ID, "-s", "focus on the tests"], { env })).exitCode,
    ).toBe(0);
    const lastUser = (index: number): string => {
      const body = provider.requests[index]!.body as { messages: { role: string; content: unknown }[] };
      return JSON.stringify(body.messages.at(-1));
    };
    expect(lastUser(0)).toContain("Summarize the conversation above.");
    expect(lastUser(0)).not.toContain("Additional context");
    expect(lastUser(1)).toContain(
      "Summarize the conversation above.\\n\\nAdditional context: focus on the tests",
    );
  });
});

describe("flags that do not go together (compact_tests.rs)", () => {
  it("policy_flag_conflicts_with_dsl_spec, reset_conflicts_with_selection_flags", async () => {
    home = await homeWithSample();
    const before = logBytes(home);
    for (const [args, message] of [
      [["--reasoning", "-k", "s:..-3"], "--reasoning cannot be used with --compact"],
      [["-r", "-k"], "--reasoning cannot be used with --compact"],
      [["--reset", "--reasoning"], "--reset cannot be used with --reasoning"],
      [["--reset", "-k", "s:..-3"], "--reset cannot be used with --compact"],
      [["--reset", "--keep-last", "5"], "--reset cannot be used with --keep-last"],
    ] as const) {
      const result = await home.run(["conversation", "compact", ...args]);
      expect(result.exitCode, args.join(" ")).toBe(2);
      expect(errorLines(result.stderr).error).toBe(message);
    }
    expect(logBytes(home)).toBe(before);
    // --reset --dry-run stays valid: it previews the removal.
    const preview = await home.run(["conversation", "compact", "--reset", "--dry-run"]);
    expect(preview.exitCode).toBe(0);
    expect(preview.stdout).toBe("No compaction events to remove.\n");
  });

  it("reasoning_mode_parse: a configured rule's reasoning is strip, nothing else", async () => {
    home = await homeWithSample();
    writeUserConfig('[[conversation.compaction.rules]]\nreasoning = "strip"\n');
    expect((await home.run(["conversation", "compact", "--dry-run"])).stdout).toContain(
      "(18 total, reasoning)",
    );
    writeUserConfig('[[conversation.compaction.rules]]\nreasoning = "keep"\n');
    const bad = await home.run(["conversation", "compact", "--dry-run"]);
    expect(bad.exitCode).toBe(2);
    expect(errorLines(bad.stderr).error).toMatch(/^conversation\.compaction\.rules\[0\]\.reasoning/);
  });
});
