/**
 * jp ↔ cxc conversion (pure): base64, timestamps, directory names, every entry kind, and a
 * round trip over every conversation of the real jp workspaces (the committed subset, and the full
 * one in ../shared when present).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ConversationEvent } from "../../src/core/conversation/events.js";
import {
  type ImportedConversation,
  importJpConversation,
  type JpConversationSource,
} from "../../src/core/interop/jp.js";
import {
  decodeBase64,
  deriveConversationId,
  deriveEventId,
  encodeBase64,
  eventIdDeriver,
  jpTimestampToRfc3339,
  rfc3339ToJpTimestamp,
} from "../../src/core/interop/jp-encoding.js";
import { exportJpConversation, jpDirectoryName, renderJpJson } from "../../src/core/interop/jp-export.js";
import { CONVERSATION_ID_PATTERN } from "../../src/store/ids.js";
import {
  JP_WORKSPACES,
  jpConversationDirectories,
  noticeMissingSharedWorkspace,
} from "../helpers/jp-fixtures.js";

noticeMissingSharedWorkspace("the jp round trip");

function b64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

function importOrThrow(source: JpConversationSource): ImportedConversation {
  const result = importJpConversation(source);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

function exportOrThrow(conversation: ImportedConversation) {
  const result = exportJpConversation({
    createdAt: conversation.createdAt,
    meta: { ...conversation.extra, ...(conversation.title ? { title: conversation.title } : {}) },
    events: conversation.events,
  });
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

const sample: JpConversationSource = {
  directoryName: "17800836875-sample",
  archived: false,
  metadata: {
    title: "Sample",
    last_activated_at: "2026-05-29 20:04:40.293992",
    pinned_at: "2026-05-30 08:00:00.0",
    expires_at: "2026-06-30 08:00:00.125",
    labels: { work: "" },
  },
  baseConfig: { assistant: { system_prompt: "be brief" } },
  events: [
    { timestamp: "2026-05-29 19:42:36.46732", type: "turn_start" },
    { timestamp: "2026-05-29 19:42:36.467321", type: "chat_request", content: "hi", author: "Jean" },
    {
      timestamp: "2026-05-29 19:42:43.583581",
      type: "chat_response",
      reasoning: "thinking",
      metadata: { anthropic_thinking_signature: b64("EqEE") },
    },
    { timestamp: "2026-05-29 19:42:43.6", type: "chat_response", message: "Let me look." },
    {
      timestamp: "2026-05-29 19:42:43.609397",
      type: "tool_call_request",
      id: "toolu_1",
      name: "fs_read_file",
      arguments: { path: b64("src/main.rs"), start_line: 100, nested: [b64("ü")] },
    },
    {
      timestamp: "2026-05-29 19:42:44.0",
      type: "inquiry_request",
      id: "toolu_1.apply",
      source: { source: "tool", name: "fs_modify_file" },
      question: { text: "Apply?", answer_type: { type: "boolean" }, default: true },
    },
    { timestamp: "2026-05-29 19:42:44.1", type: "inquiry_response", id: "toolu_1.apply", answer: true },
    {
      timestamp: "2026-05-29 19:42:44.2",
      type: "tool_call_response",
      id: "toolu_1",
      content: "not base64 at all!",
      is_error: false,
    },
    { type: "config_delta", timestamp: "2026-05-29 20:02:40.430204", delta: { style: { x: 1 } } },
    { timestamp: "2026-05-29 20:02:41.0", type: "from_the_future", payload: [1, 2] },
    {
      type: "compaction",
      timestamp: "2026-06-01 10:00:00.5",
      from_turn: 0,
      to_turn: 0,
      summary: { summary: "Read main.rs." },
      tool_calls: { policy: "strip", request: true, response: true },
    },
  ],
};

describe("jp import", () => {
  const imported = importOrThrow(sample);
  const byType = (type: string) => imported.events.filter((event) => event.type === type);

  it("derives a valid conversation id and keeps title, timestamps and labels", () => {
    expect(imported.id).toMatch(CONVERSATION_ID_PATTERN);
    expect(imported.id).toBe(deriveConversationId(17800836875 * 100, "17800836875"));
    expect(imported.createdAt).toBe("2026-05-29T19:41:27.500Z");
    expect(imported.title).toBe("Sample");
    expect(imported.extra).toMatchObject({
      last_activated_at: "2026-05-29T20:04:40.293992Z",
      labels: { work: "" },
      jp_id: "jp-c17800836875",
    });
  });

  it("stores base_config.json as the first config_delta, marked", () => {
    expect(imported.events[0]).toMatchObject({
      type: "config_delta",
      delta: { assistant: { system_prompt: "be brief" } },
      metadata: { jp_base_config: true },
    });
  });

  it("decodes base64 leaves, keeps numbers, and keeps strings that are not base64", () => {
    expect(byType("tool_call_request")[0]).toMatchObject({
      call_id: "toolu_1",
      arguments: { path: "src/main.rs", start_line: 100, nested: ["ü"] },
    });
    expect(byType("tool_call_response")[0]).toMatchObject({
      call_id: "toolu_1",
      content: "not base64 at all!",
      jp_undecoded: ["content"],
    });
    expect(byType("chat_response")[0]).toMatchObject({
      reasoning: "thinking",
      metadata: { anthropic_thinking_signature: "EqEE" },
    });
  });

  it("maps inquiries, compactions, timestamps and unknown entries", () => {
    expect(byType("inquiry_request")[0]).toMatchObject({ inquiry_id: "toolu_1.apply" });
    expect(byType("inquiry_response")[0]).toMatchObject({ inquiry_id: "toolu_1.apply", answer: true });
    expect(byType("compaction")[0]).toMatchObject({
      source: "user",
      summary: { summary: "Read main.rs.", source: "derived" },
      ts: "2026-06-01T10:00:00.5Z",
    });
    expect(byType("unknown")[0]).toEqual({
      type: "unknown",
      raw: { timestamp: "2026-05-29 20:02:41.0", type: "from_the_future", payload: [1, 2] },
    });
    expect(byType("turn_start")[0]).toMatchObject({ ts: "2026-05-29T19:42:36.46732Z" });
  });

  it("is deterministic and gives unique, position-ordered ids", () => {
    const again = importOrThrow(sample);
    expect(again.events).toEqual(imported.events);
    const ids = imported.events.flatMap((event) => (event.type === "unknown" ? [] : [event.id]));
    expect(new Set(ids).size).toBe(ids.length);
    expect(deriveEventId(1000, "1:2") < deriveEventId(1000, "1:3")).toBe(true);
  });

  it("derives an importer's ids for one key as deriveEventId does for `key:position`", () => {
    const key = "claude-code:3b513450-3d6c-443e-9a7e-01eceba20536";
    const derive = eventIdDeriver(key);
    for (const position of [0, 1, 9, 10, 31, 32, 1023, 1024, 40_000, 2_000_000]) {
      for (const milliseconds of [0, -5, 1_767_225_600_123, Date.UTC(2999, 0, 1)]) {
        expect(derive(milliseconds, position)).toBe(deriveEventId(milliseconds, `${key}:${position}`));
      }
    }
  });

  it("reports a malformed known entry with its position", () => {
    const broken = {
      ...sample,
      events: [{ timestamp: "2026-05-29 19:42:36.4", type: "tool_call_response" }],
    };
    const result = importJpConversation(broken);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^entry 0 \(tool_call_response\): .*call_id/);
    const badTime = importJpConversation({
      ...sample,
      events: [{ timestamp: "yesterday", type: "turn_start" }],
    });
    expect(badTime.ok).toBe(false);
    expect(importJpConversation({ ...sample, events: {} }).ok).toBe(false);
  });

  it("refuses hostile data with one sentence instead of an exception", () => {
    expect(importJpConversation({ ...sample, directoryName: "99999999999999999999999-x" })).toEqual({
      ok: false,
      message: "the directory name '99999999999999999999999-x' gives a creation time out of range",
    });
    const backwards = importJpConversation({
      ...sample,
      events: [{ type: "compaction", timestamp: "2026-05-29 19:42:36.4", from_turn: 5, to_turn: 2 }],
    });
    expect(backwards).toEqual({
      ok: false,
      message: "entry 0 (compaction): from_turn 5 is after to_turn 2 (a range runs forwards)",
    });
    for (const timestamp of [
      "2025-02-30 10:00:00.0",
      "2025-13-01 10:00:00.0",
      "2025-01-01 24:00:00.0+01:00",
    ]) {
      const result = importJpConversation({ ...sample, events: [{ type: "turn_start", timestamp }] });
      expect(result, timestamp).toMatchObject({ ok: false, message: expect.stringContaining("`timestamp`") });
    }
  });
});

describe("jp export", () => {
  it("writes back the same files", () => {
    const files = exportOrThrow(importOrThrow(sample));
    expect(files.directoryName).toBe("17800836875-sample");
    expect(files.baseConfig).toEqual(sample.baseConfig);
    expect(files.events).toEqual(sample.events);
    expect(renderJpJson(files.metadata)).toBe(renderJpJson(sample.metadata));
  });

  it("round-trips a legacy flat config entry", () => {
    const legacy: JpConversationSource = {
      directoryName: "17648402467-legacy",
      archived: false,
      metadata: { last_activated_at: "2025-12-04 09:24:06.746076" },
      events: [
        { type: "config_delta", timestamp: "2025-12-04 09:20:00.0", inherit: true, assistant: { name: "x" } },
        { timestamp: "2025-12-04 09:20:01.0", type: "chat_request", content: "hello" },
      ],
    };
    const files = exportOrThrow(importOrThrow(legacy));
    expect(renderJpJson(files.events)).toBe(renderJpJson(legacy.events));
    expect(files.baseConfig).toBeUndefined();
    expect(files.directoryName).toBe("17648402467");
  });

  it("leaves out retired compactions and resets", () => {
    const conversation = importOrThrow(sample);
    const compaction = conversation.events.find((event) => event.type === "compaction")!;
    const reset: ConversationEvent = {
      id: "R1",
      ts: "2026-06-02T00:00:00Z",
      type: "compaction_reset",
      retires: [(compaction as { id: string }).id],
    };
    const files = exportOrThrow({ ...conversation, events: [...conversation.events, reset] });
    expect(files.events.some((entry) => entry.type === "compaction")).toBe(false);
  });
});

describe("jp helpers", () => {
  it("converts timestamps both ways, keeping the fraction digits", () => {
    expect(jpTimestampToRfc3339("2023-01-01 00:00:00.0")).toBe("2023-01-01T00:00:00.0Z");
    expect(jpTimestampToRfc3339("2023-01-01T02:00:00.25+02:00")).toBe("2023-01-01T00:00:00.25Z");
    expect(jpTimestampToRfc3339("not a time")).toBeUndefined();
    expect(rfc3339ToJpTimestamp("2026-05-29T19:42:36.467320Z")).toBe("2026-05-29 19:42:36.46732");
    expect(rfc3339ToJpTimestamp("2026-05-29T19:42:36Z")).toBe("2026-05-29 19:42:36.0");
  });

  it("encodes and strictly decodes base64 of UTF-8", () => {
    for (const text of ["", "a", "ab", "abc", "héllo wörld ✓ 🎉", "line\nbreak"]) {
      expect(encodeBase64(text)).toBe(b64(text));
      expect(decodeBase64(b64(text))).toBe(text);
    }
    expect(decodeBase64("YQ")).toBeUndefined(); // missing padding
    expect(decodeBase64("YR==")).toBeUndefined(); // stray bits
    expect(decodeBase64("//8=")).toBeUndefined(); // not UTF-8
    expect(decodeBase64("a-b_")).toBeUndefined();
  });

  it("builds jp directory names", () => {
    expect(jpDirectoryName(17457886043, undefined)).toBe("17457886043");
    expect(jpDirectoryName(17457886043, "")).toBe("17457886043");
    expect(jpDirectoryName(17457886043, "Simple Title")).toBe("17457886043-simple-title");
    expect(jpDirectoryName(17457886043, " Title with spaces & chars!")).toBe(
      "17457886043-title-with-spaces---chars",
    );
    expect(
      jpDirectoryName(
        17457886043,
        "A very long title that definitely exceeds the sixty character limit for testing purposes",
      ),
    ).toBe("17457886043-a-very-long-title-that-definitely-exceeds-the-sixty");
  });
});

describe.each(JP_WORKSPACES)("jp round trip over the $name workspace", (jp) => {
  const directories = jpConversationDirectories(jp);
  it("finds its conversations", () => expect(directories.length).toBeGreaterThanOrEqual(7));

  it.each(directories.map((directory) => [directory.name, directory] as const))(
    "%s exports byte-for-byte and re-imports identically",
    (_name, directory) => {
      const read = (file: string) => {
        const path = join(directory.path, file);
        return existsSync(path) ? readFileSync(path, "utf8") : undefined;
      };
      const texts = {
        metadata: read("metadata.json"),
        base: read("base_config.json"),
        events: read("events.json")!,
      };
      const source: JpConversationSource = {
        directoryName: directory.name,
        archived: directory.archived,
        metadata: texts.metadata === undefined ? undefined : JSON.parse(texts.metadata),
        ...(texts.base === undefined ? {} : { baseConfig: JSON.parse(texts.base) }),
        events: JSON.parse(texts.events),
      };
      const imported = importOrThrow(source);
      const files = exportOrThrow(imported);
      expect(files.directoryName).toBe(directory.name);
      expect(renderJpJson(files.events)).toBe(texts.events);
      expect(renderJpJson(files.metadata)).toBe(texts.metadata);
      if (texts.base !== undefined) expect(renderJpJson(files.baseConfig)).toBe(texts.base);
      else expect(files.baseConfig).toBeUndefined();
      const again = importOrThrow({
        directoryName: files.directoryName,
        archived: directory.archived,
        metadata: files.metadata,
        ...(files.baseConfig === undefined ? {} : { baseConfig: files.baseConfig }),
        events: JSON.parse(renderJpJson(files.events)),
      });
      expect(again).toEqual(imported);
    },
  );
});
