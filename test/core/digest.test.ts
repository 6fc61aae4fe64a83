/**
 * The builtin/digest summarizer: unit behaviour on tiny conversations, and the two guarantees
 * (every file path and every user request of the range is named) on the sample and on every
 * conversation of the real jp workspace in ../shared.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  collectArgumentPaths,
  collectCommandPaths,
  digestTurns,
} from "../../src/compaction/core/summary/digest.js";
import {
  ADVISOR_AUTHOR,
  type ConversationEvent,
  type TurnEvent,
} from "../../src/core/conversation/events.js";
import { createEventBuilder, tickTime } from "../helpers/builders.js";
import { groupTurns, type Turn } from "../../src/core/conversation/turns.js";
import { JP_WORKSPACES, noticeMissingSharedWorkspace } from "../helpers/jp-fixtures.js";
import { loadSample } from "../helpers/sample.js";

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

let sequence = 0;
function base() {
  sequence += 1;
  return {
    id: `E${String(sequence).padStart(6, "0")}`,
    ts: `2026-01-01T00:00:${String(sequence % 60).padStart(2, "0")}Z`,
  };
}
const turnStart = (): TurnEvent => ({ ...base(), type: "turn_start" });
const user = (content: string): TurnEvent => ({ ...base(), type: "chat_request", content });
const say = (message: string): TurnEvent => ({ ...base(), type: "chat_response", message });
const think = (reasoning: string): TurnEvent => ({ ...base(), type: "chat_response", reasoning });
function tool(name: string, args: Record<string, unknown>, content: string, isError = false): TurnEvent[] {
  const request = {
    ...base(),
    type: "tool_call_request" as const,
    call_id: `call-${sequence}`,
    name,
    arguments: args,
  };
  return [
    request,
    { ...base(), type: "tool_call_response", call_id: request.call_id, content, is_error: isError },
  ];
}
function conversation(...turns: TurnEvent[][]): Turn[] {
  return groupTurns(turns.flatMap((events) => [turnStart(), ...events]));
}
const all = (turns: readonly Turn[]) => ({ from: 0, to: turns.length - 1 });

// ---------------------------------------------------------------------------------------------
// Independent checks of the guarantees (deliberately not using the digest's own extractors).
// ---------------------------------------------------------------------------------------------

const PATH_KEY = /^(?:path|paths|file|files|file_path|filename|prefixes)$/i;

function argumentPaths(value: unknown, key = ""): string[] {
  if (typeof value === "string") return PATH_KEY.test(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => argumentPaths(item, key));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([name, child]) => argumentPaths(child, name));
  return [];
}

function expectNamesEverything(
  turns: readonly Turn[],
  fromTurn: number,
  toTurn: number,
  where: string,
): void {
  const digest = digestTurns(turns, { from: fromTurn, to: toTurn });
  for (const turn of turns.filter((candidate) => candidate.index >= fromTurn && candidate.index <= toTurn)) {
    for (const event of turn.events) {
      if (event.type === "chat_request" && event.content.trim() !== "") {
        expect(digest.includes(event.content), `${where}: request of turn ${turn.index + 1} missing`).toBe(
          true,
        );
      }
      if (event.type !== "tool_call_request") continue;
      for (const path of argumentPaths(event.arguments).filter((candidate) => candidate !== "")) {
        expect(digest.includes(path), `${where}: path ${path} (turn ${turn.index + 1}) missing`).toBe(true);
      }
      if (typeof event.arguments.command === "string") {
        for (const word of event.arguments.command
          .split(/\s+/)
          .filter((candidate) => /^[\w.-]+\/[\w./-]+$/.test(candidate))) {
          expect(digest.includes(word), `${where}: command path ${word} missing`).toBe(true);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Unit behaviour
// ---------------------------------------------------------------------------------------------

describe("digestTurns", () => {
  it("quotes short requests inline and long or multi-line ones whole in a safe fence", () => {
    const long = "Here is the log:\n```\nline 1\n```\nWhat broke?";
    const turns = conversation([user("Fix the build."), say("ok")], [user(long), say("ok")]);
    const digest = digestTurns(turns, all(turns));
    expect(digest).toContain("- Turn 1: Fix the build.");
    expect(digest).toContain(`\`\`\`\`text\n${long}\n\`\`\`\``);
  });

  it("names the turns it covers and leaves out turns outside the range", () => {
    const turns = conversation([user("first")], [user("second")], [user("third")]);
    const digest = digestTurns(turns, { from: 1, to: 1 });
    expect(digest).toMatch(/^## Digest of turns 2\.\.2 \(builtin\/digest\)/);
    expect(digest).toContain("second");
    expect(digest).not.toContain("first");
    expect(digest).not.toContain("third");
  });

  it("sorts files into read, changed and other, with their turns", () => {
    const turns = conversation(
      [user("look"), ...tool("fs_read_file", { path: "crates/a/src/lib.rs" }, "fn a() {}")],
      [
        user("change"),
        ...tool("fs_modify_file", { path: "crates/a/src/lib.rs", patterns: [{ old: "a", new: "b" }] }, "ok"),
        ...tool(
          "git_stage_patch",
          { patches: [{ path: "crates/b/src/main.rs", ids: ["c95699ccfe4a"] }] },
          "staged",
        ),
        ...tool("fs_grep_files", { pattern: "todo", paths: ["crates/c", "docs"] }, "none"),
      ],
    );
    const digest = digestTurns(turns, all(turns));
    expect(digest).toContain(
      "### Files read\n- `crates/a/src/lib.rs` (turn 1)\n- `crates/c` (turn 2)\n- `docs` (turn 2)",
    );
    expect(digest).toContain(
      "### Files changed\n- `crates/a/src/lib.rs` (turn 2)\n- `crates/b/src/main.rs` (turn 2)",
    );
  });

  it("reports commands with their outcome and the first failing line", () => {
    const turns = conversation([
      user("build"),
      ...tool(
        "run_command",
        { command: "npx tsc --noEmit" },
        "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n\nexit code: 2",
      ),
      ...tool("cargo_check", { package: "jp_cli" }, "Finished dev profile"),
      ...tool("run_command", { command: "npm test" }, "Tests  1 failed | 3 passed (4)"),
      ...tool("cargo_test", { package: "jp_config" }, "Ran 253/253 tests, of which 0 failed."),
    ]);
    const digest = digestTurns(turns, all(turns));
    expect(digest).toContain(
      "- Turn 1: `npx tsc --noEmit` → exit 2: src/a.ts(3,1): error TS2304: Cannot find name 'x'.",
    );
    expect(digest).toContain("- Turn 1: `cargo_check package=jp_cli` → ok");
    expect(digest).toContain("- Turn 1: `npm test` → failed: Tests  1 failed | 3 passed (4)");
    expect(digest).toContain("- Turn 1: `cargo_test package=jp_config` → ok");
  });

  it("pairs an error with a later success of the same command or tool", () => {
    const turns = conversation(
      [user("test"), ...tool("run_command", { command: "npm test -- a.test.ts" }, "boom", true)],
      [user("again"), ...tool("run_command", { command: "npm test" }, "all good\nexit code: 0")],
      [user("edit"), ...tool("edit_file", { path: "a.ts", old: "x", new: "y" }, "no match", true)],
    );
    const digest = digestTurns(turns, all(turns));
    expect(digest).toContain(
      "- Turn 1: `npm test -- a.test.ts`: error: boom (resolved: succeeded again in turn 2)",
    );
    expect(digest).toMatch(
      /- Turn 3: `edit_file path=a\.ts old=x new=y`: error: no match \(not resolved in this range\)/,
    );
  });

  it("collects decisions from assistant messages, not from reasoning", () => {
    const turns = conversation([
      user("how?"),
      think("We'll secretly use a regex."),
      say("We'll keep the parser pure because tests get simpler. The output is 2 lines instead of 3."),
    ]);
    const digest = digestTurns(turns, all(turns));
    expect(digest).toContain(
      "### Decisions\n- Turn 1: We'll keep the parser pure because tests get simpler.",
    );
    expect(digest).not.toContain("secretly");
    expect(digest).not.toContain("instead of 3");
  });

  it("lists the last turn's unanswered asks and TODOs as open items", () => {
    const turns = conversation(
      [user("start"), say("Done. TODO: add --until later.")],
      [user("Can you add yesterday? Also run lint.")],
    );
    const digest = digestTurns(turns, all(turns));
    expect(digest).toContain("- Turn 2: the request (quoted above) has no answer yet");
    expect(digest).toContain('- Turn 2, the user asked: "Can you add yesterday?"');
    expect(digest).toContain("- Turn 1: TODO: add --until later.");
  });

  it("is deterministic", () => {
    const { turns } = loadSample();
    expect(digestTurns(turns, { from: 2, to: 12 })).toBe(digestTurns(turns, { from: 2, to: 12 }));
  });
});

describe("path extraction", () => {
  it("finds path keys at any depth and ignores content keys", () => {
    const args = {
      path: "a.ts",
      old: "src/x.ts",
      patches: [{ path: "b.ts" }],
      paths: ["c", "d"],
      json: { file_path: "e" },
    };
    expect(collectArgumentPaths(args)).toEqual(["a.ts", "b.ts", "c", "d", "e"]);
  });

  it("finds paths in commands but not flags, URLs or environment assignments", () => {
    const command =
      "TZ=Europe/Berlin node dist/cli.js --since 2h 'logs/app.log' https://x.io/a > /dev/null && cat package.json";
    expect(collectCommandPaths(command)).toEqual([
      "dist/cli.js",
      "logs/app.log",
      "/dev/null",
      "package.json",
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The guarantees on real conversations
// ---------------------------------------------------------------------------------------------

describe("digest of the sample names every path and request", () => {
  const { turns } = loadSample();
  const ranges: [number, number][] = [
    [0, 19],
    [0, 0],
    [2, 9],
    [10, 18],
    [19, 19],
  ];
  for (const [fromTurn, toTurn] of ranges) {
    it(`turns ${fromTurn + 1}–${toTurn + 1}`, () => expectNamesEverything(turns, fromTurn, toTurn, "sample"));
  }

  it("reports the failing test run, the tool error and their fixes", () => {
    const digest = digestTurns(turns, { from: 0, to: 19 });
    expect(digest).toContain("`npx tsc --noEmit`: error: src/cli.ts(86,34): error TS2345");
    expect(digest).toContain("`npx vitest run test/since.test.ts`: exit 1: × parseSince > parses 1d");
    expect(digest).toContain("(resolved: succeeded again in turn 4)");
    expect(digest).toContain("We'll keep the parser pure because");
    expect(digest).toMatch(/### Open items\n[\s\S]*TODO: `--until`/);
  });
});

noticeMissingSharedWorkspace("the digest check over jp conversations");

describe.each(JP_WORKSPACES)(
  "digest of every conversation of the $name jp workspace names every path and request",
  (jp) => {
    const directories = listConversationDirectories(jp.conversations);

    it("finds the jp conversations", () =>
      expect(directories.length).toBeGreaterThanOrEqual(jp.name === "shared" ? 20 : 7));

    for (const directory of directories) {
      it(directory.split("/").slice(-1)[0]!, () => {
        const turns = groupTurns(loadJpEvents(join(directory, "events.json")));
        const last = turns.length - 1;
        expectNamesEverything(turns, 0, last, directory);
        const middle = Math.floor(last / 2);
        expectNamesEverything(turns, Math.min(1, last), Math.max(Math.min(1, last), middle), directory);
        expectNamesEverything(turns, middle, last, directory);
      });
    }
  },
);

// ---------------------------------------------------------------------------------------------
// A small jp loader for this test (jp-compaction.md §1.7): base64 string leaves of tool
// arguments and metadata, base64 tool response content, decoded leniently.
// ---------------------------------------------------------------------------------------------

function listConversationDirectories(root: string): string[] {
  const archive = join(root, ".archive");
  const inArchive = existsSync(archive) ? readdirSync(archive).map((name) => join(archive, name)) : [];
  const live = readdirSync(root)
    .filter((name) => !name.startsWith("."))
    .map((name) => join(root, name));
  return [...live, ...inArchive].filter((directory) => existsSync(join(directory, "events.json"))).sort();
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeBase64(value: string): string {
  if (value.length === 0 || value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return value;
  try {
    return utf8.decode(Buffer.from(value, "base64"));
  } catch {
    return value;
  }
}

function decodeLeaves(value: unknown): unknown {
  if (typeof value === "string") return decodeBase64(value);
  if (Array.isArray(value)) return value.map(decodeLeaves);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, decodeLeaves(child)]));
  }
  return value;
}

function loadJpEvents(path: string): ConversationEvent[] {
  const entries = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>[];
  return entries.flatMap((entry, position): ConversationEvent[] => {
    const { timestamp, type, id, metadata, ...rest } = entry;
    const common = { ...rest, id: `jp-${position}`, ts: String(timestamp), type } as Record<string, unknown>;
    if (metadata !== undefined) common.metadata = decodeLeaves(metadata);
    switch (type) {
      case "turn_start":
      case "chat_request":
      case "chat_response":
        return [common as ConversationEvent];
      case "tool_call_request":
        return [
          { ...common, call_id: id, arguments: decodeLeaves(rest.arguments ?? {}) } as ConversationEvent,
        ];
      case "tool_call_response":
        return [{ ...common, call_id: id, content: decodeBase64(String(rest.content)) } as ConversationEvent];
      case "inquiry_request":
      case "inquiry_response":
        return [{ ...common, inquiry_id: id } as ConversationEvent];
      default:
        return [];
    }
  });
}

describe("advisor steering messages", () => {
  it("are not listed as user requests", () => {
    const build = createEventBuilder();
    const events = [
      ...build.turn("please refactor the parser"),
      {
        type: "chat_request" as const,
        id: "steer-1",
        ts: tickTime(99),
        content: "cxc advisor: the context is large; call compact_now",
        author: ADVISOR_AUTHOR,
      },
    ];
    const digest = digestTurns(groupTurns(events), { from: 0, to: 0 });
    expect(digest).toContain("please refactor the parser");
    expect(digest).not.toContain("call compact_now");
  });
});
