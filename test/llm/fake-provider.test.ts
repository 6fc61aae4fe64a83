/** The fake provider's own wire format, read with plain fetch (no SDK in between). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";

let provider: FakeProvider;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${provider.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test": "yes" },
    body: JSON.stringify(body),
  });
}

describe("fake provider wire format", () => {
  it("streams Anthropic SSE with named events in order, including ping", async () => {
    provider.enqueue(textReply("hi"));
    const response = await post("/v1/messages", { model: "m", stream: true, messages: [] });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const text = await response.text();
    const names = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(names).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(provider.requests.at(-1)?.headers["x-test"]).toBe("yes");
  });

  it("streams OpenAI data chunks ending in [DONE]", async () => {
    provider.enqueue(textReply("hi"));
    const text = await (
      await post("/v1/chat/completions", { model: "m", stream: true, messages: [] })
    ).text();
    const lines = text.split("\n").filter((line) => line.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    expect(text).not.toContain("event:");
  });

  it("answers non-streaming requests with JSON", async () => {
    provider.enqueue(
      {
        blocks: [
          { type: "text", text: "answer" },
          { type: "tool-call", id: "c1", name: "t", arguments: { a: 1 } },
        ],
      },
      textReply("plain"),
    );
    const openai = await (await post("/v1/chat/completions", { model: "m", messages: [] })).json();
    expect(openai).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: {
            content: "answer",
            tool_calls: [{ id: "c1", function: { name: "t", arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    });
    const anthropic = await (await post("/v1/messages", { model: "m", messages: [] })).json();
    expect(anthropic).toMatchObject({
      type: "message",
      content: [{ type: "text", text: "plain" }],
      stop_reason: "end_turn",
    });
  });

  it("fails clearly when the script is exhausted", async () => {
    const response = await post("/v1/messages", { model: "m", stream: true, messages: [] });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("no scripted reply left");
  });

  it("answers a routed request by its body, leaving the queue for the turns", async () => {
    provider.enqueue(textReply("turn one"), textReply("turn two"));
    provider.addRoute({ bodyIncludes: "Summarize", reply: textReply("the summary") });
    provider.addRoute({ path: "/v1/messages", bodyIncludes: "title", times: 1, reply: textReply("A title") });
    const ask = async (content: string) => {
      const response = await post("/v1/messages", { model: "m", messages: [{ role: "user", content }] });
      return ((await response.json()) as { id: string; content: { text: string }[] }).content[0]?.text;
    };
    expect(await ask("hello")).toBe("turn one");
    expect(await ask("Summarize the above")).toBe("the summary");
    expect(await ask("a title please")).toBe("A title");
    expect(await ask("a title again")).toBe("turn two");
    expect(await ask("Summarize once more")).toBe("the summary");
    expect(provider.requests.slice(-5).map((request) => request.route)).toEqual([
      undefined,
      0,
      1,
      undefined,
      0,
    ]);
    expect(provider.remaining()).toBe(0);
    provider.reset();
  });

  it("gives each reply its own message id unless the script names one", async () => {
    provider.enqueue(textReply("a"), textReply("b"), textReply("c", { messageId: "msg_chosen" }));
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await post("/v1/messages", { model: "m", messages: [] });
      ids.push(((await response.json()) as { id: string }).id);
    }
    expect(new Set(ids).size).toBe(3);
    expect(ids[2]).toBe("msg_chosen");
    expect(ids[0]).toMatch(/^msg_fake_\d+$/);
  });

  it("counts tokens without taking a scripted reply", async () => {
    provider.enqueue(textReply("kept"));
    const response = await post("/v1/messages/count_tokens", {
      model: "m",
      messages: [{ role: "user", content: "x".repeat(400) }],
    });
    const counted = (await response.json()) as { input_tokens: number };
    expect(counted.input_tokens).toBeGreaterThan(100);
    expect(provider.remaining()).toBe(1);
    provider.reset();
  });
});
