/**
 * Anthropic's on-demand compaction as a native summary, end to end: the built CLI talks to the
 * loopback fake (which speaks the beta's shape and checks it as the API does) through the real
 * Anthropic SDK. `compact --native` sends the range with the beta header and `compaction`, stores
 * the block (text, signature, model) in the overlay; the next `q` turn replays the block first with
 * the header, the facts after it; another provider gets the readable text; reset and undo bring
 * the raw turns and the block back; a range that cannot take a block gets cxc's summary and the
 * reason; a refusal or `compaction_unavailable` falls back in one line; bad input applies nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TempHome } from "../helpers/cli.js";
import {
  COMPACTION_BETA,
  errorReply,
  type FakeProvider,
  fakeCompactionSignature,
  type RecordedRequest,
  startFakeProvider,
  textReply,
} from "../helpers/fake-provider.js";
import { loadSample } from "../helpers/sample.js";
import { compactionsOf, homeWithSample, logBytes } from "./compact-helpers.js";

const MODEL = "anthropic/claude-opus-4-6";
const NATIVE = "The user added a --since filter to logcat; tests pass.";

let provider: FakeProvider;
let home: TempHome;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider?.close());
afterEach(() => {
  home?.cleanup();
  provider.requests.length = 0;
});

function env(): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: provider.anthropicBaseURL,
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: provider.openaiBaseURL,
    CXC_ASSISTANT__MODEL__ID: MODEL,
  };
}

function requestOf(number: number): string {
  const turn = loadSample().turns[number - 1]!;
  const request = turn.events.find((event) => event.type === "chat_request");
  if (request?.type !== "chat_request") throw new Error(`turn ${number} has no request`);
  return request.content;
}

type Body = {
  messages?: { role: string; content: unknown }[];
  compaction?: unknown;
  system?: unknown;
  input?: unknown;
};
const bodyOf = (request: RecordedRequest) => request.body as Body;
const betaOf = (request: RecordedRequest) => request.headers["anthropic-beta"] ?? "";

async function compactNative(args: string[] = ["-k", "s:1..6"]) {
  return home.run(["conversation", "compact", "--native", "-m", MODEL, ...args, "-y"], { env: env() });
}

describe("compact --native (Anthropic's on-demand compaction)", () => {
  it("stores the block, replays it first with the beta header, and gives other providers the text", async () => {
    home = await homeWithSample();
    provider.enqueue({
      kind: "compaction",
      content: NATIVE,
      usage: { inputTokens: 1200, outputTokens: 300 },
    });
    const result = await compactNative();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `Native summary of turns 1..6 by ${MODEL}: 1200 input and 300 output tokens (usage.iterations)`,
    );
    const [asked] = provider.requests;
    expect(betaOf(asked!)).toContain(COMPACTION_BETA);
    expect(bodyOf(asked!).compaction).toEqual({ type: "summarize" });
    const sent = JSON.stringify(bodyOf(asked!).messages);
    expect(sent).toContain(JSON.stringify(requestOf(1)).slice(1, -1));
    expect(sent).toContain(JSON.stringify(requestOf(6)).slice(1, -1));
    expect(sent).not.toContain(JSON.stringify(requestOf(7)).slice(1, -1));

    const [compaction] = compactionsOf(home);
    expect(compaction).toMatchObject({
      from_turn: 0,
      to_turn: 5,
      requires: ["native-summary"],
      summary: {
        summary: NATIVE,
        recipe: MODEL,
        native: {
          format: "anthropic-compaction",
          provider: "anthropic",
          model: MODEL,
          content: NATIVE,
          signature: fakeCompactionSignature(NATIVE),
          usage: { input_tokens: 1200, output_tokens: 300 },
        },
      },
    });
    // show names what it cost: the provider's usage.iterations, at the model's prices
    // ($5 and $25 a million input and output tokens: $0.006 + $0.0075).
    const shown = await home.run(["conversation", "show"], { env: env() });
    expect(shown.stdout).toContain(
      `  1. turns 1..6 (6 total, summary) [user, native summary by ${MODEL} (1200 input and 300 output tokens, $0.013)]`,
    );
    const json = JSON.parse(
      (await home.run(["--format", "json", "conversation", "show"], { env: env() })).stdout,
    );
    expect(json.compactions[0].native).toEqual({
      format: "anthropic-compaction",
      model: MODEL,
      input_tokens: 1200,
      output_tokens: 300,
      dollars: expect.closeTo(0.0135, 9),
    });

    // The next turn: the block first, the header, the facts after it, the opener gone.
    provider.enqueue(textReply("Next."));
    const turn = await home.run(["query", "-m", MODEL, "What next?"], { env: env() });
    expect(turn.exitCode, turn.stderr).toBe(0);
    const next = provider.requests.at(-1)!;
    expect(betaOf(next)).toContain(COMPACTION_BETA);
    const messages = bodyOf(next).messages!;
    expect(messages[0]).toEqual({
      role: "assistant",
      content: [{ type: "compaction", content: NATIVE, signature: fakeCompactionSignature(NATIVE) }],
    });
    expect(JSON.stringify(messages)).not.toContain("[Summary of previous conversation]");
    expect(JSON.stringify(messages[1])).toContain("[Facts of these turns, from their raw events]");
    expect(JSON.stringify(messages)).toContain(JSON.stringify(requestOf(7)).slice(1, -1));
    // Asked with the system prompt and tools the next turn sends, so the turn reuses the prefix.
    const toolNames = (request: RecordedRequest) =>
      ((request.body as { tools?: { name: string }[] }).tools ?? []).map((tool) => tool.name);
    expect(toolNames(asked!)).toEqual(toolNames(next));
    expect(toolNames(next).length).toBeGreaterThan(0);
    expect(JSON.stringify(bodyOf(asked!).system)).toBe(JSON.stringify(bodyOf(next).system));

    // Another provider reads the text, with no block and no header.
    provider.enqueue(textReply("Other."));
    const other = await home.run(["query", "-m", "openai/gpt-5", "And now?"], { env: env() });
    expect(other.exitCode, other.stderr).toBe(0);
    const openai = JSON.stringify(bodyOf(provider.requests.at(-1)!).input);
    expect(openai).toContain("[Summary of previous conversation]");
    expect(openai).toContain(NATIVE);
    expect(openai).not.toContain('"type":"compaction"');

    // Reset: the raw turns again, no block, no header; undo: the block again.
    expect((await home.run(["conversation", "compact", "--reset", "-y"], { env: env() })).exitCode).toBe(0);
    provider.enqueue(textReply("Raw."));
    await home.run(["query", "-m", MODEL, "Raw?"], { env: env() });
    const raw = provider.requests.at(-1)!;
    expect(betaOf(raw)).not.toContain(COMPACTION_BETA);
    expect(JSON.stringify(bodyOf(raw).messages)).toContain(JSON.stringify(requestOf(1)).slice(1, -1));
    expect(JSON.stringify(bodyOf(raw).messages)).not.toContain('"type":"compaction"');
    expect((await home.run(["conversation", "compact", "--undo-reset", "-y"], { env: env() })).exitCode).toBe(
      0,
    );
    provider.enqueue(textReply("Back."));
    await home.run(["query", "-m", MODEL, "Back?"], { env: env() });
    const back = provider.requests.at(-1)!;
    expect(betaOf(back)).toContain(COMPACTION_BETA);
    expect(JSON.stringify(bodyOf(back).messages?.[0])).toContain('"type":"compaction"');

    const printed = await home.run(["conversation", "print", "--compacted", "--style", "full"], {
      env: env(),
    });
    expect(printed.stdout).toContain(NATIVE);
    expect(printed.stdout).toContain(
      `── turns 1..6 (native summary by ${MODEL}, 1200 input and 300 output tokens) ──`,
    );
  });

  it("q -k --native compacts natively before the turn, which then carries the block", async () => {
    home = await homeWithSample();
    provider.enqueue({ kind: "compaction", content: NATIVE }, textReply("Done."));
    const result = await home.run(["query", "-m", MODEL, "-k=s:1..6", "--native", "Go on."], {
      env: env(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const [asked, turn] = provider.requests;
    expect(bodyOf(asked!).compaction).toEqual({ type: "summarize" });
    expect(betaOf(turn!)).toContain(COMPACTION_BETA);
    expect(bodyOf(turn!).messages?.[0]).toMatchObject({
      role: "assistant",
      content: [{ type: "compaction" }],
    });
    expect(compactionsOf(home)[0]!.summary!.native).toMatchObject({ content: NATIVE });

    const bare = await home.run(["query", "-m", MODEL, "--native", "Again."], { env: env() });
    expect(bare.exitCode).not.toBe(0);
    expect(bare.stderr.trim()).toBe(
      "cxc: error: --native asks -k for the provider's own summary; add -k with a summary (-k=s:1..6)",
    );
  });

  it("says in the dry run that a native summary is a model call, or why it cannot stand, calling nothing", async () => {
    home = await homeWithSample();
    const before = logBytes(home);
    const dry = (args: string[]) =>
      home.run(["conversation", "compact", "--native", ...args, "--dry-run"], { env: env() });
    const fits = await dry(["-m", MODEL, "-k", "s:1..6"]);
    expect(fits.exitCode, fits.stderr).toBe(0);
    expect(fits.stderr).toContain(
      `native summary of turns 1..6: a model call to ${MODEL} (Anthropic's on-demand compaction); what it cost is said once it is made (usage.iterations)`,
    );
    const kept = await dry(["-m", MODEL, "-s"]);
    expect(kept.stderr).toMatch(
      /no native summary of turns 2\.\.\d+: turn 1 is kept before the range, .*--keep-first 0.*; cxc would write its own summary/,
    );
    const other = await dry(["-m", "openai/gpt-5", "-k", "s:1..6"]);
    expect(other.stderr).toContain(
      "no native summary of turns 1..6: openai/gpt-5 has no on-demand compaction cxc can call (only Anthropic's Messages API has one); cxc would write its own summary",
    );
    const old = await dry(["-m", "anthropic/claude-sonnet-4-5", "-k", "s:1..6"]);
    expect(old.stderr).toContain(
      "anthropic/claude-sonnet-4-5 has no on-demand compaction (set providers.anthropic.models.claude-sonnet-4-5.native_compaction = true if it has)",
    );
    expect(provider.requests).toHaveLength(0);
    expect(logBytes(home)).toBe(before);
  });

  it("passes the user's context_management through with its beta, and refuses a malformed one", async () => {
    home = await homeWithSample();
    const edits = { edits: [{ type: "clear_tool_uses_20250919", keep: { type: "tool_uses", value: 3 } }] };
    provider.enqueue(textReply("Edited."));
    const set = ["-c", `providers.anthropic.context_management=${JSON.stringify(edits)}`];
    const turn = await home.run(["query", ...set, "-m", MODEL, "Go on."], { env: env() });
    expect(turn.exitCode, turn.stderr).toBe(0);
    const [sent] = provider.requests;
    expect((sent!.body as { context_management?: unknown }).context_management).toEqual(edits);
    expect(betaOf(sent!)).toContain("context-management-2025-06-27");

    const bad = ["-c", 'providers.anthropic.context_management={"edits":"all"}'];
    const refused = await home.run(["query", ...bad, "-m", MODEL, "Again."], { env: env() });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/^cxc: error: .*providers\.anthropic\.context_management\.edits/);
    expect(provider.requests).toHaveLength(1);
  });

  it("in a review, the native draft survives only unchanged; an edited text goes as a plain summary, said so", async () => {
    for (const edited of [false, true]) {
      home = await homeWithSample();
      provider.requests.length = 0;
      provider.enqueue({ kind: "compaction", content: NATIVE });
      const started = await home.run(
        ["conversation", "compact", "--interactive", "--native", "-m", MODEL, "--from", "1", "--to", "6"],
        { env: env() },
      );
      expect(started.exitCode, started.stderr).toBe(0);
      expect(bodyOf(provider.requests[0]!).compaction).toEqual({ type: "summarize" });
      if (edited) {
        provider.enqueue(
          {
            blocks: [
              {
                type: "tool-call",
                id: "call_edit",
                name: "propose_compaction",
                arguments: { from_turn: 1, to_turn: 6, summary: `${NATIVE} Edited.` },
              },
            ],
          },
          textReply("Recorded."),
        );
        const discussed = await home.run(["query", "-m", MODEL, "Add that it is edited."], { env: env() });
        expect(discussed.exitCode, discussed.stderr).toBe(0);
      }
      const applied = await home.run(["conversation", "compact", "--continue", "--yes"], { env: env() });
      expect(applied.exitCode, applied.stderr).toBe(0);
      const said = applied.stdout + applied.stderr;
      const [compaction] = compactionsOf(home);
      if (edited) {
        expect(said).toContain(
          `The draft was ${MODEL}'s own summary; this proposal changes its text, so it goes as a plain summary (the signed block is dropped).`,
        );
        expect(compaction!.summary).toMatchObject({ summary: `${NATIVE} Edited.`, source: "supplied" });
        expect(compaction!.summary!.native).toBeUndefined();
        expect(compaction!.requires).toBeUndefined();
      } else {
        expect(said).toContain(
          `The summary is ${MODEL}'s own (its signed compaction block, as drafted): it goes back to that model family as the block.`,
        );
        expect(compaction!.summary!.native).toMatchObject({
          content: NATIVE,
          signature: fakeCompactionSignature(NATIVE),
        });
        expect(compaction!.requires).toEqual(["native-summary"]);
        provider.enqueue(textReply("On."));
        await home.run(["query", "-m", MODEL, "On?"], { env: env() });
        expect(JSON.stringify(bodyOf(provider.requests.at(-1)!).messages?.[0])).toContain(
          '"type":"compaction"',
        );
      }
      home.cleanup();
    }
  });

  it("in a review, a proposal with the draft's text over another range goes as a plain summary, said so", async () => {
    home = await homeWithSample();
    provider.enqueue({ kind: "compaction", content: NATIVE });
    const started = await home.run(
      ["conversation", "compact", "--interactive", "--native", "-m", MODEL, "--from", "1", "--to", "6"],
      { env: env() },
    );
    expect(started.exitCode, started.stderr).toBe(0);
    // The assistant proposes the same text over turns 1..5: the block was signed for 1..6.
    provider.enqueue(
      {
        blocks: [
          {
            type: "tool-call",
            id: "call_range",
            name: "propose_compaction",
            arguments: { from_turn: 1, to_turn: 5, summary: NATIVE },
          },
        ],
      },
      textReply("Recorded."),
    );
    const discussed = await home.run(["query", "-m", MODEL, "Keep turn 6 out of it."], { env: env() });
    expect(discussed.exitCode, discussed.stderr).toBe(0);
    const applied = await home.run(["conversation", "compact", "--continue", "--yes"], { env: env() });
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).toContain(
      `The draft was ${MODEL}'s own summary; this proposal changes its range, so it goes as a plain summary (the signed block is dropped).`,
    );
    const [compaction] = compactionsOf(home);
    expect(compaction).toMatchObject({ from_turn: 0, to_turn: 4 });
    expect(compaction!.summary).toMatchObject({ summary: NATIVE, source: "supplied" });
    expect(compaction!.summary!.native).toBeUndefined();
    expect(compaction!.requires).toBeUndefined();
    // The next turn carries the text, without the block or its beta.
    provider.requests.length = 0;
    provider.enqueue(textReply("On."));
    const next = await home.run(["query", "-m", MODEL, "On?"], { env: env() });
    expect(next.exitCode, next.stderr).toBe(0);
    const sent = JSON.stringify(bodyOf(provider.requests[0]!).messages);
    expect(sent).not.toContain('"type":"compaction"');
    expect(sent).toContain(NATIVE);
    expect(betaOf(provider.requests[0]!)).not.toContain(COMPACTION_BETA);
  });

  it("writes cxc's summary where a block cannot stand, and says why", async () => {
    home = await homeWithSample();
    provider.enqueue(textReply("A plain summary of turns 2..6."));
    const result = await compactNative(["-k", "s:2..6"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "no native summary of turns 2..6: turn 1 is kept before the range, and a native summary must start at turn 1",
    );
    expect(provider.requests).toHaveLength(1);
    expect(bodyOf(provider.requests[0]!).compaction).toBeUndefined();
    const [compaction] = compactionsOf(home);
    expect(compaction!.summary).toMatchObject({ summary: "A plain summary of turns 2..6." });
    expect(compaction!.summary!.native).toBeUndefined();
    expect(compaction!.requires).toBeUndefined();
  });

  it("falls back to cxc's summarizer after compaction_unavailable, in one line", async () => {
    home = await homeWithSample();
    const unavailable = errorReply(529, { errorType: "compaction_unavailable", retryAfterSeconds: 0 });
    provider.enqueue(unavailable, unavailable, unavailable, textReply("A plain summary."));
    const result = await compactNative();
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stderr.split("\n").filter((line) => line.includes("no native summary"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /no native summary of turns 1\.\.6: anthropic\/claude-opus-4-6 gave none \(on-demand compaction is unavailable \(2 retries\)/,
    );
    expect(provider.requests.filter((request) => bodyOf(request).compaction !== undefined)).toHaveLength(3);
    expect(compactionsOf(home)[0]!.summary).toMatchObject({ summary: "A plain summary." });
  });

  it("asks the Models API about a model cxc's table does not know: no, yes, or cannot say", async () => {
    provider.addModel({ id: "claude-lab-1", compaction: false });
    provider.addModel({ id: "claude-lab-2", compaction: true });
    const run = (model: string) =>
      home.run(["conversation", "compact", "--native", "-m", `anthropic/${model}`, "-k", "s:1..6", "-y"], {
        env: env(),
      });
    const asked = () =>
      provider.requests.map((request) =>
        request.method === "GET"
          ? `GET ${request.path}`
          : `POST ${bodyOf(request).compaction === undefined ? "summary" : "compaction"}`,
      );

    // No: cxc writes its own summary and says why, without asking for a block.
    home = await homeWithSample();
    provider.enqueue(textReply("A plain summary."));
    const no = await run("claude-lab-1");
    expect(no.exitCode, no.stderr).toBe(0);
    expect(no.stderr).toContain(
      "no native summary of turns 1..6: the Models API says anthropic/claude-lab-1 has no on-demand compaction (capabilities.compaction; set providers.anthropic.models.claude-lab-1.native_compaction = true to try it anyway); cxc writes its own summary",
    );
    expect(asked()).toEqual(["GET /v1/models/claude-lab-1", "POST summary"]);
    expect(compactionsOf(home)[0]!.summary!.native).toBeUndefined();
    home.cleanup();

    // Yes: the block.
    home = await homeWithSample();
    provider.requests.length = 0;
    provider.enqueue({ kind: "compaction", content: NATIVE });
    const yes = await run("claude-lab-2");
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(asked()).toEqual(["GET /v1/models/claude-lab-2", "POST compaction"]);
    expect(compactionsOf(home)[0]!.summary!.native).toMatchObject({ model: "anthropic/claude-lab-2" });
    home.cleanup();

    // The API does not know the model (404): cxc tries.
    home = await homeWithSample();
    provider.requests.length = 0;
    provider.enqueue({ kind: "compaction", content: NATIVE });
    const unknown = await run("claude-lab-3");
    expect(unknown.exitCode, unknown.stderr).toBe(0);
    expect(asked()).toEqual(["GET /v1/models/claude-lab-3", "POST compaction"]);

    // Configured or in the table: not asked.
    provider.requests.length = 0;
    provider.enqueue({ kind: "compaction", content: NATIVE });
    const configured = await home.run(
      [
        "-c",
        "providers.anthropic.models.claude-lab-1.native_compaction=true",
        "conversation",
        "compact",
        "--native",
        "-m",
        "anthropic/claude-lab-1",
        "-k",
        "s:1..6",
        "-y",
      ],
      { env: env() },
    );
    expect(configured.exitCode, configured.stderr).toBe(0);
    expect(asked()).toEqual(["POST compaction"]);
  });

  it("falls back when the model answers without a summary", async () => {
    home = await homeWithSample();
    provider.enqueue({ blocks: [], stop: "refusal" }, textReply("A plain summary."));
    const result = await compactNative();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("gave none (the model answered without a summary (stop_reason refusal))");
    expect(compactionsOf(home)[0]!.summary!.native).toBeUndefined();
  });

  it("refuses --native without a summary, and with --reset, applying nothing", async () => {
    home = await homeWithSample();
    const before = logBytes(home);
    const bare = await home.run(["conversation", "compact", "--native", "-r", "-y"], { env: env() });
    expect(bare.exitCode).not.toBe(0);
    expect(bare.stderr.trim().split("\n")[0]).toBe(
      "cxc: error: --native asks for a summary, and no rule writes one; add -s, an s policy in -k (-k s:1..6), or a configured summary rule",
    );
    const reset = await home.run(["conversation", "compact", "--native", "--reset", "-y"], { env: env() });
    expect(reset.exitCode).not.toBe(0);
    expect(reset.stderr).toContain("--reset cannot be used with --native");
    expect(logBytes(home)).toBe(before);
    expect(provider.requests).toHaveLength(0);
  });
});
