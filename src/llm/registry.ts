/**
 * From configuration and environment to a ready `LlmClient`.
 *
 * Providers are an explicit map from wire API to factory (no registration by import side effect).
 * Four providers exist without configuration: `anthropic`, `openai`, `google` (the Gemini API)
 * and `ollama` (OpenAI-compatible at http://localhost:11434/v1). Any other name is configured under
 * `providers.<name>` with a `type` and usually a `base_url`. An OpenAI provider speaks one of two
 * wire APIs, `providers.<name>.api`: the Responses API (`responses`, the default for `openai`) or
 * Chat Completions (`chat`, the default for `openai-compatible` servers).
 *
 * The environment is passed in as a record, never read here, and API keys only ever travel from
 * that record into the SDK client; nothing in this module writes them anywhere.
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import type { PriceSource } from "../core/prices.js";
import { onFirstUse } from "../core/zod-schema.js";
import { CxcError } from "../errors.js";
import { createAnthropicClient } from "./anthropic.js";
import { createAnthropicCompactor, type NativeCompactor } from "./anthropic-compaction.js";
import { describeUnreachable } from "./errors.js";
import { withIdleTimeout } from "./idle-timeout.js";
import {
  DEFAULT_MODELS,
  isReasoningModel,
  type ModelId,
  type ModelLimits,
  lookupModelLimits,
  lookupModelPrices,
  PRICES_AS_OF,
  parseModelId,
  resolveModelAlias,
  takesTools,
  hasNativeCompaction,
} from "./models.js";
import { createGoogleClient } from "./google.js";
import { createOpenAIClient } from "./openai.js";
import { createResponsesClient } from "./responses.js";
import { type RetryOptions, withRetry } from "./retry.js";
import type { LlmClient } from "./types.js";

/** The kinds of provider cxc knows. */
export type ProviderType = "anthropic" | "openai" | "openai-compatible" | "google";

/** The wire APIs cxc speaks: one adapter each (`google`: the Gemini API's generateContent). */
export type WireApi = "anthropic" | "responses" | "chat" | "google";

/** The environment variables cxc may read, passed in by the shell. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Default base URL of a local Ollama's OpenAI-compatible API. */
export const OLLAMA_DEFAULT_BASE_URL = "http://localhost:11434/v1";

/**
 * Builds the schemas of the keys this module reads. Built on first use, with zod/mini like the
 * event schemas (docs/decisions/003-zod-mini-for-events.md): every `q` turn reads these keys, and
 * the classic API's schemas cost several times more to build and first run than the same checks
 * through zod/mini; the validation core and its English messages are the same.
 */
function buildLlmConfigSchemas() {
  const positiveInt = () => z.optional(z.number().check(z.int(), z.positive()));
  const price = () => z.number().check(z.nonnegative());
  const ProviderConfigSchema = z.looseObject({
    type: z.optional(z.enum(["anthropic", "openai", "openai-compatible", "google"])),
    base_url: z.optional(z.string().check(z.minLength(1))),
    api_key_env: z.optional(z.string().check(z.minLength(1))),
    api: z.optional(z.enum(["responses", "chat"])),
    /**
     * Anthropic's context editing, passed through as the user wrote it (`{edits: [...]}`, e.g.
     * `clear_tool_uses_20250919`), with its beta; docs/native-compaction.md.
     */
    context_management: z.optional(
      z.looseObject({ edits: z.array(z.looseObject({ type: z.string().check(z.minLength(1)) })) }),
    ),
    models: z.optional(
      z.record(
        z.string(),
        z.looseObject({
          context_window: positiveInt(),
          max_output_tokens: positiveInt(),
          reasoning: z.optional(z.boolean()),
          tools: z.optional(z.boolean()),
          native_compaction: z.optional(z.boolean()),
          /** Dollars per million tokens; the cache's default to input. */
          prices: z.optional(
            z.looseObject({
              input: price(),
              output: price(),
              cache_read: z.optional(price()),
              cache_write: z.optional(price()),
            }),
          ),
        }),
      ),
    ),
  });

  /** A model id: `provider/name`, an alias, or jp's `{ provider, name }` table. */
  const ModelIdSchema = z.union([
    z.string().check(z.minLength(1)),
    z.pipe(
      z.looseObject({ provider: z.string().check(z.minLength(1)), name: z.string().check(z.minLength(1)) }),
      z.transform((id) => `${id.provider}/${id.name}`),
    ),
  ]);

  const AliasesSchema = z.record(z.string(), ModelIdSchema);

  const LlmConfigSchema = z.looseObject({
    providers: z.optional(
      z.catchall(
        z.looseObject({
          aliases: z.optional(AliasesSchema),
          // jp's key for the same table; cxc's own `providers.aliases` wins where both name an alias.
          llm: z.optional(z.looseObject({ aliases: z.optional(AliasesSchema) })),
        }),
        z.unknown(),
      ),
    ),
    assistant: z.optional(
      z.looseObject({ model: z.optional(z.looseObject({ id: z.optional(ModelIdSchema) })) }),
    ),
  });
  return { ProviderConfigSchema, LlmConfigSchema };
}

const llmConfigSchemas = onFirstUse(buildLlmConfigSchemas);

/** One provider's table as read from `providers.<name>`. */
type ProviderConfig = z.infer<ReturnType<typeof buildLlmConfigSchemas>["ProviderConfigSchema"]>;

/** zod/mini registers no locale of its own: the English messages the classic API gives. */
const englishMessages = onFirstUse(() => ({ error: en().localeError }));

/** Settings for one provider after merging built-in defaults, config and environment. */
export interface ProviderSettings {
  readonly name: string;
  readonly type: ProviderType;
  /** The wire API its models are reached through. */
  readonly api: WireApi;
  readonly baseURL?: string;
  /**
   * Where `baseURL` came from, as the user would change it: the setting
   * (`providers.<name>.base_url`), the environment variable (`ANTHROPIC_BASE_URL`), or cxc's
   * default for the provider (Ollama's); unset with no `baseURL` (the SDK's own endpoint).
   */
  readonly baseURLSource?: { readonly kind: "setting" | "variable" | "default"; readonly name: string };
  /** Name of the environment variable holding the key; unset for keyless local servers. */
  readonly apiKeyEnv?: string;
  /**
   * Variables read, in order, when `apiKeyEnv` is unset or empty (Google's `GOOGLE_API_KEY` after
   * `GEMINI_API_KEY`); none when `providers.<name>.api_key_env` names the variable.
   */
  readonly alternateKeyEnvs?: readonly string[];
  /** `providers.<name>.context_management`, sent as written on every Messages request. */
  readonly contextManagement?: Readonly<Record<string, unknown>>;
}

type BuiltInProvider = Omit<ProviderSettings, "api"> & { baseURLEnv?: string };

const BUILT_IN_PROVIDERS: Readonly<Record<string, BuiltInProvider>> = {
  anthropic: {
    name: "anthropic",
    type: "anthropic",
    apiKeyEnv: "ANTHROPIC_API_KEY",
    baseURLEnv: "ANTHROPIC_BASE_URL",
  },
  openai: { name: "openai", type: "openai", apiKeyEnv: "OPENAI_API_KEY", baseURLEnv: "OPENAI_BASE_URL" },
  // The Gemini API. Google's SDK, left to itself, prefers GOOGLE_API_KEY when both are set; cxc
  // reads GEMINI_API_KEY first (the name Gemini CLI and Google's docs use) and passes the key in.
  google: {
    name: "google",
    type: "google",
    apiKeyEnv: "GEMINI_API_KEY",
    alternateKeyEnvs: ["GOOGLE_API_KEY"],
    baseURLEnv: "GOOGLE_GEMINI_BASE_URL",
  },
  ollama: { name: "ollama", type: "openai-compatible", baseURL: OLLAMA_DEFAULT_BASE_URL },
};

/**
 * The wire API of a provider: Anthropic's own; for OpenAI's kinds the configured `api`, else
 * Responses for OpenAI itself and Chat Completions for compatible servers (Ollama, vLLM,
 * llama.cpp), most of which serve only that.
 */
export function wireApiOf(type: ProviderType, api: "responses" | "chat" | undefined): WireApi {
  if (type === "anthropic" || type === "google") return type;
  return api ?? (type === "openai" ? "responses" : "chat");
}

/** What a factory needs to build a client. */
export interface ClientSettings {
  readonly modelId: string;
  readonly model: string;
  readonly type: ProviderType;
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly maxOutputTokens?: number;
  /** Whether the model reasons (Responses: ask for summaries and encrypted reasoning). */
  readonly reasoning: boolean;
  /** Anthropic's context editing as the user configured it (`providers.<name>.context_management`). */
  readonly contextManagement?: Readonly<Record<string, unknown>>;
}

/** One factory per wire API. */
export const clientFactories = {
  anthropic: (settings: ClientSettings) =>
    createAnthropicClient({ ...settings, apiKey: settings.apiKey ?? "" }),
  responses: (settings: ClientSettings) => createResponsesClient(settings),
  chat: (settings: ClientSettings) =>
    createOpenAIClient(
      settings.type === "openai-compatible" ? { ...settings, maxTokensField: "max_tokens" } : settings,
    ),
  google: (settings: ClientSettings) => createGoogleClient({ ...settings, apiKey: settings.apiKey ?? "" }),
} satisfies Record<WireApi, (settings: ClientSettings) => LlmClient>;

/** The parsed `providers` and `assistant.model` parts of a configuration object. */
export interface LlmConfig {
  readonly aliases: Readonly<Record<string, string>>;
  readonly providers: Readonly<Record<string, ProviderConfig>>;
  readonly modelId?: string;
}

/** Reads the keys this module uses from a plain (TOML-shaped) configuration object. */
export function readLlmConfig(config: unknown): LlmConfig {
  const { LlmConfigSchema, ProviderConfigSchema } = llmConfigSchemas();
  const parsed = LlmConfigSchema.safeParse(config ?? {}, englishMessages());
  if (!parsed.success) throw invalidConfig(parsed.error.issues[0]);
  const { aliases: ownAliases = {}, llm, ...rest } = parsed.data.providers ?? {};
  const aliases = { ...(llm?.aliases ?? {}), ...ownAliases };
  const providers: Record<string, ProviderConfig> = {};
  // `providers.llm` is jp's table (its aliases are read above), not a provider named `llm`.
  for (const [name, value] of Object.entries(rest)) {
    const provider = ProviderConfigSchema.safeParse(value, englishMessages());
    if (!provider.success) throw invalidConfig(provider.error.issues[0], `providers.${name}`);
    providers[name] = provider.data;
  }
  const modelId = parsed.data.assistant?.model?.id;
  return modelId === undefined ? { aliases, providers } : { aliases, providers, modelId };
}

/**
 * Every environment variable that holds a provider key under this configuration: the built-in
 * providers' and each `providers.<name>.api_key_env`. Local command tools never get these.
 */
export function providerKeyVariables(config: unknown): string[] {
  const names = new Set<string>();
  for (const provider of Object.values(BUILT_IN_PROVIDERS)) {
    if (provider.apiKeyEnv) names.add(provider.apiKeyEnv);
    for (const name of provider.alternateKeyEnvs ?? []) names.add(name);
  }
  for (const provider of Object.values(readLlmConfig(config).providers)) {
    if (provider.api_key_env) names.add(provider.api_key_env);
  }
  return [...names];
}

function invalidConfig(issue: z.core.$ZodIssue | undefined, prefix?: string): CxcError {
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter(Boolean).join(".");
  return new CxcError(
    "invalid-config",
    `Invalid configuration at ${path || "top level"}: ${issue?.message}.`,
  );
}

/** The settings of a provider by name; an unknown name is an `unknown-model` error. */
export function resolveProviderSettings(name: string, config: LlmConfig, env: Environment): ProviderSettings {
  const builtIn = BUILT_IN_PROVIDERS[name];
  const configured = config.providers[name];
  const type = configured?.type ?? builtIn?.type;
  if (type === undefined) {
    throw new CxcError("unknown-model", `Unknown provider "${name}".`, {
      hint: `use anthropic, openai, google or ollama, or configure providers.${name}.type and providers.${name}.base_url`,
    });
  }
  const envBaseURL = builtIn?.baseURLEnv === undefined ? undefined : env[builtIn.baseURLEnv];
  const setting = `providers.${name}.base_url`;
  const [baseURL, baseURLSource]: [string | undefined, ProviderSettings["baseURLSource"]] =
    configured?.base_url !== undefined
      ? [configured.base_url, { kind: "setting", name: setting }]
      : envBaseURL
        ? [envBaseURL, { kind: "variable", name: builtIn!.baseURLEnv! }]
        : builtIn?.baseURL !== undefined
          ? [builtIn.baseURL, { kind: "default", name: setting }]
          : [undefined, undefined];
  const apiKeyEnv = configured?.api_key_env ?? builtIn?.apiKeyEnv;
  const alternates = configured?.api_key_env === undefined ? builtIn?.alternateKeyEnvs : undefined;
  return {
    name,
    type,
    api: wireApiOf(type, configured?.api),
    ...(baseURL === undefined ? {} : { baseURL, baseURLSource }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
    ...(alternates === undefined ? {} : { alternateKeyEnvs: alternates }),
    ...(configured?.context_management === undefined
      ? {}
      : { contextManagement: configured.context_management }),
  };
}

/** The endpoints the SDKs use when cxc gives them no base URL. */
const SDK_ENDPOINTS: Readonly<Record<ProviderType, string>> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  "openai-compatible": "https://api.openai.com/v1",
  google: "https://generativelanguage.googleapis.com",
};

/**
 * A server that cannot be reached fails at once, its error naming the URL and the setting or
 * variable it came from: no retry fixes a wrong URL or a server that is not running.
 */
function nameUnreachableServer(client: LlmClient, settings: ProviderSettings): LlmClient {
  const url = settings.baseURL ?? SDK_ENDPOINTS[settings.type];
  const source = settings.baseURLSource;
  const setting = `providers.${settings.name}.base_url`;
  const variable = BUILT_IN_PROVIDERS[settings.name]?.baseURLEnv;
  const origin =
    source === undefined
      ? `${settings.name}'s own endpoint; ${variable === undefined ? "" : `${variable} or `}${setting} sets another`
      : source.kind === "default"
        ? `cxc's default for ${settings.name}; ${setting} sets another`
        : `from ${source.name}`;
  const change = source?.kind === "variable" || source?.kind === "setting" ? source.name : setting;
  return {
    modelId: client.modelId,
    async *stream(request, options) {
      for await (const event of client.stream(request, options)) {
        if (event.type !== "error" || event.error.unreachable === undefined) {
          yield event;
          continue;
        }
        yield {
          type: "error",
          error: {
            ...event.error,
            message: `Cannot reach ${url} (${origin}): ${describeUnreachable(event.error.unreachable)}`,
            hint:
              event.error.unreachable === "unresolvable"
                ? `check the host name (${change}) and the network, then try again`
                : event.error.unreachable === "blocked-port"
                  ? `run the server on another port, and set ${change} to it`
                  : `start the server at ${url}, or set ${change} to one that runs`,
          },
        };
      }
    },
  };
}

/** A resolved model: its full id, parts, limits and provider settings. */
export interface ResolvedModel extends ModelId, ModelLimits {
  readonly id: string;
  /** Whether the model reasons: `providers.<name>.models.<model>.reasoning`, else the table. */
  readonly reasoning: boolean;
  /** Whether the model takes tools: `providers.<name>.models.<model>.tools`, else the table (yes). */
  readonly tools: boolean;
  /**
   * Whether it has Anthropic's on-demand compaction: `providers.<name>.models.<model>.native_compaction`,
   * else the table (`hasNativeCompaction`); undefined: unknown.
   */
  readonly nativeCompaction?: boolean;
  /** Where `contextWindow` came from: cxc's model table or the configuration. */
  readonly contextWindowSource?: "known" | "configured";
  /** Its prices: `providers.<name>.models.<model>.prices`, else cxc's table (`PRICES_AS_OF`). */
  readonly prices?: PriceSource;
  readonly settings: ProviderSettings;
}

/** Resolves an id or alias against the configuration. */
export function resolveModel(idOrAlias: string, config: LlmConfig, env: Environment): ResolvedModel {
  const id = resolveModelAlias(idOrAlias, config.aliases);
  const parsed = parseModelId(id);
  const settings = resolveProviderSettings(parsed.provider, config, env);
  const override = config.providers[parsed.provider]?.models?.[parsed.model];
  const limits = lookupModelLimits(parsed, {
    ...(override?.context_window === undefined ? {} : { contextWindow: override.context_window }),
    ...(override?.max_output_tokens === undefined ? {} : { maxOutputTokens: override.max_output_tokens }),
  });
  const contextWindowSource =
    override?.context_window !== undefined
      ? "configured"
      : limits.contextWindow === undefined
        ? undefined
        : "known";
  const configured = override?.prices;
  const known = configured === undefined ? lookupModelPrices(parsed) : undefined;
  const prices: PriceSource | undefined =
    configured !== undefined
      ? {
          modelId: id,
          source: "configured",
          prices: {
            input: configured.input,
            output: configured.output,
            cacheRead: configured.cache_read ?? configured.input,
            cacheWrite: configured.cache_write ?? configured.input,
          },
        }
      : known === undefined
        ? undefined
        : { modelId: id, source: "known", asOf: PRICES_AS_OF, prices: known };
  return {
    id,
    ...parsed,
    ...limits,
    ...(prices === undefined ? {} : { prices }),
    reasoning: override?.reasoning ?? isReasoningModel(parsed),
    tools: override?.tools ?? takesTools(parsed),
    ...nativeCompactionOf(override?.native_compaction ?? hasNativeCompaction(parsed)),
    ...(contextWindowSource === undefined ? {} : { contextWindowSource }),
    settings,
  };
}

function nativeCompactionOf(value: boolean | undefined): { nativeCompaction?: boolean } {
  return value === undefined ? {} : { nativeCompaction: value };
}

/** Options of `createLlmClient`. */
export interface CreateClientOptions {
  readonly config?: unknown;
  readonly env: Environment;
  /** Retry tunables; `false` returns the bare adapter. */
  readonly retry?: RetryOptions | false;
  /** Silence allowed between stream events before a `timeout` error (default 60 s). */
  readonly idleTimeoutMs?: number;
}

/** The key of a provider from the environment: its variable, else its alternates, in order. */
export function readProviderKey(settings: ProviderSettings, env: Environment): string | undefined {
  if (settings.apiKeyEnv === undefined) return undefined;
  for (const name of [settings.apiKeyEnv, ...(settings.alternateKeyEnvs ?? [])]) {
    const value = env[name];
    if (value) return value;
  }
  return undefined;
}

/** Builds a client for a model id or alias. A missing key is a `provider-auth` error. */
export function createLlmClient(idOrAlias: string, options: CreateClientOptions): LlmClient {
  const config = readLlmConfig(options.config);
  const model = resolveModel(idOrAlias, config, options.env);
  const apiKey = readProviderKey(model.settings, options.env);
  if (model.settings.apiKeyEnv !== undefined && !apiKey) {
    const alternates = (model.settings.alternateKeyEnvs ?? []).map((name) => ` or ${name}`).join("");
    throw new CxcError(
      "provider-auth",
      `Missing environment variable ${model.settings.apiKeyEnv}${alternates}.`,
      {
        hint: `export ${model.settings.apiKeyEnv}=… to use ${model.id}`,
      },
    );
  }
  const client = clientFactories[model.settings.api]({
    modelId: model.id,
    model: model.model,
    type: model.settings.type,
    reasoning: model.reasoning,
    ...(apiKey ? { apiKey } : {}),
    ...(model.settings.baseURL === undefined ? {} : { baseURL: model.settings.baseURL }),
    ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }),
    ...(model.settings.contextManagement === undefined
      ? {}
      : { contextManagement: model.settings.contextManagement }),
  });
  const guarded = nameUnreachableServer(withIdleTimeout(client, options.idleTimeoutMs), model.settings);
  return options.retry === false ? guarded : withRetry(guarded, options.retry ?? {});
}

/** Lists the models of a local Ollama, or undefined when it does not answer in time. */
export type OllamaProbe = (baseURL: string) => Promise<readonly string[] | undefined>;

/** Options of `selectDefaultModel`. */
export interface SelectDefaultModelOptions {
  readonly config?: unknown;
  readonly env: Environment;
  /** Defaults to `probeOllama` with a short timeout. */
  readonly probeOllama?: OllamaProbe;
}

/**
 * The model to use when none was asked for: `assistant.model.id` if configured, else the first
 * available of Anthropic (key present), OpenAI (key present), Google (key present) and a reachable
 * Ollama (its first model). Otherwise a `no-model-configured` error naming the ways.
 */
export async function selectDefaultModel(options: SelectDefaultModelOptions): Promise<string> {
  const config = readLlmConfig(options.config);
  if (config.modelId !== undefined) return resolveModelAlias(config.modelId, config.aliases);
  const anthropic = resolveProviderSettings("anthropic", config, options.env);
  if (anthropic.apiKeyEnv && options.env[anthropic.apiKeyEnv]) return DEFAULT_MODELS.anthropic;
  const openai = resolveProviderSettings("openai", config, options.env);
  if (openai.apiKeyEnv && options.env[openai.apiKeyEnv]) return DEFAULT_MODELS.openai;
  if (readProviderKey(resolveProviderSettings("google", config, options.env), options.env)) {
    return DEFAULT_MODELS.google;
  }
  const ollama = resolveProviderSettings("ollama", config, options.env);
  const models = await (options.probeOllama ?? probeOllama)(ollama.baseURL ?? OLLAMA_DEFAULT_BASE_URL);
  if (models !== undefined && models.length > 0) return `ollama/${models[0]}`;
  throw new CxcError("no-model-configured", "No model is configured.", {
    hint: "set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or start Ollama with a pulled model (or set assistant.model.id)",
  });
}

/** Asks an OpenAI-compatible server for its models (`GET <base>/models`), giving up after `timeoutMs`. */
export async function probeOllama(baseURL: string, timeoutMs = 300): Promise<readonly string[] | undefined> {
  try {
    const response = await fetch(`${baseURL.replace(/\/+$/, "")}/models`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    return (body.data ?? []).flatMap((entry) => (typeof entry.id === "string" ? [entry.id] : []));
  } catch {
    return undefined;
  }
}

/** A model's native compactor, or why it has none (the caller says it and writes cxc's summary). */
export type NativeCompactorChoice =
  | { readonly ok: true; readonly compactor: NativeCompactor; readonly known: boolean }
  | { readonly ok: false; readonly reason: string };

/**
 * The on-demand compactor of a model (Anthropic's Messages API only): refused when the model is
 * reached another way or the model table (or `providers.<p>.models.<m>.native_compaction`) says it
 * has none; `known` false when cxc does not know, and tries. A missing key is `provider-auth`.
 */
export function createNativeCompactor(
  idOrAlias: string,
  options: Pick<CreateClientOptions, "config" | "env"> & {
    readonly sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  },
): NativeCompactorChoice {
  const config = readLlmConfig(options.config);
  const model = resolveModel(idOrAlias, config, options.env);
  if (model.settings.api !== "anthropic") {
    return {
      ok: false,
      reason: `${model.id} has no on-demand compaction cxc can call (only Anthropic's Messages API has one)`,
    };
  }
  if (model.nativeCompaction === false) {
    return {
      ok: false,
      reason: `${model.id} has no on-demand compaction (set providers.${model.provider}.models.${model.model}.native_compaction = true if it has)`,
    };
  }
  const apiKey = readProviderKey(model.settings, options.env);
  if (model.settings.apiKeyEnv !== undefined && !apiKey) {
    throw new CxcError("provider-auth", `Missing environment variable ${model.settings.apiKeyEnv}.`, {
      hint: `export ${model.settings.apiKeyEnv}=… to use ${model.id}`,
    });
  }
  return {
    ok: true,
    known: model.nativeCompaction === true,
    compactor: createAnthropicCompactor({
      modelId: model.id,
      model: model.model,
      apiKey: apiKey ?? "",
      ...(model.settings.baseURL === undefined ? {} : { baseURL: model.settings.baseURL }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    }),
  };
}
