/**
 * `cxc q` at a real terminal (tmux): the approval prompt and each of its keys, each run mode,
 * markdown rendered as it streams, the spinner, the context gauge after each turn, and Ctrl-C
 * while streaming (once: partial answer stored, exit 130; twice: exit at once).
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CXC_BIN } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { createEventBuilder } from "../helpers/builders.js";
import { type PtySession, startInTmux } from "../helpers/pty.js";
import { seedConversation } from "./conversation-helpers.js";
import { formatTokenCount } from "../../src/core/conversation/tokens.js";
import { declinedRememberedText, declinedText } from "../../src/query/approval.js";
import { makeQueryHome, type QueryHome, requestBody, wordCountTool } from "../query/e2e.js";

let provider: FakeProvider;
let home: QueryHome;
let session: PtySession | undefined;
let scratch: string;

// One provider per test: a failed test must not leave scripted replies for the next one.
beforeEach(async () => {
  provider = await startFakeProvider();
  home = makeQueryHome(provider);
  scratch = mkdtempSync(join(tmpdir(), "cxc-pty-scratch-"));
});
afterEach(async () => {
  session?.close();
  session = undefined;
  home.home.cleanup();
  rmSync(scratch, { recursive: true, force: true });
  await provider.close();
  expect(provider.remaining()).toBe(0);
});

/** Runs `cxc q ARGS` in tmux. */
function qInTerminal(args: readonly string[], env: Record<string, string> = {}): PtySession {
  session = startInTmux([process.execPath, CXC_BIN, "q", ...args], {
    env: { ...home.home.env, ...home.env, ...env },
    cwd: home.home.cwd.replace(/\/work$/, ""),
  });
  return session;
}

/** An $EDITOR that replaces the file with `content`. */
function editorWriting(content: string): string {
  const path = join(scratch, "editor.sh");
  writeFileSync(path, `#!/bin/sh\nprintf '%s' '${content}' > "$1"\n`);
  chmodSync(path, 0o755);
  return path;
}

function calls(...texts: string[]) {
  return {
    blocks: texts.map((text, index) => ({
      type: "tool-call" as const,
      id: `c${index + 1}-${text.replace(/\W/g, "")}`,
      name: "word_count",
      arguments: { text },
    })),
  };
}

function responses(): unknown[][] {
  return home
    .events()
    .filter((event) => event.type === "tool_call_response")
    .map((event) => [event.content, event.is_error]);
}

const PROMPT = "Run local tool word_count? [y/n/Y/N/e/?]";

/** A promise and the function that settles it (Node 20 has no `Promise.withResolvers`). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Waits until the fake provider has received a request (the summary request is on its way). */
async function requestArrived(fake: FakeProvider): Promise<void> {
  for (let waited = 0; fake.requests.length === 0; waited += 20) {
    if (waited > 20_000) throw new Error("the provider received no request");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("cxc q at a terminal: the approval prompt", () => {
  it("y runs the call and n declines it, each asked separately; each call is shown once", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(calls("a b", "c d e"), textReply("done"));
    const pty = qInTerminal(["count"]);
    await pty.waitFor(PROMPT);
    pty.send("y");
    await pty.waitFor(/\[y\/n\/Y\/N\/e\/\?\] y\n[\s\S]*\[y\/n\/Y\/N\/e\/\?\]$/);
    pty.send("n");
    expect(await pty.exitCode()).toBe(0);
    // A declined call is an error result for the model, and shown as declined.
    expect(responses()).toEqual([
      ["2\n", false],
      [declinedText("word_count"), true],
    ]);
    const screen = pty.screen();
    expect(screen).toContain(`⚙ word_count {"text":"a b"}\n${PROMPT} y\n  ↳ ok: 2`);
    expect(screen).toContain(`⚙ word_count {"text":"c d e"}\n${PROMPT} n\n  ↳ declined`);
    expect(screen.split('"text":"a b"')).toHaveLength(2);
    expect(screen).not.toContain("Tool call word_count");
  });

  it("ignores keys typed before the prompt showed", async () => {
    home.writeConfig(wordCountTool("ask"));
    const release = deferred();
    // The call arrives after a pause in which the user types ahead.
    provider.enqueue({ ...calls("a b"), holdAfterEvents: 1, release: release.promise }, textReply("done"));
    const pty = qInTerminal(["count"]);
    await pty.waitFor("waiting for anthropic/claude-sonnet-4-6");
    // Typed ahead: "n" would decline the call if it answered the prompt.
    pty.send("n");
    release.resolve();
    await pty.waitFor(PROMPT);
    pty.send("y");
    expect(await pty.exitCode()).toBe(0);
    expect(responses()).toEqual([["2\n", false]]);
  });

  it("Y approves this tool for the rest of the turn, across cycles, with one prompt", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(calls("a", "b c"), calls("d e f"), textReply("done"));
    const pty = qInTerminal(["count"]);
    await pty.waitFor(PROMPT);
    pty.send("Y");
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen().split(PROMPT)).toHaveLength(2);
    expect(responses()).toEqual([
      ["1\n", false],
      ["2\n", false],
      ["3\n", false],
    ]);
  });

  it("N declines this tool for the rest of the turn with one prompt", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(calls("a", "b c"), textReply("done"));
    const pty = qInTerminal(["count"]);
    await pty.waitFor(PROMPT);
    pty.send("N");
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen().split(PROMPT)).toHaveLength(2);
    expect(responses()).toEqual([
      [declinedRememberedText("word_count"), true],
      [declinedRememberedText("word_count"), true],
    ]);
  });

  it("? shows the help and asks again; e edits the arguments in $EDITOR and runs them", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(calls("a"), textReply("done"));
    const pty = qInTerminal(["count"], { EDITOR: editorWriting('{"text":"one two three four"}') });
    await pty.waitFor(PROMPT);
    pty.send("?");
    await pty.waitFor("edit the arguments in $EDITOR");
    pty.send("e");
    expect(await pty.exitCode()).toBe(0);
    const [content, isError] = responses()[0]!;
    expect(isError).toBe(false);
    expect(content).toContain('The user edited the arguments before running: {"text":"one two three four"}');
    expect(content).toMatch(/4\n$/);
  });

  it("asks on /dev/tty when the message comes from a pipe; --non-interactive never asks", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(calls("a b"), textReply("counted"));
    session = startInTmux(["sh", "-c", `echo 'count these' | ${process.execPath} ${CXC_BIN} q`], {
      env: { ...home.home.env, ...home.env },
      cwd: home.home.cwd.replace(/\/work$/, ""),
    });
    await session.waitFor(PROMPT);
    session.send("y");
    expect(await session.exitCode()).toBe(0);
    expect(home.events()[1]).toMatchObject({ content: "count these" });
    expect(responses()).toEqual([["2\n", false]]);
    session.close();
    provider.enqueue(calls("c"), textReply("refused"));
    const pty = qInTerminal(["--non-interactive", "again"]);
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen()).not.toContain(PROMPT);
    expect(responses()[1]).toEqual([expect.stringContaining("Tool call refused"), true]);
  });

  it("Ctrl-C at the prompt stops the turn with exit 130; the next turn answers the open call", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(calls("a"));
    const pty = qInTerminal(["count"]);
    await pty.waitFor(PROMPT);
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
    provider.enqueue(textReply("next"));
    expect((await home.q(["next"])).exitCode).toBe(0);
    expect(responses()).toEqual([["Tool call was interrupted.", true]]);
  });
});

describe("cxc q at a terminal: run modes and rendering", () => {
  it("unattended runs without asking, skip never runs, edit opens the editor first", async () => {
    home.writeConfig(`${wordCountTool("unattended")}
[conversation.tools.skipped]
command = "echo should-not-run"
run = "skip"
[conversation.tools.edited]
command = "printf '%s' {{text}}"
run = "edit"
[conversation.tools.edited.parameters]
type = "object"
[conversation.tools.edited.parameters.properties.text]
type = "string"
`);
    provider.enqueue(
      {
        blocks: [
          { type: "tool-call", id: "u1", name: "word_count", arguments: { text: "a b" } },
          { type: "tool-call", id: "s1", name: "skipped", arguments: {} },
          { type: "tool-call", id: "e1", name: "edited", arguments: { text: "original" } },
        ],
      },
      textReply("done"),
    );
    const pty = qInTerminal(["go"], { EDITOR: editorWriting('{"text":"changed"}') });
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen()).not.toContain("[y/n/Y/N/e/?]");
    const [unattended, skipped, edited] = responses();
    expect(unattended).toEqual(["2\n", false]);
    expect(skipped).toEqual(["Tool call skipped: conversation.tools.skipped.run is set to skip.", false]);
    expect(String(edited![0])).toMatch(/changed$/);
  });

  it("opens $EDITOR for the message when none is given at a terminal", async () => {
    provider.enqueue(textReply("got it"));
    const pty = qInTerminal([], { EDITOR: editorWriting("written in the editor") });
    expect(await pty.exitCode()).toBe(0);
    expect(home.events()[1]).toMatchObject({ type: "chat_request", content: "written in the editor" });
  });

  it("renders the answer as markdown at a terminal, inline styles in list items too", async () => {
    provider.enqueue(
      textReply("Some **bold** words.\n\n1. **Parse** the `input`\n- first *item*\n- second item\n"),
    );
    // Colour on (the test environment sets NO_COLOR), so the styles can be seen.
    const pty = qInTerminal(["md"], { NO_COLOR: "" });
    expect(await pty.exitCode()).toBe(0);
    const screen = pty.screen();
    expect(screen).toContain("Some bold words.\n\n1. Parse the input\n• first item\n• second item");
    expect(screen).not.toContain("**");
    const styled = pty.screen({ styles: true });
    expect(styled).toMatch(/1\. \u001b\[1m(\u001b\[[0-9;]*m)*Parse/);
    expect(styled).toMatch(/\u001b\[3m(\u001b\[[0-9;]*m)*item/);
    session?.close();
    provider.enqueue(textReply("All **at once**."));
    const buffered = qInTerminal(["--no-stream", "md again"]);
    expect(await buffered.exitCode()).toBe(0);
    expect(buffered.screen()).toContain("All at once.");
  });
});

describe("cxc q at a terminal: Ctrl-C", () => {
  it("while streaming: stores the partial answer marked interrupted, exits 130; the next turn is clean", async () => {
    const rest = Array.from({ length: 56 }, (_, index) => `word${index + 4}`).join(" ");
    // The first paragraph arrives whole (Anthropic: message_start, ping, block start, four
    // deltas); then the provider holds the stream open, as a model still writing would.
    provider.enqueue(textReply(`word0 word1 word2 word3\n\n${rest}`, { holdAfterEvents: 7 }));
    const pty = qInTerminal(["long answer please"]);
    await pty.waitFor("word3");
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
    const events = home.events();
    const partial = events.at(-1)!;
    expect(partial).toMatchObject({ type: "chat_response", interrupted: true });
    expect(String(partial.message)).toMatch(/^word0 word1 word2 word3/);
    expect(String(partial.message)).not.toContain("word4");
    provider.enqueue(textReply("continuing"));
    const next = await home.q(["go on"]);
    expect(next.exitCode).toBe(0);
    const body = requestBody(provider, 1);
    expect(body.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(body.messages[1])).toContain("word0 word1");
  });

  it("while -k has a model summarize: says so, applies nothing, starts no turn, exits 130", async () => {
    const build = createEventBuilder();
    const events = ["one", "two", "three"].flatMap((question) => build.turn(question));
    await seedConversation(home.home, { id: "ksumm0000001", events, active: true });
    provider.enqueue(textReply("A summary that never finishes", { holdAfterEvents: 3 }));
    const pty = qInTerminal(["-k=s:1..2", "next question"]);
    await pty.waitFor("summary of turns 1..2");
    await requestArrived(provider);
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
    expect(pty.screen()).toContain("cxc: interrupted while summarizing turns 1..2; nothing was applied");
    // Nothing appended: neither a compaction nor the turn (its message is stored before it is sent).
    expect(home.events("ksumm0000001")).toHaveLength(events.length);
  });

  it("a second Ctrl-C exits at once, even while a tool ignores the first", async () => {
    // The tool says when it ignores signals: a Ctrl-C sent before its trap is set would end it at
    // once (a loaded machine once did), and the turn would then store its `[cancelled]` answer.
    const trapped = join(home.home.home, "stubborn-trapped");
    home.writeConfig(`
[conversation.tools.stubborn]
command = "trap '' INT TERM; : > '${trapped}'; while true; do sleep 0.1; done"
run = "unattended"
`);
    provider.enqueue({ blocks: [{ type: "tool-call", id: "t1", name: "stubborn", arguments: {} }] });
    const pty = qInTerminal(["wait"]);
    await pty.waitFor("stubborn");
    await waitForFile(trapped);
    pty.send("C-c");
    await pty.waitFor("press Ctrl-C again");
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
    // Had cxc waited for the tool (it ends only at the SIGKILL two seconds after the first
    // Ctrl-C), the turn would have stored its `[cancelled]` response. It exited at once, so the
    // call is still open: the next turn answers it as interrupted, and the conversation goes on.
    provider.enqueue(textReply("recovered"));
    expect((await home.q(["again"])).exitCode).toBe(0);
    expect(responses()).toEqual([["Tool call was interrupted.", true]]);
  });
});

describe("cxc q at a terminal: streaming", () => {
  it("shows the first words of a paragraph while the stream is still open", async () => {
    // Anthropic: message_start, ping, block start, then one delta per word; hold after three words.
    provider.enqueue(
      textReply("The first words of one long paragraph that the model is still writing", {
        holdAfterEvents: 6,
      }),
    );
    const pty = qInTerminal(["stream"]);
    await pty.waitFor("The first words");
    // The stream is held open: nothing more came, and the turn has not ended.
    expect(pty.screen()).not.toContain("paragraph");
    pty.send("C-c");
    expect(await pty.exitCode()).toBe(130);
  });

  it("shows a spinner with the model and the elapsed time before the first token, then clears it", async () => {
    const release = deferred();
    provider.enqueue(textReply("Here it is.", { holdAfterEvents: 2, release: release.promise }));
    const pty = qInTerminal(["spin"]);
    await pty.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for anthropic\/claude-sonnet-4-6 \d+\.\ds/);
    release.resolve();
    expect(await pty.exitCode()).toBe(0);
    const screen = pty.screen();
    expect(screen).toContain("Here it is.");
    expect(screen).not.toContain("waiting for");
  });

  it("shows the spinner while a tool runs", async () => {
    // The tool waits for a file the test writes once the spinner is on screen.
    const flag = join(scratch, "go");
    home.writeConfig(`
[conversation.tools.slow]
command = "while [ ! -e ${flag} ]; do sleep 0.05; done"
run = "unattended"
`);
    provider.enqueue(
      {
        blocks: [
          { type: "text", text: "Running it." },
          { type: "tool-call", id: "s1", name: "slow", arguments: {} },
        ],
      },
      textReply("It ran."),
    );
    const pty = qInTerminal(["tool"]);
    await pty.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running slow \d+\.\ds/);
    writeFileSync(flag, "");
    expect(await pty.exitCode()).toBe(0);
    // The texts of the two cycles, the call and its result between them, a blank line before the second.
    expect(pty.screen()).toContain("Running it.\n⚙ slow {}\n  ↳ ok: (no output)\n\nIt ran.");
    expect(pty.screen()).not.toContain("running slow");
  });
});

describe("cxc q at a terminal: reasoning and tables", () => {
  it("labels the reasoning and parts it from the answer by a blank line, without colour", async () => {
    provider.enqueue({
      blocks: [
        { type: "thinking", text: "I should count\nthe words.", signature: "sig" },
        { type: "text", text: "Two words." },
      ],
    });
    const pty = qInTerminal(["--no-color", "count a b"]);
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen()).toContain("[reasoning]\nI should count\nthe words.\n\nTwo words.");
  });

  it("prints a streamed table aligned once it ends, and a closing fence split over two deltas as a fence", async () => {
    provider.enqueue({
      blocks: [
        {
          type: "text",
          text: "| Name | Size |\n|---|--:|\n| a | 1 |\n| longer | 12345 |\n\n```js\nm();\n``",
        },
        { type: "text", text: "`\nDone." },
      ],
    });
    const pty = qInTerminal(["--no-color", "table"]);
    expect(await pty.exitCode()).toBe(0);
    expect(pty.screen()).toContain(
      [
        "| Name   |  Size |",
        "|--------|------:|",
        "| a      |     1 |",
        "| longer | 12345 |",
        "",
        "  m();",
        "Done.",
      ].join("\n"),
    );
  });
});

describe("cxc q at a terminal: the context gauge", () => {
  const lastLine = (pty: PtySession) => pty.screen().split("\n").at(-1);

  it("prints the context used against the window after each turn", async () => {
    provider.enqueue(textReply("Fine.", { usage: { inputTokens: 48_000, outputTokens: 200 } }));
    const pty = qInTerminal(["hello"]);
    expect(await pty.exitCode()).toBe(0);
    expect(lastLine(pty)).toBe("cxc: context 48.2k of 200k tokens (24%, reported)");
  });

  it("counts a deferred compaction's saving in the next request's figure, and the next turn saves it", async () => {
    const build = createEventBuilder();
    const questions = ["set up the project", "fix the width bug", "now the current task: drag"];
    const events = questions.flatMap((question) =>
      build.turn(question, { answer: `a long answer about ${question} `.repeat(40) }),
    );
    await seedConversation(home.home, { id: "gauge0000001", events, active: true });
    home.writeConfig('[conversation.tools.compact]\nrun = "unattended"\n');
    provider.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "toolu_compact",
            name: "compact",
            arguments: {
              rules: [
                {
                  before_quote: "now the current task: drag",
                  summary: "We set it up and fixed it.",
                  note: "The finished work is in the files.",
                },
              ],
            },
          },
        ],
      },
      textReply("Recorded.", { usage: { inputTokens: 2_000, outputTokens: 20 } }),
    );
    const first = qInTerminal(["-u", "compact", "compact what is done"]);
    expect(await first.exitCode()).toBe(0);
    const deferred =
      /^cxc: context (\S+) of 200k tokens \(\S+, reported, adjusted for what changed since\); 1 compaction deferred to the next turn saves (\d+(\.\d)?k?)$/.exec(
        lastLine(first) ?? "",
      );
    expect(deferred, first.screen()).not.toBeNull();
    first.close();
    // The numbers are on the provider's scale (its usage against cxc's count), as stats shows it:
    // the next request is the next turn's first, with the compaction in force.
    const stats = async () =>
      JSON.parse((await home.home.run(["--format", "json", "conversation", "stats"])).stdout);
    const before = await stats();
    expect(before.context.deferred_saving).toBeGreaterThan(100);
    expect(deferred![2]).toBe(formatTokenCount(before.context.deferred_saving));
    expect(deferred![1]).toBe(formatTokenCount(before.context.tokens));
    expect(Math.abs(before.context.tokens + before.context.deferred_saving - 2020)).toBeLessThanOrEqual(2);

    provider.enqueue(textReply("Next.", { usage: { inputTokens: 900, outputTokens: 10 } }));
    const next = qInTerminal(["go on"]);
    expect(await next.exitCode()).toBe(0);
    const saves =
      /^cxc: context 910 of 200k tokens \(0\.5%, reported\); 1 compaction saves (\d+(\.\d)?k?)$/.exec(
        lastLine(next) ?? "",
      );
    expect(saves, next.screen()).not.toBeNull();
    const after = await stats();
    expect(saves![1]).toBe(formatTokenCount(after.context.saved));
    // What it saves now, in cxc's own count, is what it was going to save.
    const ownCount = (tokens: number, scale: number) => Math.round(tokens / scale);
    expect(
      Math.abs(
        ownCount(after.context.saved, after.correction_factor) -
          ownCount(before.context.deferred_saving, before.correction_factor),
      ),
    ).toBeLessThanOrEqual(1);
  });
});

/** Waits (up to 10 s) until `path` exists. */
async function waitForFile(path: string): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 20) {
    if (waited > 10_000) throw new Error(`${path} did not appear`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
