/** Model ids, aliases, limits, provider settings, client creation and default model selection. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CxcError } from "../../src/errors.js";
import { lookupModelLimits, parseModelId, resolveModelAlias } from "../../src/llm/models.js";
import {
  createLlmClient,
  OLLAMA_DEFAULT_BASE_URL,
  probeOllama,
  providerKeyVariables,
  readLlmConfig,
  resolveModel,
  selectDefaultModel,
} from "../../src/llm/registry.js";
import { errorReply, type FakeProvider, startFakeProvider, textReply } from "../helpers/fake-provider.js";
import { collectEvents, textOf, userRequest } from "./stream-helpers.js";

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return CxcError.isInstance(error) ? error.code : "not-a-cxc-error";
  }
  return undefined;
}

async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return CxcError.isInstance(error) ? error.code : "not-a-cxc-error";
  }
  return undefined;
}

describe("model ids and aliases", () => {
  it("splits at the first slash", () => {
    expect(parseModelId("ollama/library/qwen3:8b")).toEqual({
      provider: "ollama",
      model: "library/qwen3:8b",
    });
    expect(codeOf(() => parseModelId("claude"))).toBe("unknown-model");
    expect(codeOf(() => parseModelId("anthropic/"))).toBe("unknown-model");
  });

  it("follows alias chains and rejects cycles", () => {
    const aliases = { fast: "quick", quick: "anthropic/claude-haiku-4-5", a: "b", b: "a" };
    expect(resolveModelAlias("fast", aliases)).toBe("anthropic/claude-haiku-4-5");
    expect(resolveModelAlias("openai/gpt-5", aliases)).toBe("openai/gpt-5");
    expect(codeOf(() => resolveModelAlias("a", aliases))).toBe("invalid-config");
  });

  it("looks up limits by exact name, dated snapshot, and override", () => {
    expect(lookupModelLimits({ provider: "anthropic", model: "claude-sonnet-4-5-20250929" })).toEqual({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(lookupModelLimits({ provider: "openai", model: "gpt-5-mini" }).contextWindow).toBe(400_000);
    expect(lookupModelLimits({ provider: "ollama", model: "qwen3:8b" })).toEqual({});
    expect(
      lookupModelLimits({ provider: "openai", model: "gpt-4o" }, { contextWindow: 5 }).contextWindow,
    ).toBe(5);
  });
});

describe("provider settings", () => {
  const config = {
    providers: {
      aliases: { local: "lab/llama" },
      lab: { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1", api_key_env: "LAB_KEY" },
      ollama: { models: { "qwen3:8b": { context_window: 32_768 } } },
    },
  };

  it("merges built-ins, config and environment", () => {
    const parsed = readLlmConfig(config);
    expect(resolveModel("local", parsed, {})).toMatchObject({
      id: "lab/llama",
      settings: { type: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "LAB_KEY" },
    });
    expect(resolveModel("ollama/qwen3:8b", parsed, {})).toMatchObject({
      contextWindow: 32_768,
      settings: { baseURL: OLLAMA_DEFAULT_BASE_URL },
    });
    const anthropic = resolveModel("anthropic/claude-opus-4-1", parsed, { ANTHROPIC_BASE_URL: "http://x" });
    expect(anthropic.settings).toMatchObject({ baseURL: "http://x", apiKeyEnv: "ANTHROPIC_API_KEY" });
    expect(codeOf(() => resolveModel("nowhere/m", parsed, {}))).toBe("unknown-model");
    expect(codeOf(() => readLlmConfig({ providers: { lab: { type: "grpc" } } }))).toBe("invalid-config");
  });

  it("names the key at fault and zod's English reason in a configuration error", () => {
    const messageOf = (config: unknown) => {
      try {
        readLlmConfig(config);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    };
    const at = (path: string, reason: string) => `Invalid configuration at ${path}: ${reason}.`;
    expect(messageOf({ providers: { lab: { type: "grpc" } } })).toBe(
      at(
        "providers.lab.type",
        'Invalid option: expected one of "anthropic"|"openai"|"openai-compatible"|"google"',
      ),
    );
    expect(messageOf({ providers: { lab: { base_url: "" } } })).toBe(
      at("providers.lab.base_url", "Too small: expected string to have >=1 characters"),
    );
    expect(messageOf({ providers: { lab: { models: { m: { context_window: 1.5 } } } } })).toBe(
      at("providers.lab.models.m.context_window", "Invalid input: expected int, received number"),
    );
    expect(messageOf({ providers: { lab: { models: { m: { max_output_tokens: 0 } } } } })).toBe(
      at("providers.lab.models.m.max_output_tokens", "Too small: expected number to be >0"),
    );
    expect(messageOf({ providers: { lab: { models: { m: { prices: { input: -1, output: 1 } } } } } })).toBe(
      at("providers.lab.models.m.prices.input", "Too small: expected number to be >=0"),
    );
    expect(messageOf({ providers: { aliases: { a: { provider: "x" } } } })).toBe(
      at("providers.aliases.a", "Invalid input"),
    );
    expect(messageOf({ assistant: { model: "x" } })).toBe(
      at("assistant.model", "Invalid input: expected object, received string"),
    );
    expect(messageOf([])).toBe(at("top level", "Invalid input: expected object, received array"));
    // jp's `{ provider, name }` ids, jp's alias table under cxc's own, unknown keys kept.
    expect(
      readLlmConfig({
        assistant: { model: { id: { provider: "a", name: "b" } } },
        providers: {
          aliases: { x: { provider: "p", name: "n" } },
          llm: { aliases: { y: "a/b", x: "c/d" } },
          lab: { type: "openai", extra: 1 },
        },
      }),
    ).toEqual({
      aliases: { y: "a/b", x: "p/n" },
      providers: { lab: { type: "openai", extra: 1 } },
      modelId: "a/b",
    });
  });

  it("needs the key variable of a keyed provider", () => {
    expect(codeOf(() => createLlmClient("anthropic/claude-sonnet-4-6", { env: {} }))).toBe("provider-auth");
    expect(codeOf(() => createLlmClient("ollama/qwen3:8b", { env: {} }))).toBeUndefined();
  });
});

describe("clients from the registry", () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(() => provider.close());

  it("sends the key from the environment to the base URL from the environment", async () => {
    provider.enqueue(textReply("from anthropic"), textReply("from openai"));
    const anthropic = createLlmClient("anthropic/claude-sonnet-4-6", {
      env: { ANTHROPIC_API_KEY: "secret-a", ANTHROPIC_BASE_URL: provider.anthropicBaseURL },
    });
    expect(anthropic.modelId).toBe("anthropic/claude-sonnet-4-6");
    expect(textOf(await collectEvents(anthropic.stream(userRequest("hi"))))).toBe("from anthropic");
    const openai = createLlmClient("openai/gpt-5", {
      env: { OPENAI_API_KEY: "secret-o", OPENAI_BASE_URL: provider.openaiBaseURL },
    });
    expect(textOf(await collectEvents(openai.stream(userRequest("hi"))))).toBe("from openai");
    expect(provider.requests[0]!.body).toMatchObject({ model: "claude-sonnet-4-6", max_tokens: 64_000 });
    expect(JSON.stringify(provider.requests[0]!.headers)).toContain("secret-a");
    expect(provider.requests[1]!.headers.authorization).toBe("Bearer secret-o");
  });

  it("fails at once on a server that cannot be reached, naming the URL and the setting or variable it came from", async () => {
    const closed = await startFakeProvider();
    const { anthropicBaseURL, openaiBaseURL } = closed;
    await closed.close();
    const retried: string[] = [];
    const retry = { sleep: async () => undefined, onRetry: () => retried.push("retry") };
    const cases: [string, Record<string, unknown>, Record<string, string>, string, string][] = [
      [
        "anthropic/claude-sonnet-4-6",
        {},
        { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: anthropicBaseURL },
        `Cannot reach ${anthropicBaseURL} (from ANTHROPIC_BASE_URL): the connection was refused`,
        `start the server at ${anthropicBaseURL}, or set ANTHROPIC_BASE_URL to one that runs`,
      ],
      [
        "openai/gpt-5",
        { providers: { openai: { base_url: openaiBaseURL } } },
        { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://not-this-one.invalid" },
        `Cannot reach ${openaiBaseURL} (from providers.openai.base_url): the connection was refused`,
        `start the server at ${openaiBaseURL}, or set providers.openai.base_url to one that runs`,
      ],
      [
        "lab/llama",
        { providers: { lab: { type: "openai-compatible", base_url: "http://cxc-test.invalid/v1" } } },
        {},
        "Cannot reach http://cxc-test.invalid/v1 (from providers.lab.base_url): the host name does not resolve",
        "check the host name (providers.lab.base_url) and the network, then try again",
      ],
      [
        // A port fetch blocks (9, 6000, 6667…) fails before any connection: no retry fixes it.
        "anthropic/claude-sonnet-4-6",
        {},
        { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:6000" },
        "Cannot reach http://127.0.0.1:6000 (from ANTHROPIC_BASE_URL): fetch never connects to this port (one of the ports browsers block, such as 6000)",
        "run the server on another port, and set ANTHROPIC_BASE_URL to it",
      ],
    ];
    for (const [id, config, env, message, hint] of cases) {
      const client = createLlmClient(id, { config, env, retry });
      const events = await collectEvents(client.stream(userRequest("hi")));
      expect(events).toEqual([
        { type: "error", error: expect.objectContaining({ kind: "network", message, hint }) },
      ]);
    }
    // Ollama's default URL is cxc's: the message says so.
    const ollama = readLlmConfig({});
    expect(resolveModel("ollama/qwen3:8b", ollama, {}).settings.baseURLSource).toEqual({
      kind: "default",
      name: "providers.ollama.base_url",
    });
    expect(retried).toEqual([]);
  });

  it("still retries what a retry can fix, through the real SDKs: 429, 5xx, a cut stream", async () => {
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: provider.anthropicBaseURL };
    const retried: string[] = [];
    const client = createLlmClient("anthropic/claude-sonnet-4-6", {
      env,
      retry: { sleep: async () => undefined, onRetry: (notice) => retried.push(notice.error.kind) },
    });
    provider.enqueue(
      errorReply(429),
      errorReply(500),
      { ...textReply("never finished"), cutAfterEvents: 1 },
      textReply("at last"),
    );
    expect(textOf(await collectEvents(client.stream(userRequest("hi"))))).toBe("at last");
    expect(retried).toEqual(["rate-limit", "other", "network"]);
  });

  it("speaks Responses to OpenAI and Chat Completions to compatible servers, unless `api` says otherwise", async () => {
    provider.requests.length = 0;
    const env = { OPENAI_API_KEY: "k", OPENAI_BASE_URL: provider.openaiBaseURL };
    const lab = { type: "openai-compatible", base_url: provider.openaiBaseURL };
    const cases: [string, unknown, string][] = [
      ["openai/gpt-5-codex", {}, "/v1/responses"],
      ["openai/gpt-4.1", { providers: { openai: { api: "chat" } } }, "/v1/chat/completions"],
      ["lab/llama", { providers: { lab } }, "/v1/chat/completions"],
      ["lab/gpt-oss", { providers: { lab: { ...lab, api: "responses" } } }, "/v1/responses"],
    ];
    for (const [id, config] of cases) {
      provider.enqueue(textReply("ok"));
      const client = createLlmClient(id, { config, env, retry: false });
      expect(textOf(await collectEvents(client.stream(userRequest("hi"))))).toBe("ok");
    }
    expect(provider.requests.map((request) => request.path)).toEqual(cases.map(([, , path]) => path));
    // Reasoning parameters go to reasoning models only (gpt-4.1 would refuse them), or as configured.
    expect(provider.requests[0]!.body).toMatchObject({ reasoning: { summary: "auto" } });
    expect(provider.requests[3]!.body).toMatchObject({ model: "gpt-oss", store: false });
    expect(provider.requests[3]!.body).not.toHaveProperty("reasoning");
    const configured = readLlmConfig({ providers: { lab: { ...lab, models: { m: { reasoning: true } } } } });
    expect(resolveModel("lab/m", configured, {}).reasoning).toBe(true);
    expect(codeOf(() => readLlmConfig({ providers: { openai: { api: "completions" } } }))).toBe(
      "invalid-config",
    );
  });

  it("probes an OpenAI-compatible model list, and fails fast on nothing", async () => {
    const fake = await startFakeProvider();
    expect(await probeOllama(fake.openaiBaseURL)).toBeUndefined();
    await fake.close();
    expect(await probeOllama(fake.openaiBaseURL, 200)).toBeUndefined();
  });
});

describe("selectDefaultModel", () => {
  const noOllama = async () => undefined;
  const ollamaWith = (models: string[]) => async () => models;

  it("prefers the configured model, then Anthropic, OpenAI, Google and Ollama", async () => {
    const both = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" };
    const configured = {
      assistant: { model: { id: "fast" } },
      providers: { aliases: { fast: "openai/gpt-4o" } },
    };
    expect(await selectDefaultModel({ config: configured, env: both, probeOllama: noOllama })).toBe(
      "openai/gpt-4o",
    );
    expect(await selectDefaultModel({ env: both, probeOllama: noOllama })).toBe(
      "anthropic/claude-sonnet-4-6",
    );
    expect(await selectDefaultModel({ env: { OPENAI_API_KEY: "o" }, probeOllama: noOllama })).toBe(
      "openai/gpt-5",
    );
    for (const key of ["GEMINI_API_KEY", "GOOGLE_API_KEY"]) {
      expect(await selectDefaultModel({ env: { [key]: "g" }, probeOllama: noOllama })).toBe(
        "google/gemini-2.5-pro",
      );
    }
    expect(await selectDefaultModel({ env: {}, probeOllama: ollamaWith(["qwen3:8b", "llama3"]) })).toBe(
      "ollama/qwen3:8b",
    );
  });

  it("knows Gemini's windows and which Gemini models think", () => {
    expect(resolveModel("google/gemini-2.5-flash-preview-09-2025", readLlmConfig({}), {})).toMatchObject({
      contextWindow: 1_048_576,
      maxOutputTokens: 65_536,
      reasoning: true,
      settings: {
        type: "google",
        api: "google",
        apiKeyEnv: "GEMINI_API_KEY",
        alternateKeyEnvs: ["GOOGLE_API_KEY"],
      },
    });
    expect(resolveModel("google/gemini-2.0-flash", readLlmConfig({}), {}).reasoning).toBe(false);
    expect(providerKeyVariables({})).toEqual(expect.arrayContaining(["GEMINI_API_KEY", "GOOGLE_API_KEY"]));
  });

  it("names the three ways when nothing is configured", async () => {
    expect(await rejectionCode(selectDefaultModel({ env: {}, probeOllama: ollamaWith([]) }))).toBe(
      "no-model-configured",
    );
    try {
      await selectDefaultModel({ env: {}, probeOllama: noOllama });
    } catch (error) {
      const hint = (error as CxcError).hint ?? "";
      expect(hint).toContain("ANTHROPIC_API_KEY");
      expect(hint).toContain("OPENAI_API_KEY");
      expect(hint).toContain("GEMINI_API_KEY");
      expect(hint).toContain("Ollama");
    }
  });
});
