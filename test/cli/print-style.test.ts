/**
 * `cxc conversation print --style`: jp's presets (full, brief, chat, user) and cxc's default,
 * which cuts long tool output (and long arguments) with a note saying how to see all of it. In a
 * pipe the text is plain and no pager runs, even with PAGER set and NO_COLOR unset; JSON is never
 * cut. The terminal side (colours, the pager) is in print-pager-pty.test.ts.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEventBuilder } from "../helpers/builders.js";
import { makeTempHome, runCxc, type TempHome } from "../helpers/cli.js";
import { seedConversation } from "./conversation-helpers.js";

let home: TempHome;
afterEach(() => home?.cleanup());

const LONG_OUTPUT = Array.from({ length: 40 }, (_, index) => `output line ${index + 1}`).join("\n");
const LONG_ARGUMENT = "x".repeat(500);

async function seedLong(): Promise<void> {
  const build = createEventBuilder();
  const events = [
    ...build.turn("read the log", {
      reasoning: "I should read it",
      tools: [
        { name: "read_file", arguments: { path: "app.log" }, result: LONG_OUTPUT },
        { name: "write_file", arguments: { path: "out.txt", content: LONG_ARGUMENT }, result: "written" },
      ],
      answer: "The log has forty lines.",
    }),
  ];
  await seedConversation(home, { id: "style0000001", title: "Long", events, active: true });
}

describe("print styles", () => {
  it("cuts long tool output and arguments by default, and says how to see all of it", async () => {
    home = makeTempHome();
    await seedLong();
    const result = await home.run(["conversation", "print"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("[tool result] read_file ok\noutput line 1\n");
    expect(result.stdout).toContain(
      "output line 10\n… 30 more lines of output hidden; --style full shows all of it\n",
    );
    expect(result.stdout).not.toContain("output line 11");
    expect(result.stdout).toContain(
      `[tool call] write_file {"path":"out.txt","content":"${"x".repeat(171)}… (331 more characters; --style full shows them)\n`,
    );
    // Everything else is there.
    expect(result.stdout).toContain("[reasoning]\nI should read it\n");
    expect(result.stdout).toContain("[assistant]\nThe log has forty lines.\n");
  });

  it("--style full shows every line and every argument", async () => {
    home = makeTempHome();
    await seedLong();
    const result = await home.run(["conversation", "print", "--style", "full"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${LONG_OUTPUT}\n`);
    expect(result.stdout).toContain(LONG_ARGUMENT);
    expect(result.stdout).not.toContain("hidden");
  });

  it.each([
    [
      "brief",
      ["[user]", "[assistant]", "[tool call] read_file\n", "[tool call] write_file\n"],
      ["[reasoning]", "[tool result]", "app.log", "output line 1"],
    ],
    ["chat", ["[user]", "[assistant]"], ["[reasoning]", "[tool call]", "[tool result]"]],
    ["user", ["[user]\nread the log"], ["[assistant]", "[reasoning]", "[tool call]", "[tool result]"]],
  ])("--style %s shows %j and hides %j", async (style, shown, hidden) => {
    home = makeTempHome();
    await seedLong();
    const result = await home.run(["conversation", "print", "-s", style]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^── turn 1 · /);
    for (const text of shown) expect(result.stdout).toContain(text);
    for (const text of hidden) expect(result.stdout).not.toContain(text);
  });

  it("rejects an unknown style", async () => {
    home = makeTempHome();
    await seedLong();
    const result = await home.run(["conversation", "print", "--style", "everything"]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /^cxc: error: option '-s, --style <STYLE>' argument 'everything' is invalid/,
    );
  });

  it("never cuts JSON", async () => {
    home = makeTempHome();
    await seedLong();
    const result = await home.run(["--format", "json", "conversation", "print"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = JSON.parse(result.stdout).turns[0].events;
    expect(events.find((event: { content?: string }) => event.content === LONG_OUTPUT)).toBeDefined();
  });

  it("is plain in a pipe: no colours and no pager, even with PAGER set and NO_COLOR unset", async () => {
    home = makeTempHome();
    await seedLong();
    const marker = join(dirname(home.home), "pager-ran");
    const pager = join(dirname(home.home), "pager.sh");
    writeFileSync(pager, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
    chmodSync(pager, 0o755);
    const { NO_COLOR: _unset, ...env } = home.env;
    const result = await runCxc(["conversation", "print", "--style", "full"], {
      env: { ...env, PAGER: pager },
      cwd: dirname(home.home),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(LONG_OUTPUT);
    expect(result.stdout).not.toContain("\u001b[");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("print's cycle numbers", () => {
  it("marks each cycle of a turn of several as `keep` and `--from` name it, and a turn of one not at all", async () => {
    const { homeWithSample } = await import("./compact-helpers.js");
    home = await homeWithSample();
    const turn = (await home.run(["conversation", "print", "--turn", "2"])).stdout;
    const marks = turn.split("\n").filter((line) => line.startsWith("· cycle"));
    expect(marks.slice(0, 3)).toEqual(["· cycle 2.1", "· cycle 2.2", "· cycle 2.3"]);
    // Each mark opens its cycle: the first one before the reasoning and the first call.
    expect(turn).toMatch(/\n· cycle 2\.1\n\[reasoning\]\n/);
    expect(turn).toMatch(/\n· cycle 2\.2\n\[tool call\] read_file \{"path":"src\/filter\.ts"\}\n/);
    // The number is the one `keep` takes.
    const kept = await home.run(["conversation", "keep", "2.2"]);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stdout).toContain("turn 2, cycle 2");
    // Messages-only styles leave them out.
    expect(
      (await home.run(["conversation", "print", "--turn", "2", "--style", "chat"])).stdout,
    ).not.toContain("· cycle");
    expect((await home.run(["conversation", "print", "--turn", "2", "--style", "brief"])).stdout).toContain(
      "· cycle 2.2",
    );
  });

  it("leaves them out of a turn with one cycle", async () => {
    home = makeTempHome();
    const build = createEventBuilder();
    await seedConversation(home, { id: "cycles000001", events: build.turns(2), active: true });
    expect((await home.run(["conversation", "print"])).stdout).not.toContain("· cycle");
  });
});
