/**
 * `cxc conversation import` / `export` end to end: the real jp workspace committed in
 * fixtures/jp-workspace imports, exports byte-for-byte and re-imports identically; OpenAI,
 * Anthropic and cxc documents round-trip; bad input fails with one error line and leaves the store
 * empty. (Every conversation of the full workspace in ../shared goes through the same store
 * functions, in process, in import-export-roundtrip.test.ts.)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempHome, type TempHome } from "../helpers/cli.js";
import { COMMITTED_JP_WORKSPACE, jpConversationDirectories } from "../helpers/jp-fixtures.js";

const WORKSPACE = COMMITTED_JP_WORKSPACE.root;
const CONVERSATIONS = COMMITTED_JP_WORKSPACE.conversations;
const DIRECTORIES = jpConversationDirectories(COMMITTED_JP_WORKSPACE);
const ARCHIVED = DIRECTORIES.filter((directory) => directory.archived).length;

const homes: TempHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.cleanup();
});

function freshHome(): TempHome {
  const home = makeTempHome();
  homes.push(home);
  mkdirSync(home.cwd, { recursive: true });
  return home;
}

interface Listed {
  source: string;
  id: string;
  title: string | null;
  turns: number;
  archived: boolean;
  skipped: boolean;
}

async function importJson(home: TempHome, args: string[], input?: string): Promise<Listed[]> {
  const result = await home.run(["--format", "json", "conversation", "import", ...args], {
    ...(input === undefined ? {} : { input }),
    cwd: home.cwd,
  });
  // jp's tools do not come along; import says so once (its own test is in jp-fidelity.test.ts).
  expect(result.stderr.replace(/^cxc: warning: jp's tools of .* do not come along: .*\n/m, "")).toBe("");
  expect(result.exitCode).toBe(0);
  return JSON.parse(result.stdout) as Listed[];
}

/** The events of a stored conversation, as written in its log (header left out). */
function storedEvents(home: TempHome, id: string): unknown[] {
  for (const place of ["conversations", "archive"]) {
    const path = join(home.home, place, id, "events.jsonl");
    if (existsSync(path)) {
      return readFileSync(path, "utf8")
        .split("\n")
        .slice(1)
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line));
    }
  }
  throw new Error(`no conversation ${id}`);
}

function storedIds(home: TempHome): string[] {
  return ["conversations", "archive"].flatMap((place) => {
    const directory = join(home.home, place);
    return existsSync(directory) ? readdirSync(directory) : [];
  });
}

describe("jp workspace import and export", () => {
  it("imports every conversation, prints a line each and a summary, and refuses a second import", async () => {
    const home = freshHome();
    const result = await home.run(["conversation", "import", WORKSPACE], { cwd: home.cwd });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(ARCHIVED).toBe(1);
    expect(lines).toHaveLength(DIRECTORIES.length + 1);
    expect(lines[0]).toMatch(/^Imported jp-c\d+ as [0-9a-z]{13} \(.+, \d+ turns?\)$/);
    expect(lines.at(-1)).toBe(`Imported ${DIRECTORIES.length} conversations (1 archived).`);
    expect(readdirSync(join(home.home, "archive"))).toHaveLength(1);

    const again = await home.run(["conversation", "import", WORKSPACE], { cwd: home.cwd });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(
      /^cxc: error: jp-c\d+ was already imported as conversation [0-9a-z]{13}\nhint: /,
    );
    const skipped = await importJson(home, [WORKSPACE, "--skip-existing"]);
    expect(skipped.every((entry) => entry.skipped)).toBe(true);
    expect(storedIds(home)).toHaveLength(DIRECTORIES.length);
  });

  it("exports to jp byte-for-byte, and re-importing gives identical events", async () => {
    // Spawning cxc per conversation is slow; three representative ones go through the binary here
    // (legacy flat config, legacy delta config, base_config.json + archived). All of them go
    // through the same store functions in import-export-roundtrip.test.ts.
    const first = freshHome();
    const imported = await importJson(first, [join(WORKSPACE, ".jp", "conversations")]);
    expect(imported).toHaveLength(DIRECTORIES.length);
    const chosen = imported.filter((entry) =>
      ["jp-c17648402467", "jp-c17662304290", "jp-c17659773217"].includes(entry.source),
    );
    expect(chosen).toHaveLength(3);
    const output = join(first.cwd, "exported");
    for (const entry of chosen) {
      const result = await first.run(["c", "export", entry.id, "--to", "jp", "--output", output], {
        cwd: first.cwd,
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`^Exported ${entry.id} to .*exported/${entry.source.slice(4)}-`),
      );
    }
    for (const entry of chosen) {
      const name = readdirSync(output).find((directory) => directory.startsWith(entry.source.slice(4)))!;
      const original = join(CONVERSATIONS, entry.archived ? ".archive" : "", name);
      expect(readdirSync(join(output, name)).sort()).toEqual(readdirSync(original).sort());
      for (const file of readdirSync(original)) {
        expect(readFileSync(join(output, name, file), "utf8"), `${name}/${file}`).toBe(
          readFileSync(join(original, file), "utf8"),
        );
      }
    }
    const second = freshHome();
    const reimported = await importJson(second, [output]);
    expect(reimported.map((entry) => entry.id).sort()).toEqual(chosen.map((entry) => entry.id).sort());
    for (const entry of chosen) expect(storedEvents(second, entry.id)).toEqual(storedEvents(first, entry.id));
    const clash = await first.run(["c", "export", chosen[0]!.id, "--to", "jp", "--output", output], {
      cwd: first.cwd,
    });
    expect(clash.exitCode).toBe(2);
    expect(clash.stderr).toMatch(/^cxc: error: .* already exists\nhint: /);
  });

  it("imports a single jp conversation directory, and its events.json path", async () => {
    const home = freshHome();
    const name = readdirSync(join(CONVERSATIONS, ".archive"))[0]!;
    const [entry] = await importJson(home, [join(CONVERSATIONS, ".archive", name)]);
    expect(entry).toMatchObject({ source: `jp-c${name.split("-")[0]}`, archived: true });
    const other = readdirSync(CONVERSATIONS).find((directory) => !directory.startsWith("."))!;
    const [second] = await importJson(home, [join(CONVERSATIONS, other, "events.json")]);
    expect(second?.archived).toBe(false);
  });
});

const openAiBody = {
  model: "gpt-test",
  messages: [
    { role: "system", content: "Be terse." },
    { role: "user", content: "List files." },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "a.txt\nb.txt" },
    { role: "assistant", content: "Two files." },
  ],
};

const anthropicBody = {
  system: "Be terse.",
  messages: [
    { role: "user", content: "List files." },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Use ls.", signature: "c2lnbmF0dXJl" },
        { type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" }] },
    { role: "assistant", content: [{ type: "text", text: "One file." }] },
  ],
};

describe("message arrays and cxc documents", () => {
  it("round-trips an OpenAI request body through a file", async () => {
    const home = freshHome();
    const path = join(home.cwd, "request.json");
    writeFileSync(path, JSON.stringify(openAiBody));
    const [entry] = await importJson(home, [path, "--title", "Files"]);
    expect(entry).toMatchObject({ title: "Files", turns: 1, source: path });
    // It says where it came from: an OpenAI array, not cxc.
    const listed = await home.run(["c", "ls"], { cwd: home.cwd });
    expect(listed.stdout).toMatch(/ {2}OpenAI {2}Files\n/);
    const shown = await home.run(["c", "show", entry!.id], { cwd: home.cwd });
    expect(shown.stdout).toContain(`from:        OpenAI, ${path}\n`);
    const exported = await home.run(["c", "export", entry!.id, "--to", "openai", "--model", "gpt-test"], {
      cwd: home.cwd,
    });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual(openAiBody);
  });

  it("round-trips an Anthropic body from standard input, detected without --from", async () => {
    const home = freshHome();
    const [entry] = await importJson(home, ["-"], JSON.stringify(anthropicBody));
    expect(entry?.source).toBe("<stdin>");
    const listed = JSON.parse((await home.run(["--format", "json", "c", "ls"], { cwd: home.cwd })).stdout);
    expect(listed[0]).toMatchObject({ source: "anthropic" });
    const output = join(home.cwd, "body.json");
    const exported = await home.run(["c", "export", entry!.id, "--to", "anthropic", "--output", output], {
      cwd: home.cwd,
    });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(JSON.parse(readFileSync(output, "utf8"))).toEqual(anthropicBody);
  });

  it("a cxc export imports into another store with the same id, title and events", async () => {
    const first = freshHome();
    const [entry] = await importJson(
      first,
      ["--from", "anthropic", "-", "--title", "Moved"],
      JSON.stringify(anthropicBody),
    );
    const exported = await first.run(["c", "export", entry!.id], { cwd: first.cwd });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const second = freshHome();
    const [moved] = await importJson(second, ["-"], exported.stdout);
    expect(moved).toMatchObject({ id: entry!.id, title: "Moved" });
    expect(storedEvents(second, entry!.id)).toEqual(storedEvents(first, entry!.id));
    const log = join(first.home, "conversations", entry!.id, "events.jsonl");
    const [fromLog] = await importJson(freshHome(), [log]);
    expect(fromLog?.id).toBe(entry!.id);
  });
});

describe("bad input fails cleanly and creates nothing", () => {
  async function expectFailure(home: TempHome, args: string[], exitCode: number, pattern: RegExp) {
    const result = await home.run(["conversation", "import", ...args], { cwd: home.cwd });
    expect(result.exitCode).toBe(exitCode);
    const lines = result.stderr.trim().split("\n");
    expect(lines[0]).toMatch(pattern);
    expect(lines.slice(1).every((line) => line.startsWith("hint: "))).toBe(true);
    expect(result.stdout).toBe("");
    expect(storedIds(home)).toEqual([]);
  }

  it("a malformed JSON file: names the file, line and column", async () => {
    const home = freshHome();
    const path = join(home.cwd, "broken.json");
    writeFileSync(path, '{\n  "messages": [\n    {"role": "user" "content": "x"}\n  ]\n}\n');
    await expectFailure(home, [path], 1, /^cxc: error: .*broken\.json:3:21: not valid JSON/);
  });

  it("a jp directory with a broken events.json", async () => {
    const home = freshHome();
    const directory = join(home.cwd, "17800836875-broken");
    mkdirSync(directory);
    writeFileSync(join(directory, "metadata.json"), '{"last_activated_at": "2026-05-29 20:04:40.2"}\n');
    writeFileSync(
      join(directory, "events.json"),
      '[\n  {"timestamp": "2026-05-29 19:42:36.4", "type": "turn_start"},\n',
    );
    await expectFailure(
      home,
      [directory],
      1,
      /^cxc: error: .*17800836875-broken\/events\.json:3:1: not valid JSON/,
    );
    writeFileSync(
      join(directory, "events.json"),
      '[{"timestamp": "2026-05-29 19:42:36.4", "type": "tool_call_response", "id": "t", "content": "eA=="}]\n',
    );
    await expectFailure(
      home,
      [directory],
      1,
      /events\.json: entry 0 \(tool_call_response\): "is_error" is missing$/,
    );
  });

  it("a workspace with one broken conversation imports none of them", async () => {
    const home = freshHome();
    const conversations = join(home.cwd, "ws", ".jp", "conversations");
    for (const [name, events] of [
      ["17800836875-good", '[{"timestamp": "2026-05-29 19:42:36.4", "type": "turn_start"}]'],
      ["17800836876-bad", "[{]"],
    ] as const) {
      mkdirSync(join(conversations, name), { recursive: true });
      writeFileSync(join(conversations, name, "events.json"), events);
    }
    await expectFailure(
      home,
      [join(home.cwd, "ws")],
      1,
      /17800836876-bad\/events\.json:1:\d+: not valid JSON/,
    );
  });

  it("an unknown format is a usage error", async () => {
    const home = freshHome();
    const path = join(home.cwd, "mystery.json");
    writeFileSync(path, '{"hello": "world"}');
    await expectFailure(home, [path], 2, /^cxc: error: .*mystery\.json: cannot tell which format this is/);
  });

  it("an empty file, and a missing one", async () => {
    const home = freshHome();
    const path = join(home.cwd, "empty.json");
    writeFileSync(path, "");
    await expectFailure(home, [path], 1, /^cxc: error: .*empty\.json is empty$/);
    await expectFailure(home, [join(home.cwd, "nope.json")], 1, /nope\.json: no such file or directory$/);
  });
});
