/**
 * The facts of a range of raw turns (src/compaction/core/summary/range-facts.ts): files read and modified
 * from the tool calls of every agent cxc imports, read on the real sessions of fixtures/agents/
 * and the real jp workspace, and in the shapes the converters store; the user's binding
 * sentences verbatim; selection inside turns; and the block within its budget.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type CycleRange, selectRange } from "../../src/core/conversation/cycles.js";
import { ADVISOR_AUTHOR, type ConversationEvent } from "../../src/core/conversation/events.js";
import { importClaudeCodeSession } from "../../src/core/interop/claude-code.js";
import { importCodexSession } from "../../src/core/interop/codex.js";
import { importJpConversation } from "../../src/core/interop/jp.js";
import { importPiSession } from "../../src/core/interop/pi.js";
import {
  extractRangeFacts,
  type RangeFacts,
  renderRangeFacts,
  toolCallFiles,
} from "../../src/compaction/core/summary/range-facts.js";
import { groupTurns } from "../../src/core/conversation/turns.js";
import { createEventBuilder } from "../helpers/builders.js";
import { COMMITTED_JP_WORKSPACE, jpConversationDirectories } from "../helpers/jp-fixtures.js";

const CWD = "/home/user/project";
const agentFixture = (agent: string, name = "session.jsonl") =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/agents/${agent}/${name}`, import.meta.url)), "utf8");

function events(
  result:
    | { ok: true; value: { conversation: { events: readonly ConversationEvent[] } } }
    | { ok: false; message: string },
) {
  if (!result.ok) throw new Error(result.message);
  return result.value.conversation.events;
}

function jpEvents(name: string): readonly ConversationEvent[] {
  const directory = jpConversationDirectories(COMMITTED_JP_WORKSPACE).find((entry) => entry.name === name);
  if (directory === undefined) throw new Error(`no jp fixture ${name}`);
  const read = (file: string) => {
    const path = join(directory.path, file);
    return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
  };
  const base = read("base_config.json");
  const result = importJpConversation({
    directoryName: directory.name,
    archived: directory.archived,
    metadata: read("metadata.json"),
    ...(base === undefined ? {} : { baseConfig: base }),
    events: read("events.json"),
  });
  if (!result.ok) throw new Error(result.message);
  return result.value.events;
}

describe("the facts of the real agents' sessions", () => {
  it("Claude Code: Read by absolute path, relative to the working directory; a `cat` in Bash; an attached file is not a tool's read", () => {
    const facts = extractRangeFacts(
      groupTurns(events(importClaudeCodeSession(agentFixture("claude-code"), "s"))),
      {
        cwd: CWD,
      },
    );
    expect(facts).toEqual({
      filesRead: ["todo.md", "CHANGELOG.md"],
      filesModified: [],
      bindingSentences: [],
    });
    // Without the working directory the absolute path stays as written.
    const absolute = extractRangeFacts(
      groupTurns(events(importClaudeCodeSession(agentFixture("claude-code"), "s"))),
    );
    expect(absolute.filesRead).toEqual([`${CWD}/todo.md`, "CHANGELOG.md"]);
  });

  it("pi: read calls and a `cat` in bash; `ls` reads nothing; the user's sentence with `should`", () => {
    const facts = extractRangeFacts(groupTurns(events(importPiSession(agentFixture("pi"), "s"))), {
      cwd: CWD,
    });
    expect(facts.filesRead).toEqual(["notes.txt", "CHANGELOG.md", "todo.md"]);
    expect(facts.filesModified).toEqual([]);
    expect(facts.bindingSentences).toEqual([
      {
        turn: 1,
        text: "And please read todo.md in this project directory and tell me, in one short sentence, what it says we should work on next, since I plan the afternoon around it.",
      },
    ]);
  });

  it("Codex: `exec_command` with `cmd`, across Codex's own compaction", () => {
    const facts = extractRangeFacts(groupTurns(events(importCodexSession(agentFixture("codex"), "s"))), {
      cwd: CWD,
    });
    // `cat CHANGELOG.md` failed (no such file): the call still names it; the facts say what was touched.
    expect(facts).toEqual({
      filesRead: ["notes.txt", "CHANGELOG.md"],
      filesModified: [],
      bindingSentences: [],
    });
  });

  it("Claude Code, a session that changes files: Read then Edit, Write, `sed -i` in Bash; the binding sentence", () => {
    const facts = extractRangeFacts(
      groupTurns(events(importClaudeCodeSession(agentFixture("claude-code", "edits.jsonl"), "s"))),
      { cwd: CWD },
    );
    expect(facts).toEqual({
      filesRead: [],
      filesModified: ["src/app.ts", "README.md"],
      bindingSentences: [{ turn: 0, text: "Never touch the migrations folder." }],
    });
  });

  it("pi, a session that changes files: read then edit, write, `sed -i` in bash; the binding sentence", () => {
    const facts = extractRangeFacts(
      groupTurns(events(importPiSession(agentFixture("pi", "edits.jsonl"), "s"))),
      {
        cwd: CWD,
      },
    );
    expect(facts).toEqual({
      filesRead: [],
      filesModified: ["src/app.ts", "README.md"],
      bindingSentences: [{ turn: 0, text: "Never touch the migrations folder." }],
    });
  });

  it("jp: fs_read_file and fs_modify_file; a file read, then modified, is listed as modified", () => {
    const facts = extractRangeFacts(groupTurns(jpEvents("17758406187-missing-date-in-version-string")));
    expect(facts.filesModified).toEqual(["crates/jp_cli/build.rs", "crates/jp_cli/src/lib.rs"]);
    expect(facts.filesRead).toEqual(["crates/jp_cli/src/main.rs"]);
  });

  it("jp: fs_grep_files searched and is no read; the user's constraint with its turn", () => {
    const facts = extractRangeFacts(groupTurns(jpEvents("17727496665-rfd-index-mobile-responsiveness")));
    expect(facts.filesModified).toEqual(["docs/rfd/index.md"]);
    expect(facts.filesRead).toEqual(["docs/.vitepress/theme/custom.css", "docs/.vitepress/config.mts"]);
    expect(facts.bindingSentences.map((sentence) => sentence.turn)).toEqual([2]);
  });
});

describe("the tool calls of each agent, in the shapes cxc stores them", () => {
  const cases: [string, Record<string, unknown>, { read: string[]; modified: string[] }][] = [
    // Claude Code
    ["Read", { file_path: "/p/src/a.ts" }, { read: ["/p/src/a.ts"], modified: [] }],
    ["Write", { file_path: "/p/src/b.ts", content: "x" }, { read: [], modified: ["/p/src/b.ts"] }],
    [
      "Edit",
      { file_path: "src/c.ts", old_string: "a", new_string: "b" },
      { read: [], modified: ["src/c.ts"] },
    ],
    [
      "MultiEdit",
      { file_path: "src/d.ts", edits: [{ old_string: "a", new_string: "b" }] },
      { read: [], modified: ["src/d.ts"] },
    ],
    [
      "NotebookEdit",
      { notebook_path: "nb/e.ipynb", new_source: "x" },
      { read: [], modified: ["nb/e.ipynb"] },
    ],
    ["Glob", { pattern: "**/*.ts", path: "src" }, { read: [], modified: [] }],
    ["Grep", { pattern: "foo", path: "src/a.ts" }, { read: [], modified: [] }],
    ["Bash", { command: "cat notes.txt", description: "show" }, { read: ["notes.txt"], modified: [] }],
    ["TodoWrite", { todos: [{ content: "write the parser" }] }, { read: [], modified: [] }],
    // pi
    ["read", { path: "notes.txt", offset: 1 }, { read: ["notes.txt"], modified: [] }],
    ["edit", { path: "src/f.ts", oldText: "a", newText: "b" }, { read: [], modified: ["src/f.ts"] }],
    ["write", { path: "src/g.ts", content: "x" }, { read: [], modified: ["src/g.ts"] }],
    ["bash", { command: "sed -i 's/a/b/' src/h.ts" }, { read: [], modified: ["src/h.ts"] }],
    ["find", { pattern: "*.md", path: "docs" }, { read: [], modified: [] }],
    // Codex
    ["exec_command", { cmd: "head -n 5 README.md" }, { read: ["README.md"], modified: [] }],
    ["shell", { command: ["bash", "-lc", "echo x > out.md"] }, { read: [], modified: ["out.md"] }],
    [
      "apply_patch",
      { input: "*** Begin Patch\n*** Update File: src/i.rs\n@@\n-a\n+b\n*** End Patch" },
      { read: [], modified: ["src/i.rs"] },
    ],
    ["view_image", { path: "shots/j.png" }, { read: ["shots/j.png"], modified: [] }],
    // jp
    ["fs_read_file", { path: "crates/k.rs" }, { read: ["crates/k.rs"], modified: [] }],
    ["fs_create_file", { path: "docs/l.md", content: "x" }, { read: [], modified: ["docs/l.md"] }],
    ["fs_delete_file", { path: "docs/m.md" }, { read: [], modified: ["docs/m.md"] }],
    [
      "fs_modify_file",
      { path: "crates/n.rs", string_to_replace: "a", new_string: "b" },
      { read: [], modified: ["crates/n.rs"] },
    ],
    ["fs_list_files", { prefixes: ["crates"] }, { read: [], modified: [] }],
    ["fs_grep_files", { pattern: "x", paths: ["crates/o.rs"] }, { read: [], modified: [] }],
    ["github_read_file", { path: "src/p.ts", repository: "shikijs/shiki" }, { read: [], modified: [] }],
    ["cargo_check", { package: "jp_cli" }, { read: [], modified: [] }],
    // cxc's local command tools, by their names' words
    ["read_file", { path: "q.txt" }, { read: ["q.txt"], modified: [] }],
    ["edit_file", { path: "r.txt" }, { read: [], modified: ["r.txt"] }],
  ];
  it.each(cases)("%s %j", (name, argumentsObject, expected) => {
    expect(toolCallFiles(name, argumentsObject)).toEqual(expected);
  });
});

describe("extractRangeFacts", () => {
  it("normalises paths as the summary check does, lists each once in first-seen order, and drops implausible ones", () => {
    const b = createEventBuilder();
    const history = [
      ...b.turn("one", {
        tools: [
          { name: "Read", arguments: { file_path: "./src/a.ts:12:3" } },
          { name: "Read", arguments: { file_path: `${CWD}/src/b.ts` } },
          { name: "Read", arguments: { file_path: "src/a.ts" } },
          { name: "Read", arguments: { file_path: "/dev/null" } },
          { name: "Edit", arguments: { file_path: `${CWD}/src/b.ts` } },
          { name: "Write", arguments: { file_path: CWD } },
        ],
      }),
    ];
    expect(extractRangeFacts(groupTurns(history), { cwd: `${CWD}/` })).toEqual({
      filesRead: ["src/a.ts"],
      filesModified: ["src/b.ts"],
      bindingSentences: [],
    });
  });

  it("keeps the user's binding sentences verbatim, once, with the turn that said them first", () => {
    const b = createEventBuilder();
    const steer = { ...b.request("[cxc advisor] You must call compact_now."), author: ADVISOR_AUTHOR };
    const attached = { ...b.request("You must not read this file."), author: "Claude Code (attached file)" };
    const piOwn = { ...b.request("Ran `ls`\nYou must see this."), metadata: { pi_source: "bashExecution" } };
    const history = [
      ...b.turn("Never touch the migrations folder. What is in src?"),
      steer,
      attached,
      piOwn,
      ...b.turn("Fix the parser. never touch the migrations folder."),
      ...b.turn("Tests must pass before you commit. Why did it fail?"),
    ];
    expect(extractRangeFacts(groupTurns(history)).bindingSentences).toEqual([
      { turn: 0, text: "Never touch the migrations folder." },
      { turn: 2, text: "Tests must pass before you commit." },
    ]);
  });

  it("reads only the selected cycles of a turn (selectRange)", () => {
    const b = createEventBuilder();
    const history = [
      ...b.turn("work", {
        tools: [
          { name: "Read", arguments: { file_path: "first.ts" } },
          { name: "Edit", arguments: { file_path: "second.ts" } },
          { name: "Edit", arguments: { file_path: "third.ts" } },
        ],
      }),
    ];
    const range: CycleRange = { from: 0, to: 0, toCycle: 1 };
    const facts = extractRangeFacts(selectRange(groupTurns(history), range));
    expect(facts.filesRead).toEqual(["first.ts"]);
    expect(facts.filesModified).toEqual(["second.ts"]);
  });
});

describe("renderRangeFacts", () => {
  const facts: RangeFacts = {
    filesRead: ["docs/the-oldest-notes-of-all.md", "docs/the-older-notes-of-all.md", "src/recent.ts"],
    filesModified: ["src/a.ts", "src/b.ts"],
    bindingSentences: [
      { turn: 0, text: "Never touch the migrations folder." },
      { turn: 4, text: "Always run the tests   before committing." },
    ],
  };

  it("lays every fact out when the budget allows", () => {
    const rendered = renderRangeFacts(facts, { maxCharacters: 1000, heading: "Kept by cxc:" });
    expect(rendered.text).toBe(
      [
        "Kept by cxc:",
        "The user's instructions, verbatim:",
        '- "Never touch the migrations folder." (turn 1)',
        '- "Always run the tests before committing." (turn 5)',
        "Files modified: src/a.ts, src/b.ts",
        "Files read: docs/the-oldest-notes-of-all.md, docs/the-older-notes-of-all.md, src/recent.ts",
      ].join("\n"),
    );
    expect(rendered.omitted).toEqual({ filesRead: 0, filesModified: 0, bindingSentences: 0 });
  });

  it("leaves out files read first (oldest first), then files modified, then the newest sentences, and says how many", () => {
    const full = renderRangeFacts(facts, { maxCharacters: 1000, heading: "Kept:" }).text;
    const smaller = renderRangeFacts(facts, { maxCharacters: full.length - 20, heading: "Kept:" });
    expect(smaller.text.length).toBeLessThanOrEqual(full.length - 20);
    expect(smaller.text).toContain("Files read: src/recent.ts");
    expect(smaller.text).toContain("(left out for space: 2 files read)");
    const tight = renderRangeFacts(facts, { maxCharacters: 170, heading: "Kept:" });
    expect(tight.text.length).toBeLessThanOrEqual(170);
    expect(tight.text).toContain("Never touch the migrations folder.");
    expect(tight.text).not.toContain("Always run");
    expect(tight.omitted).toEqual({ filesRead: 3, filesModified: 2, bindingSentences: 1 });
    expect(tight.text).toContain("(left out for space: 1 instruction, 2 files modified, 3 files read)");
  });

  it("is empty without facts, and when not even one fact fits", () => {
    expect(
      renderRangeFacts({ filesRead: [], filesModified: [], bindingSentences: [] }, { maxCharacters: 100 })
        .text,
    ).toBe("");
    const none = renderRangeFacts(facts, { maxCharacters: 100 });
    expect(none.text).toBe("");
    expect(none.omitted).toEqual({ filesRead: 3, filesModified: 2, bindingSentences: 2 });
  });
});
