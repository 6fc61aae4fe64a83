/**
 * The README's first session: importing one conversation makes it active (as `new` does) and says
 * so, so the next `compact --dry-run` acts on it; importing several makes none active and names
 * the one to `use`. An error of a command that acted on a conversation whose id was not typed
 * names that conversation.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempHome, PROJECT_ROOT, type TempHome } from "../helpers/cli.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home.cleanup());

const SAMPLE = join(PROJECT_ROOT, "fixtures", "sample", "coding-session.jsonl");
const JP_WORKSPACE = join(PROJECT_ROOT, "fixtures", "jp-workspace");
const CLAUDE_SESSION = join(PROJECT_ROOT, "fixtures", "agents", "claude-code", "session.jsonl");

async function activeId(): Promise<string | undefined> {
  const listed = await home.run(["--format", "json", "conversation", "ls"]);
  return (JSON.parse(listed.stdout) as { id: string; active: boolean }[]).find((entry) => entry.active)?.id;
}

describe("import and the active conversation", () => {
  it("makes the one conversation imported active and says so; compact --dry-run then acts on it", async () => {
    home = makeTempHome();
    await seedConversation(home, { id: "01before00000", title: "Before", active: true });
    const imported = await home.run(["conversation", "import", SAMPLE]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(
      /\nImported 1 conversation; 01jsample0000 is now the active conversation\.\n$/,
    );
    expect(await activeId()).toBe("01jsample0000");
    const preview = await home.run(["conversation", "compact", "--dry-run"]);
    expect(preview.exitCode, preview.stderr).toBe(0);
    expect(preview.stdout).toContain("Would have compacted turns 2..19 (18 total, reasoning + tools).");
  });

  it("does the same for one agent session, and says so in JSON", async () => {
    home = makeTempHome();
    const imported = await home.run(["--format", "json", "conversation", "import", CLAUDE_SESSION]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const [outcome] = JSON.parse(imported.stdout) as { id: string; active: boolean }[];
    expect(outcome!.active).toBe(true);
    expect(await activeId()).toBe(outcome!.id);
  });

  it("names the kinds of records it skipped", async () => {
    home = makeTempHome();
    const imported = await home.run(["conversation", "import", CLAUDE_SESSION]);
    expect(imported.stdout).toContain(
      "left out: 37 skipped records (queue-operation 8, atis-latch 6, last-prompt 6, cost-state 4, mode 4, tools-used 4, command echo 3, attachment session_context 2), no records of unknown types",
    );
  });

  it("makes none of several active and names the one to use", async () => {
    home = makeTempHome();
    await seedConversation(home, { id: "01before00000", title: "Before", active: true });
    const imported = await home.run(["conversation", "import", JP_WORKSPACE]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/\nImported \d+ conversations \(1 archived\)\.\n$/);
    const hint =
      /\nhint: none of them was made active: `cxc conversation use (\w+)` takes the one updated last, `cxc conversation use \?` picks one from a list\n$/.exec(
        imported.stderr,
      );
    expect(hint, imported.stderr).not.toBeNull();
    expect(await activeId()).toBe("01before00000");
    // The one named is the live import updated last.
    const listed = JSON.parse((await home.run(["--format", "json", "conversation", "ls"])).stdout) as {
      id: string;
      source: string;
      updated_at: string;
    }[];
    const latest = listed
      .filter((entry) => entry.source === "jp")
      .sort((left, right) => Date.parse(right.updated_at) - Date.parse(left.updated_at))[0]!;
    expect(hint![1]).toBe(latest.id);
    const json = JSON.parse(
      (await home.run(["--format", "json", "conversation", "import", "--skip-existing", JP_WORKSPACE]))
        .stdout,
    ) as { active: boolean }[];
    expect(json.every((entry) => !entry.active)).toBe(true);
  });
});

describe("errors name the conversation they acted on", () => {
  it("when its id was not typed: the active one, a keyword", async () => {
    home = makeTempHome();
    await home.run(["conversation", "import", SAMPLE]);
    for (const args of [[], ["active"], ["recent"]]) {
      const result = await home.run(["conversation", "print", ...args, "--turn", "99"]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toBe(
        "cxc: error: conversation 01jsample0000: turn 99 out of range (conversation has 20 turns)\nhint: turns are numbered 1..20\n",
      );
    }
    const compact = await home.run(["--format", "json", "conversation", "compact", "--turn", "99"]);
    expect(JSON.parse(compact.stdout).error.message).toBe(
      "conversation 01jsample0000: turn 99 out of range (conversation has 20 turns)",
    );
    // Typed, it is not repeated.
    const typed = await home.run(["conversation", "print", "01jsample", "--turn", "99"]);
    expect(typed.stderr).toMatch(/^cxc: error: turn 99 out of range/);
  });
});

describe("import errors name the input's own field", () => {
  it("says which field of which message is missing, and imports nothing", async () => {
    home = makeTempHome();
    const path = join(home.home, "..", "messages.json");
    const cases: [unknown, string, string[]][] = [
      [
        [{ role: "assistant", content: [{ type: "tool_use", name: "read", input: {} }] }],
        'message 1, block 1: tool_use has no "id"',
        [],
      ],
      [
        [
          { role: "user", content: "hi" },
          { role: "tool", content: "x" },
        ],
        'message 2: tool message has no "tool_call_id"',
        [],
      ],
      [
        [{ role: "user", content: [{ type: "tool_result", content: "x" }] }],
        'message 1, block 1: tool_result has no "tool_use_id"',
        ["--from", "anthropic"],
      ],
    ];
    for (const [messages, error, flags] of cases) {
      writeFileSync(path, JSON.stringify(messages));
      const result = await home.run(["conversation", "import", path, ...flags]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe(`cxc: error: ${path}: ${error}\n`);
    }
    const listed = await home.run(["--format", "json", "conversation", "ls"]);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});

describe("a cxc export's errors name the event's own field", () => {
  it("says which field of which event is missing or wrong, in the export's terms, and imports nothing", async () => {
    home = makeTempHome();
    const path = join(home.home, "..", "export.json");
    const conversation = { id: "01jexport0000", title: "x", created_at: "2026-01-01T00:00:00.000Z" };
    const turnStart = { type: "turn_start", id: "e1", ts: "2026-01-01T00:00:00.000Z" };
    const cases: [Record<string, unknown>, string][] = [
      [
        { type: "chat_request", ts: "2026-01-01T00:00:00.000Z", content: "hi" },
        'event 1: invalid chat_request event: "id" is missing',
      ],
      [
        { type: "chat_request", id: "e2", ts: "2026-01-01T00:00:00.000Z", content: 5 },
        'event 1: invalid chat_request event: "content" must be a string, not a number',
      ],
      [
        {
          type: "tool_call_response",
          id: "e2",
          ts: "2026-01-01T00:00:00.000Z",
          call_id: "c",
          content: "x",
          is_error: "no",
        },
        'event 1: invalid tool_call_response event: "is_error" must be a boolean, not a string',
      ],
    ];
    for (const [event, error] of cases) {
      writeFileSync(
        path,
        JSON.stringify({ cxc: "conversation-export", version: 1, conversation, events: [turnStart, event] }),
      );
      const result = await home.run(["conversation", "import", path]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe(`cxc: error: ${path}: ${error}\n`);
      expect(result.stderr).not.toMatch(/Invalid input|expected \w+, received/);
    }
    // The conversation's own fields, named as the export names them.
    const conversations: [Record<string, unknown>, string][] = [
      [{ title: "x", created_at: conversation.created_at }, 'conversation: "id" is missing'],
      [{ ...conversation, id: 7 }, 'conversation: "id" must be a conversation id, not a number'],
      [
        { ...conversation, id: "Not An Id" },
        'conversation: "id" is not a conversation id (3 to 64 lowercase letters, digits, _ and -): "Not An Id"',
      ],
      [{ id: conversation.id }, 'conversation: "created_at" is missing'],
      [
        { ...conversation, created_at: 5 },
        'conversation: "created_at" must be a time (RFC 3339), not a number',
      ],
    ];
    for (const [meta, error] of conversations) {
      writeFileSync(
        path,
        JSON.stringify({ cxc: "conversation-export", version: 1, conversation: meta, events: [turnStart] }),
      );
      const result = await home.run(["conversation", "import", path]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe(`cxc: error: ${path}: ${error}\n`);
    }
    const listed = await home.run(["--format", "json", "conversation", "ls"]);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});
