/**
 * Model ids and what cxc knows about models without asking a provider.
 *
 * A model id is `provider/model`, split at the first `/` (the model part may contain more, as in
 * `ollama/library/qwen3:8b`). Aliases map a short name to a full id and may chain; cycles are an
 * error. The static table gives context windows and output limits of current Anthropic, OpenAI
 * and Google models; config (`providers.<name>.models.<model>.*`) overrides it, and dated snapshots
 * (`claude-sonnet-4-5-20250929`) match their family by the longest known prefix.
 */
import type { TokenPrices } from "../core/prices.js";
import { CxcError } from "../errors.js";

/** A parsed model id. */
export interface ModelId {
  readonly provider: string;
  readonly model: string;
}

/** What is known about a model's limits. Unknown limits are left out. */
export interface ModelLimits {
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

/** Limits as of this writing; providers change them, so config can override every entry. */
const KNOWN_MODELS: Readonly<Record<string, Readonly<Record<string, ModelLimits>>>> = {
  anthropic: {
    "claude-opus-4-6": { contextWindow: 200_000, maxOutputTokens: 128_000 },
    "claude-sonnet-4-6": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-1": { contextWindow: 200_000, maxOutputTokens: 32_000 },
    "claude-opus-4-0": { contextWindow: 200_000, maxOutputTokens: 32_000 },
    "claude-opus-4": { contextWindow: 200_000, maxOutputTokens: 32_000 },
    "claude-sonnet-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4-0": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-haiku-4-5": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-3-7-sonnet": { contextWindow: 200_000, maxOutputTokens: 64_000 },
    "claude-3-5-haiku": { contextWindow: 200_000, maxOutputTokens: 8_192 },
  },
  openai: {
    "gpt-5": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-5-mini": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-5-nano": { contextWindow: 400_000, maxOutputTokens: 128_000 },
    "gpt-4.1": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-4.1-mini": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-4.1-nano": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384 },
    "gpt-4o-mini": { contextWindow: 128_000, maxOutputTokens: 16_384 },
    o3: { contextWindow: 200_000, maxOutputTokens: 100_000 },
    "o3-mini": { contextWindow: 200_000, maxOutputTokens: 100_000 },
    "o4-mini": { contextWindow: 200_000, maxOutputTokens: 100_000 },
  },
  google: {
    "gemini-3-pro": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-3-flash": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-pro": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-flash": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-flash-lite": { contextWindow: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.0-flash": { contextWindow: 1_048_576, maxOutputTokens: 8_192 },
    "gemini-2.0-flash-lite": { contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  },
};

/**
 * The day the price table below was checked. Prices are US dollars per million tokens for prompts
 * within the window the table gives (Gemini 2.5 Pro and 3 Pro, and Claude Sonnet 4.x beyond 200k
 * when enabled, charge more above 200k; cxc does not model that). Writing to the cache costs
 * Anthropic 1.25 × input (five-minute cache) and the others ordinary input (their caching is
 * implicit). They agree with pi-ai 0.73.1's model table. Config overrides every entry
 * (`providers.<name>.models.<model>.prices`).
 */
export const PRICES_AS_OF = "2026-12-03";

/** `[input, output, cache read, cache write]` in dollars per million tokens. */
type PriceRow = readonly [number, number, number, number];

const KNOWN_PRICES: Readonly<Record<string, Readonly<Record<string, PriceRow>>>> = {
  anthropic: {
    "claude-opus-4-6": [5, 25, 0.5, 6.25],
    "claude-sonnet-4-6": [3, 15, 0.3, 3.75],
    "claude-opus-4-5": [5, 25, 0.5, 6.25],
    "claude-opus-4-1": [15, 75, 1.5, 18.75],
    "claude-opus-4-0": [15, 75, 1.5, 18.75],
    "claude-opus-4": [15, 75, 1.5, 18.75],
    "claude-sonnet-4-5": [3, 15, 0.3, 3.75],
    "claude-sonnet-4-0": [3, 15, 0.3, 3.75],
    "claude-sonnet-4": [3, 15, 0.3, 3.75],
    "claude-haiku-4-5": [1, 5, 0.1, 1.25],
    "claude-3-7-sonnet": [3, 15, 0.3, 3.75],
    "claude-3-5-haiku": [0.8, 4, 0.08, 1],
  },
  openai: {
    "gpt-5": [1.25, 10, 0.125, 1.25],
    "gpt-5-mini": [0.25, 2, 0.025, 0.25],
    "gpt-5-nano": [0.05, 0.4, 0.005, 0.05],
    "gpt-4.1": [2, 8, 0.5, 2],
    "gpt-4.1-mini": [0.4, 1.6, 0.1, 0.4],
    "gpt-4.1-nano": [0.1, 0.4, 0.025, 0.1],
    "gpt-4o": [2.5, 10, 1.25, 2.5],
    "gpt-4o-mini": [0.15, 0.6, 0.075, 0.15],
    o3: [2, 8, 0.5, 2],
    "o3-mini": [1.1, 4.4, 0.55, 1.1],
    "o4-mini": [1.1, 4.4, 0.275, 1.1],
  },
  google: {
    "gemini-3-pro": [2, 12, 0.2, 2],
    "gemini-3-flash": [0.5, 3, 0.05, 0.5],
    "gemini-2.5-pro": [1.25, 10, 0.125, 1.25],
    "gemini-2.5-flash": [0.3, 2.5, 0.03, 0.3],
    "gemini-2.5-flash-lite": [0.1, 0.4, 0.025, 0.1],
    "gemini-2.0-flash": [0.1, 0.4, 0.025, 0.1],
    "gemini-2.0-flash-lite": [0.075, 0.3, 0.075, 0.075],
  },
};

/** An entry of `table` by exact name, else by the longest known prefix followed by `-`. */
function lookupByName<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  const known = table[model];
  if (known !== undefined) return known;
  const prefix = Object.keys(table)
    .filter((name) => model.startsWith(`${name}-`))
    .sort((left, right) => right.length - left.length)[0];
  return prefix === undefined ? undefined : table[prefix];
}

/** The prices cxc's table gives a model (see `PRICES_AS_OF`), or undefined for a model it lacks. */
export function lookupModelPrices(id: ModelId): TokenPrices | undefined {
  const row = lookupByName(KNOWN_PRICES[id.provider] ?? {}, id.model);
  return row === undefined
    ? undefined
    : { input: row[0], output: row[1], cacheRead: row[2], cacheWrite: row[3] };
}

/**
 * Whether a model reasons, by its name: OpenAI's o-series, GPT-5 and Codex models do (and refuse
 * nothing of the reasoning parameters), and so do Gemini 2.5 and later (thinking models: cxc asks
 * them for their thoughts); other names do not. `providers.<name>.models.<model>.reasoning`
 * overrides it.
 */
export function isReasoningModel(id: ModelId): boolean {
  if (id.provider === "anthropic") return false;
  const name = id.model.slice(id.model.lastIndexOf("/") + 1);
  if (name.startsWith("gemini-")) return /^gemini-(2\.5|[3-9])/.test(name);
  return /^(o\d|gpt-5)/.test(name) || name.includes("codex");
}

/**
 * Whether a model takes tools, by what cxc's table knows: every model it lists does, and a model it
 * does not know is taken to (a server that refuses is remembered per conversation, src/query/recall.ts).
 * `providers.<name>.models.<model>.tools = false` says otherwise.
 */
export function takesTools(_id: ModelId): boolean {
  return true;
}

/**
 * Whether a model has Anthropic's on-demand compaction (beta `compact-2026-09-04`), as far as cxc
 * knows: the models Anthropic lists (Claude Opus and Sonnet 4.6 and every later Claude), yes; the
 * earlier Claude models, no; anything else (another provider's, a name cxc does not know),
 * undefined: unknown, so cxc tries and falls back on a refusal.
 * `providers.<name>.models.<model>.native_compaction` overrides it (registry.ts).
 */
export function hasNativeCompaction(id: ModelId): boolean | undefined {
  if (id.provider !== "anthropic")
    return id.provider === "openai" || id.provider === "google" ? false : undefined;
  if (/^claude-(opus|sonnet)-4-6(-|$)/.test(id.model)) return true;
  if (/^claude-(opus|sonnet|haiku|fable|mythos)-[5-9]/.test(id.model)) return true;
  if (/^claude-(3|opus-4|sonnet-4|haiku-4)/.test(id.model)) return false;
  return undefined;
}

/**
 * The family of a Claude model a compaction block can go back to: the model name without a dated
 * snapshot suffix (`claude-opus-4-6-20261001` → `claude-opus-4-6`).
 */
export function modelFamily(model: string): string {
  return model.replace(/-\d{8}$/, "");
}

/** The model chosen for a provider when only its key is configured. */
export const DEFAULT_MODELS = {
  anthropic: "anthropic/claude-sonnet-4-6",
  openai: "openai/gpt-5",
  google: "google/gemini-2.5-pro",
} as const;

/** Splits `provider/model`; anything else is an `unknown-model` error. */
export function parseModelId(id: string): ModelId {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) {
    throw new CxcError("unknown-model", `Model id "${id}" is not of the form provider/model.`, {
      hint: "use e.g. anthropic/claude-sonnet-4-6, openai/gpt-5, google/gemini-2.5-pro or ollama/qwen3:8b, or define an alias",
    });
  }
  return { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

/** Resolves aliases (which may point to aliases) to a full `provider/model` id. */
export function resolveModelAlias(idOrAlias: string, aliases: Readonly<Record<string, string>>): string {
  const seen: string[] = [];
  let current = idOrAlias;
  while (Object.hasOwn(aliases, current)) {
    if (seen.includes(current)) {
      throw new CxcError("invalid-config", `Model aliases form a cycle: ${[...seen, current].join(" → ")}.`);
    }
    seen.push(current);
    current = aliases[current]!;
  }
  parseModelId(current);
  return current;
}

/**
 * The limits of a model: the static table (exact name, else the longest known prefix followed by
 * `-`), overridden field by field by `overrides`.
 */
export function lookupModelLimits(id: ModelId, overrides: ModelLimits = {}): ModelLimits {
  const known = lookupByName(KNOWN_MODELS[id.provider] ?? {}, id.model);
  const limits: { contextWindow?: number; maxOutputTokens?: number } = { ...known };
  if (overrides.contextWindow !== undefined) limits.contextWindow = overrides.contextWindow;
  if (overrides.maxOutputTokens !== undefined) limits.maxOutputTokens = overrides.maxOutputTokens;
  return limits;
}

/**
 * Whether the provider leaves the reasoning of earlier turns out of a request's context, so that
 * a turn's reasoning stops counting once the next turn starts, by the wire the model is reached
 * through. Anthropic drops earlier turns' thinking blocks except on Claude Opus 4.5 and later,
 * which keep them; the Responses API does not carry reasoning items across user turns, nor Gemini
 * its thoughts (only their signatures go back); over Chat
 * Completions cxc sends reasoning back as text (core/conversation/request.ts), which counts.
 */
export function dropsEarlierReasoning(
  model: string,
  wire: "anthropic" | "responses" | "chat" | "google",
): boolean {
  if (wire === "responses" || wire === "google") return true;
  if (wire === "chat") return false;
  const opus = /^claude-opus-(\d+)(?:-(\d+))?/.exec(model);
  if (opus === null) return true;
  const major = Number(opus[1]);
  const minor = opus[2] === undefined || opus[2].length > 2 ? 0 : Number(opus[2]);
  return !(major > 4 || (major === 4 && minor >= 5));
}
