/** The summary check: what a summary of a range does not mention, ranked, on strong signals only. */
import { describe, expect, it } from "vitest";
import { ADVISOR_AUTHOR, type TurnEvent } from "../../src/core/conversation/events.js";
import { findConstraints } from "../../src/compaction/core/summary/facts.js";
import {
  checkSummary,
  findIdentifiers,
  findQuantities,
  type LostItem,
} from "../../src/compaction/core/summary/check.js";
import { formatLosses, formatLostItem } from "../../src/compaction/core/summary/summary-check-text.js";
import { groupTurns, type Turn } from "../../src/core/conversation/turns.js";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { importJpConversation } from "../../src/core/interop/jp.js";
import { JP_WORKSPACES, jpConversationDirectories } from "../helpers/jp-fixtures.js";
import { loadSample } from "../helpers/sample.js";

let sequence = 0;
const base = () => ({ id: `E${++sequence}`, ts: "2026-01-01T00:00:00Z" });
const turnStart = (): TurnEvent => ({ ...base(), type: "turn_start" });
const user = (content: string): TurnEvent => ({ ...base(), type: "chat_request", content });
const say = (message: string): TurnEvent => ({ ...base(), type: "chat_response", message });
const think = (reasoning: string): TurnEvent => ({ ...base(), type: "chat_response", reasoning });
const call = (name: string, args: Record<string, unknown>, content = "ok"): TurnEvent[] => {
  const callId = `c${++sequence}`;
  return [
    { ...base(), type: "tool_call_request", call_id: callId, name, arguments: args },
    { ...base(), type: "tool_call_response", call_id: callId, content, is_error: false },
  ];
};
const turns = (...groups: TurnEvent[][]): Turn[] =>
  groupTurns(groups.flatMap((events) => [turnStart(), ...events]));
const all = (conversation: Turn[]) => ({ from: 0, to: conversation.length - 1 });
const lost = (conversation: Turn[], summary = "") =>
  checkSummary(conversation, all(conversation), summary).items;
const values = (items: readonly LostItem[], kind?: LostItem["kind"]) =>
  items.filter((item) => kind === undefined || item.kind === kind).map((item) => item.value);

describe("what the facts block carries", () => {
  const conversation = turns(
    [
      user("Please fix the log rotation. Never push to main."),
      ...call("fs_read_file", { path: "src/store/log.ts" }),
      ...call("fs_modify_file", { path: "./src/store/rotate.ts", patterns: [] }),
      ...call("run_command", { command: "npx vitest run test/rotate.test.ts 2>/dev/null" }),
    ],
    [user("Does it handle I/O errors, and corrupt/missing files?"), say("Yes; `log.ts` now retries.")],
  );

  it("reports no path and no binding sentence: the facts block after the summary holds them exactly", () => {
    expect(lost(conversation)).toEqual([]);
  });

  it("does not take a path the range names for an identifier (`log.ts`, `rotate.ts`)", () => {
    const named = turns([
      user("Look at `rotate.ts` and `rotateLogs`."),
      ...call("fs_read_file", { path: "src/store/rotate.ts" }, "export function rotateLogs() {}"),
      say("`rotate.ts` exports `rotateLogs`, which `log.ts` calls."),
    ]);
    expect(values(lost(named))).toEqual(["rotateLogs"]);
  });
});

describe("identifiers", () => {
  it("reports code-shaped words the messages name that code shows, in any spelling once", () => {
    const conversation = turns([
      user("Why does parseSince reject 2h?"),
      ...call(
        "fs_read_file",
        { path: "src/since.ts" },
        "export function parseSince(text) {}\nconst MAX_AGE = 1;\nclass Store { open_log() {} }",
      ),
      say("`parseSince()` splits on UNITS_TABLE; MAX_AGE caps it. Store::open_log calls `open_log`."),
    ]);
    const items = lost(conversation, "Looked at src/since.ts.");
    expect(values(items, "identifier")).toEqual(["parseSince", "Store::open_log", "MAX_AGE"]);
    // UNITS_TABLE is code-shaped but no code shows it; `open_log` is `Store::open_log`.
    expect(items.find((item) => item.value === "parseSince")?.reason).toBe("named by the user in turn 1");
  });

  it("does not report product names and hosts written in prose (macOS, github.com)", () => {
    const conversation = turns([
      user("It fails on macOS; the report is on github.com and in the iOS app."),
      ...call("run_command", { command: "uname" }, "Darwin macOS github.com"),
      say("On macOS the path differs; github.com lists it."),
    ]);
    expect(values(lost(conversation), "identifier")).toEqual([]);
  });

  it("leaves out standard-library names, a local variable named once, and code quoted in passing", () => {
    const conversation = turns([
      user("Look at the loader."),
      ...call(
        "fs_read_file",
        { path: "src/load.rs" },
        "fn load_all(ids: &[Id]) { let valid_ids = ids.to_vec(); }",
      ),
      say(
        "`load_all` checks `valid_ids.is_empty()`, then `Box::new(x)`; `valid_ids` is filled by `Foo::bar(&x).baz()`.",
      ),
    ]);
    expect(values(lost(conversation, "src/load.rs"), "identifier")).toEqual(["load_all"]);
  });

  it("ignores identifiers of a pasted reference unless the assistant comes back to them", () => {
    const guide = Array.from({ length: 14 }, (_, index) => `\`Type${index}Params::new\``).join(", ");
    const conversation = turns([
      user(`Here is the migration guide: ${guide}.`),
      ...call("fs_modify_file", {
        path: "src/client.rs",
        patterns: [{ old: "x", new: "Type3Params::new() + Type4Params::new()" }],
      }),
      say("Switched to `Type3Params::new` and `Type4Params::new`."),
      say("`Type3Params::new` also needs the task."),
    ]);
    expect(values(lost(conversation, "src/client.rs"), "identifier")).toEqual(["Type3Params::new"]);
  });

  it("takes a user message whose code blocks name many identifiers as pasted reference", () => {
    const names = Array.from({ length: 13 }, (_, index) => `optionNumber${index}`);
    const conversation = turns([
      user(
        `The docs say to wrap the config with \`createCacheWrapper\` and to edit .vitepress/theme/index.ts:\n\n\`\`\`ts\n${names.map((name) => `${name}: true,`).join("\n")}\n\`\`\``,
      ),
      ...call("fs_read_file", { path: "docs/config.ts" }, "export default defineConfig({})"),
      say("Your config does not use it; I set `ShikiConfig::languages` instead."),
      say("`ShikiConfig::languages` now lists wit."),
    ]);
    const items = lost(conversation, "");
    // The documentation's names are not the work's.
    expect(values(items, "identifier")).toEqual(["ShikiConfig::languages"]);
  });

  it("leaves out locals, tests the work did not write and what the assistant only meant to look at", () => {
    const conversation = turns([
      user("Why is the list empty?"),
      ...call(
        "fs_read_file",
        { path: "src/list.rs" },
        "fn list_all(limit: usize) { let valid_ids = load(); }\nfn is_missing() {}\n#[test] fn test_old_listing() {}",
      ),
      say("Let me check `ListOptions` first."),
      say("`valid_ids` is empty because `list_all` stops at `limit`; `valid_ids` is never refilled."),
      say("I removed `test_old_listing`; `test_old_listing` tested the old loop."),
      say("| check | result |\n| --- | --- |\n| `is_missing()` only | `list_all` skips |"),
    ]);
    expect(values(lost(conversation, "src/list.rs"), "identifier")).toEqual(["list_all", "is_missing"]);
  });

  it("reports a test the work added, not one it only read, kept, moved or edited", () => {
    const conversation = turns([
      user("Move the tests to the new crate."),
      ...call("fs_read_file", { path: "old/src/lib.rs" }, "#[test]\nfn test_kept() {}"),
      ...call("fs_create_file", {
        path: "new/src/lib.rs",
        content: "#[test]\nfn test_kept() {}\n#[test]\nfn test_added() {}",
      }),
      ...call("fs_modify_file", {
        path: "new/src/io.rs",
        patterns: [{ old: "fn test_edited() {}", new: "fn test_edited() { check(); }" }],
      }),
      say("Moved `test_kept` over, wrote `test_added` and touched `test_edited`."),
    ]);
    expect(values(lost(conversation, "old/src/lib.rs new/src/lib.rs new/src/io.rs"), "identifier")).toEqual([
      "test_added",
    ]);
  });

  it("leaves out what the finished work removed or replaced, not what a plan would remove", () => {
    const conversation = turns([
      user("Clean up the loader."),
      ...call(
        "fs_read_file",
        { path: "src/load.rs" },
        "fn old_helper() {}\nfn legacy_fn() {}\nfn stale_cache() {}\nstruct OldError;\nstruct NewError;",
      ),
      say("Removed the unused `old_helper`, and replaced `OldError` with `NewError`."),
      say("`legacy_fn` is no longer used; `OldParam` → `NewParams::new()`."),
      say("Next the fix removes `stale_cache`; `Cache::evict` will be removed too."),
    ]);
    expect(values(lost(conversation, "src/load.rs"), "identifier")).toEqual([
      "stale_cache",
      "Cache::evict",
      "NewParams::new",
      "NewError",
    ]);
  });

  it("leaves out what the assistant named only as an import", () => {
    const conversation = turns([
      user("Fix the test setup."),
      ...call("fs_read_file", { path: "src/setup.rs" }, "use store::Storage;\nfn open_storage() {}"),
      say("Added the `store::Storage` import and called `open_storage` from the setup."),
    ]);
    expect(values(lost(conversation, "src/setup.rs"), "identifier")).toEqual(["open_storage"]);
  });

  it("takes what a call searched for as its subject, not a name in the code an edit wrote, nor a type parameter's method", () => {
    const conversation = turns([
      user("Move the notes to the new search."),
      ...call("fs_grep_files", { pattern: "find_notes|NoteIndex", paths: ["src"] }),
      ...call("fs_modify_file", {
        path: "src/notes.rs",
        patterns: [{ old: "#[allow(clippy::doc_markdown)]", new: "#[expect(clippy::doc_markdown)]" }],
      }),
      say("Switched `find_notes` to the index; the lint `doc_markdown` is expected now."),
      say("`NoteIndex` is built once; `T::json_schema` derives the schema."),
    ]);
    expect(values(lost(conversation, "src/notes.rs"), "identifier")).toEqual(["NoteIndex", "find_notes"]);
  });

  it("matches ignoring case, underscores and the qualifier", () => {
    const conversation = turns([
      user("Rename `parse_since` and fix `Store::openLog`."),
      ...call("fs_read_file", { path: "a.rs" }, "fn parse_since() {} fn openLog() {}"),
    ]);
    expect(values(lost(conversation, "a.rs: ParseSince renamed; openlog fixed."), "identifier")).toEqual([]);
  });
});

describe("numbers", () => {
  it("reports the user's quantities and the measurements the assistant came back to, not counts or years", () => {
    const conversation = turns(
      [
        user("Keep it under 200 ms and give up after 3 retries; it ran fine in 2024."),
        say("It now takes 1.8 MB (typically 8KB more) and 12 tests pass."),
      ],
      [user("And stay below 40%."), say("Still 1.8 MB. You are 100% right.")],
    );
    const items = lost(conversation, "Fast now.");
    expect(values(items, "number")).toEqual(["40%", "200 ms", "3 retries", "1.8 MB"]);
    expect(items.find((item) => item.value === "1.8 MB")?.reason).toBe(
      "named by the assistant in turns 1 and 2",
    );
    expect(values(lost(turns([say("It took 7 s."), say("Then 7.0 s.")])))).toEqual(["7 s"]);
  });

  it("finds the same quantity however it is spelled in the summary", () => {
    const conversation = turns([user("Keep it under 200 ms; files are 1.8 MB.")]);
    expect(values(lost(conversation, "Budget: 200ms. Size 1.8MB."), "number")).toEqual([]);
  });
});

describe("checkSummary", () => {
  it("never reads reasoning or tool output as facts", () => {
    const conversation = turns([
      user("Go."),
      think("maybe useSecretHelper in src/secret.ts, it takes 300 ms"),
      ...call(
        "fs_read_file",
        { path: "a.ts" },
        "const UNIT_MILLISECONDS = 1; // takes 200 ms in src/other.ts",
      ),
    ]);
    expect(values(lost(conversation))).toEqual([]);
  });

  it("ignores the advisor's messages", () => {
    const advisor = { ...user("You must compact within 200 ms, see `compact_now`."), author: ADVISOR_AUTHOR };
    expect(lost(turns([advisor as TurnEvent]))).toEqual([]);
  });

  it("only looks at the range, and counts what it checked", () => {
    const conversation = turns([user("Keep it under 200 ms.")], [user("Cap it at 3 retries.")]);
    const result = checkSummary(conversation, { from: 1, to: 1 }, "");
    expect(values(result.items)).toEqual(["3 retries"]);
    expect(checkSummary(conversation, all(conversation), "under 200 ms").checked).toBe(2);
  });

  it("ranks by signal, then how often and how recently", () => {
    const conversation = turns(
      [
        user("Keep `parseSince` under 200 ms."),
        ...call("fs_read_file", { path: "a.ts" }, "function parseSince() {}"),
      ],
      [say("`parseSince` is now 40 ms; `Parser` stays.")],
      [say("`parseSince` is at 40 ms still.")],
    );
    const items = lost(conversation);
    // The user's identifier named three times, then the user's quantity said once, then the
    // assistant's measurement it came back to.
    expect(values(items)).toEqual(["parseSince", "200 ms", "40 ms"]);
    expect(items[0]).toMatchObject({ reason: "named by the user in turn 1 (3 mentions)", turns: [0, 1, 2] });
    expect(items.map((item) => item.score)).toEqual(
      [...items.map((item) => item.score)].sort((a, b) => b - a),
    );
  });

  it("reports the sample's key identifiers and numbers against a thin summary", () => {
    const { turns: sample } = loadSample();
    const items = checkSummary(sample, { from: 0, to: 19 }, "Added a --since flag to logcat.").items;
    expect(values(items, "identifier")).toContain("parseSince");
    expect(values(items, "number")).toContain("400 MB");
    expect(items.every((item) => item.kind === "identifier" || item.kind === "number")).toBe(true);
  });
});

describe.each(JP_WORKSPACES)("on every conversation of the $name jp workspace", (jp) => {
  const readJson = (path: string) => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined);
  const conversations = jpConversationDirectories(jp).map((directory) => {
    const imported = importJpConversation({
      directoryName: directory.name,
      metadata: readJson(join(directory.path, "metadata.json")),
      baseConfig: readJson(join(directory.path, "base_config.json")),
      events: readJson(join(directory.path, "events.json")),
      archived: directory.archived,
    });
    if (!imported.ok) throw new Error(`${directory.name}: ${imported.message}`);
    return { name: directory.name, turns: groupTurns(imported.value.events) };
  });

  it("never reports the prose the issue named (I/O, corrupt/missing, src, github.com, macOS), even against an empty summary", () => {
    expect(conversations.length).toBeGreaterThanOrEqual(6);
    for (const { name, turns: jpTurns } of conversations) {
      const items = checkSummary(jpTurns, all(jpTurns), "").items;
      const reported = new Set(values(items));
      for (const noise of ["I/O", "corrupt/missing", "src", "github.com", "macOS", "pub/sub"]) {
        expect(reported.has(noise), `${name} reports ${noise}`).toBe(false);
      }
      const scores = items.map((item) => item.score);
      expect(scores).toEqual([...scores].sort((left, right) => right - left));
    }
  });
});

describe("extractors", () => {
  it("finds code-shaped identifiers and nothing else", () => {
    expect(
      findIdentifiers(
        "Call Number.isNaN in parseSince; FilterOptions, fs_read_file, MAX_SIZE, std::fs::read, --noEmit, " +
          "macOS, github.com, e.g. the Parser, since.ts, APIs, Box::new, `x.is_empty()`",
      ),
    ).toEqual(["Number.isNaN", "parseSince", "FilterOptions", "fs_read_file", "MAX_SIZE", "--noEmit"]);
  });

  it("finds quantities with units, not bare numbers, versions or years", () => {
    expect(
      findQuantities(
        "In 2026, turn 3 took 7 s, 2h, 400 MB, 12.5%, 200k tokens, 3x faster on v20.11.1 in the 1990s",
      ).map((quantity) => quantity.value),
    ).toEqual(["7 s", "2h", "400 MB", "12.5%", "200k tokens", "3x"]);
  });

  it("finds binding sentences across wrapped lines", () => {
    expect(
      findConstraints(
        "Please look. You must keep it pure;\nnever mind. Always run lint.\n> Never quoted.\nThanks.",
      ),
    ).toEqual(["You must keep it pure; never mind.", "Always run lint."]);
  });
});

describe("formatLosses", () => {
  const item = (value: string, kind: LostItem["kind"] = "identifier"): LostItem => ({
    kind,
    value,
    reason: "read in turn 1",
    score: 5,
    turns: [0],
  });

  it("shows the top ten and counts the rest", () => {
    const losses = { items: Array.from({ length: 12 }, (_, index) => item(`f${index}`)), checked: 20 };
    const lines = formatLosses(losses, {
      title: "Summary of turns 1..3 (builtin/digest)",
      moreHint: " (see --format json)",
    });
    expect(lines[0]).toBe(
      "Summary of turns 1..3 (builtin/digest) does not mention 12 items; the 10 that matter most:",
    );
    expect(lines.slice(1, 11)).toEqual(
      Array.from({ length: 10 }, (_, index) => `  identifier  f${index} — read in turn 1`),
    );
    expect(lines[11]).toBe("  … and 2 more (see --format json)");
  });

  it("says when nothing is missing", () => {
    expect(formatLosses({ items: [], checked: 3 }, { title: "The summary" })).toEqual([
      "The summary mentions every identifier and number the summary check looks for.",
    ]);
    expect(formatLosses({ items: [item("200 ms", "number")], checked: 1 }, { title: "The summary" })).toEqual(
      ["The summary does not mention this item:", "  number      200 ms — read in turn 1"],
    );
    expect(formatLostItem(item("x".repeat(200), "identifier"))).toMatch(/^identifier {2}x{159}… — /);
  });
});
