/**
 * Lines on stderr that came from elsewhere still start `cxc: `: what a provider SDK prints by
 * itself (the Anthropic SDK's warning about a deprecated model, raw on stderr before), the
 * summary progress line in a pipe, and the approval prompt's "No editor is set" notice at a
 * terminal.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CXC_BIN } from "../helpers/cli.js";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { startInTmux } from "../helpers/pty.js";
import { makeQueryHome, type QueryHome, wordCountTool } from "../query/e2e.js";
import { homeWithSample } from "./compact-helpers.js";

let provider: FakeProvider;
let home: QueryHome;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
});
beforeEach(() => {
  provider.reset();
  home = makeQueryHome(provider);
});
afterEach(() => {
  home.home.cleanup();
  expect(provider.remaining()).toBe(0);
});

const notMessageLines = (stderr: string): string[] =>
  stderr.split("\n").filter((line) => line !== "" && !/^(cxc|hint): /.test(line));

describe("lines from elsewhere", () => {
  it("the SDK's deprecation notice is a cxc warning line, folded and sanitized", async () => {
    provider.enqueue(textReply("Fine."));
    const result = await home.q(["--new", "-m", "anthropic/claude-sonnet-4-5", "hi"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(notMessageLines(result.stderr)).toEqual([]);
    expect(result.stderr).toMatch(
      /^cxc: warning: The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on [^\n]+ Please migrate to a newer model\.[^\n]*$/m,
    );
  });

  it("the progress of a summary in a pipe is a notice line", async () => {
    const sample = await homeWithSample();
    try {
      provider.enqueue(textReply("A summary of the turns."));
      const result = await sample.run(["conversation", "compact", "-s", "--turn", "3..6"], {
        env: {
          ANTHROPIC_API_KEY: "test-key",
          ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
          CXC_ASSISTANT__MODEL__ID: "anthropic/claude-sonnet-4-6",
        },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        "cxc: Generating summary of turns 3..6 with anthropic/claude-sonnet-4-6...\n",
      );
      expect(notMessageLines(result.stderr)).toEqual([]);
    } finally {
      sample.cleanup();
    }
  });

  it("the approval prompt says there is no editor in a cxc line", async () => {
    home.writeConfig(wordCountTool("ask"));
    provider.enqueue(
      { blocks: [{ type: "tool-call", id: "c1", name: "word_count", arguments: { text: "a b" } }] },
      textReply("done"),
    );
    const {
      EDITOR: _editor,
      VISUAL: _visual,
      ...env
    } = { ...home.home.env, ...home.env } as Record<string, string>;
    const pty = startInTmux([process.execPath, CXC_BIN, "q", "--new", "count"], {
      env,
      cwd: home.home.cwd.replace(/\/work$/, ""),
    });
    try {
      await pty.waitFor("Run local tool word_count? [y/n/Y/N/e/?]");
      pty.send("e");
      await pty.waitFor("cxc: No editor is set or it failed (set $EDITOR); not editing.");
      pty.send("y");
      expect(await pty.exitCode()).toBe(0);
    } finally {
      pty.close();
    }
  });
});
