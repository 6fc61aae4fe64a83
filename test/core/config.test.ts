import { describe, expect, it } from "vitest";
import {
  type ConfigLayer,
  type ConfigTable,
  configPathFromEnvironmentName,
  isSecretKey,
  listConfigLeaves,
  looksLikeAssignment,
  lookupConfig,
  mergeConfigLayers,
  parseAssignment,
  parseConfigScalar,
  removeSecretKeys,
  tableAt,
} from "../../src/core/config.js";

describe("mergeConfigLayers", () => {
  it("merges tables key by key and records the origin of every leaf", () => {
    const merged = mergeConfigLayers([
      { origin: "default", values: { assistant: { model: { id: "a/one" }, instructions: "be brief" } } },
      { origin: "/user/config.toml", values: { assistant: { model: { id: "b/two" } } } },
      { origin: "-c", values: { conversation: { compaction: { review: { model: "c/three" } } } } },
    ]);
    expect(merged.values).toEqual({
      assistant: { model: { id: "b/two" }, instructions: "be brief" },
      conversation: { compaction: { review: { model: "c/three" } } },
    });
    expect(listConfigLeaves(merged)).toEqual([
      { key: "assistant.instructions", value: "be brief", origin: "default" },
      { key: "assistant.model.id", value: "b/two", origin: "/user/config.toml" },
      { key: "conversation.compaction.review.model", value: "c/three", origin: "-c" },
    ]);
  });

  it("replaces arrays that are not jp's mergeable lists", () => {
    const merged = mergeConfigLayers([
      { origin: "user", values: { assistant: { stop: ["a"] } } },
      { origin: "ws", values: { assistant: { stop: ["b", "c"] } } },
    ]);
    expect(lookupConfig(merged.values, "assistant.stop")).toEqual(["b", "c"]);
    expect(merged.origins.get("assistant.stop")).toBe("ws");
  });

  const rulesLayer = (origin: string, rules: unknown): ConfigLayer => ({
    origin,
    values: { conversation: { compaction: { rules } } } as ConfigTable,
  });

  it("appends configured rules layer after layer, the plain list form (test_vec_with_strategy)", () => {
    const merged = mergeConfigLayers([
      rulesLayer("user", [{ keep_last: 1 }]),
      rulesLayer("ws", [{ keep_last: 3 }, { keep_first: 2 }]),
    ]);
    expect(lookupConfig(merged.values, "conversation.compaction.rules")).toEqual([
      { keep_last: 1 },
      { keep_last: 3 },
      { keep_first: 2 },
    ]);
    expect(merged.origins.get("conversation.compaction.rules")).toBe("user + ws");
  });

  it.each([
    ["append", [{ a: 1 }, { b: 2 }]],
    ["prepend", [{ b: 2 }, { a: 1 }]],
    ["replace", [{ b: 2 }]],
  ])("accepts jp's {value, strategy} form: %s (test_vec_with_strategy)", (strategy, expected) => {
    const merged = mergeConfigLayers([
      rulesLayer("user", [{ a: 1 }]),
      rulesLayer("ws", { value: [{ b: 2 }], strategy }),
    ]);
    expect(lookupConfig(merged.values, "conversation.compaction.rules")).toEqual(expected);
    expect(merged.origins.get("conversation.compaction.rules")).toBe(
      strategy === "replace" ? "ws" : "user + ws",
    );
  });

  it("removes duplicates when a layer asks, and keeps doing so (test_dedup_removes_duplicates_on_append, test_dedup_sticky_across_non_discarded_merges)", () => {
    const merged = mergeConfigLayers([
      rulesLayer("user", { value: [{ a: 1 }], dedup: true }),
      rulesLayer("ws", [{ a: 1 }, { b: 2 }]),
      rulesLayer("-c", [{ b: 2 }]),
    ]);
    expect(lookupConfig(merged.values, "conversation.compaction.rules")).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("keeps duplicates without the flag (test_no_dedup_without_flag)", () => {
    const merged = mergeConfigLayers([rulesLayer("user", [{ a: 1 }]), rulesLayer("ws", [{ a: 1 }])]);
    expect(lookupConfig(merged.values, "conversation.compaction.rules")).toEqual([{ a: 1 }, { a: 1 }]);
  });

  it("forgets the origins under a table that a scalar replaces, and the reverse", () => {
    const merged = mergeConfigLayers([
      { origin: "one", values: { tools: { run: "ask", enable: true } } },
      { origin: "two", values: { tools: "off" } },
      { origin: "three", values: { other: 1 } },
    ]);
    expect(listConfigLeaves(merged)).toEqual([
      { key: "other", value: 1, origin: "three" },
      { key: "tools", value: "off", origin: "two" },
    ]);
    const back = mergeConfigLayers([
      { origin: "one", values: { tools: "off" } },
      { origin: "two", values: { tools: { run: "ask" } } },
    ]);
    expect([...back.origins.entries()]).toEqual([["tools.run", "two"]]);
  });

  it("does not modify its inputs", () => {
    const layer = { origin: "x", values: { a: { b: [1, 2] } } };
    const merged = mergeConfigLayers([layer, { origin: "y", values: { a: { c: 1 } } }]);
    (lookupConfig(merged.values, "a.b") as number[]).push(3);
    expect(layer.values).toEqual({ a: { b: [1, 2] } });
  });
});

describe("parseAssignment and value typing", () => {
  it.each([
    ["true", true],
    ["false", false],
    ["42", 42],
    ["-3", -3],
    ["1_000", 1000],
    ["0.25", 0.25],
    ["1e3", 1000],
    ['"42"', "42"],
    ["'quoted'", "quoted"],
    ['"with \\"escape\\""', 'with "escape"'],
    ["anthropic/claude-sonnet-4-6", "anthropic/claude-sonnet-4-6"],
    ["007", "007"],
    ["1.2.3", "1.2.3"],
    ['["a","b"]', ["a", "b"]],
    ['{"run":"ask"}', { run: "ask" }],
    ["[not json", "[not json"],
  ])("types %s", (text, expected) => {
    expect(parseConfigScalar(text)).toEqual(expected);
  });

  it("keeps arrays and tables as text for environment variables (scalars only)", () => {
    expect(parseConfigScalar('["a"]', { scalarsOnly: true })).toBe('["a"]');
    expect(parseConfigScalar("7", { scalarsOnly: true })).toBe(7);
  });

  it("parses dotted keys and keeps '=' inside the value", () => {
    expect(parseAssignment("assistant.model.id=openai/gpt-5")).toEqual({
      ok: true,
      path: ["assistant", "model", "id"],
      value: "openai/gpt-5",
    });
    expect(parseAssignment("assistant.instructions=a=b")).toMatchObject({ ok: true, value: "a=b" });
    expect(parseAssignment("conversation.tools.*.run=ask")).toMatchObject({
      ok: true,
      path: ["conversation", "tools", "*", "run"],
    });
  });

  it("rejects malformed keys and credential-like keys", () => {
    expect(parseAssignment("=value")).toMatchObject({ ok: false });
    expect(parseAssignment("no-equals")).toMatchObject({
      ok: false,
      message: "'no-equals' is not KEY=VALUE",
    });
    expect(parseAssignment("a..b=1")).toMatchObject({ ok: false });
    expect(parseAssignment("a b=1")).toMatchObject({ ok: false });
    const secret = parseAssignment("providers.anthropic.api_key=sk-123");
    expect(secret.ok).toBe(false);
    expect(!secret.ok && secret.message).toMatch(/looks like a credential/);
  });

  it("tells assignments from file paths", () => {
    expect(looksLikeAssignment("assistant.model.id=x")).toBe(true);
    expect(looksLikeAssignment("./my.toml")).toBe(false);
    expect(looksLikeAssignment("dir/a=b.toml")).toBe(false);
  });
});

describe("credential keys", () => {
  it.each([
    "api_key",
    "apikey",
    "openai_api_key",
    "API-KEY",
    "secret",
    "client_secret",
    "password",
    "access_token",
  ])("%s is a credential", (key) => expect(isSecretKey(key)).toBe(true));
  it.each(["max_tokens", "tokens", "model", "keep_last", "secrets_dir", "api"])("%s is not", (key) =>
    expect(isSecretKey(key)).toBe(false),
  );

  it("removes them at any depth and names what it removed", () => {
    const { table, removed } = removeSecretKeys({
      providers: { anthropic: { api_key: "sk", base_url: "http://x" } },
      password: "p",
    });
    expect(table).toEqual({ providers: { anthropic: { base_url: "http://x" } } });
    expect(removed).toEqual(["providers.anthropic.api_key", "password"]);
  });
});

describe("environment names", () => {
  it("maps double underscores to dots and lowercases", () => {
    expect(configPathFromEnvironmentName("CXC_ASSISTANT__MODEL__ID")).toEqual(["assistant", "model", "id"]);
    expect(configPathFromEnvironmentName("CXC_CONVERSATION__COMPACTION__AUTO__KEEP_LAST")).toEqual([
      "conversation",
      "compaction",
      "auto",
      "keep_last",
    ]);
  });

  it("ignores single-segment and foreign variables", () => {
    for (const name of [
      "CXC_HOME",
      "CXC_SESSION",
      "CXC_DEBUG",
      "HOME",
      "XCXC_A__B",
      "CXC_A____B",
      "CXC___A",
    ]) {
      expect(configPathFromEnvironmentName(name), name).toBeUndefined();
    }
  });
});

describe("lookupConfig and tableAt", () => {
  it("finds values by dotted path and builds nested tables", () => {
    const table = tableAt(["a", "b", "c"], 1);
    expect(table).toEqual({ a: { b: { c: 1 } } });
    expect(lookupConfig(table, "a.b.c")).toBe(1);
    expect(lookupConfig(table, ["a", "b"])).toEqual({ c: 1 });
    expect(lookupConfig(table, "a.b.c.d")).toBeUndefined();
    expect(lookupConfig(table, "x")).toBeUndefined();
  });
});
