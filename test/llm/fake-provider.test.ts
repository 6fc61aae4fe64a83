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
});
