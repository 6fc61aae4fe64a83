/**
 * Anthropic's on-demand compaction (beta `compact-2026-09-04`; docs/native-compaction.md): an
 * ordinary Messages request plus `compaction: {type: "summarize", instructions?}`, answered with
 * `stop_reason: "compaction"` and one `compaction` block (readable `content`, a `signature`), its
 * real cost in `usage.iterations`. SDK types stay in this module; the rest of cxc sees
 * `NativeCompactor`.
 *
 * A `compaction_unavailable` (529) is retried (after the server's `retry-after`, else 1 s, 2 s);
 * after the retries, and on any other refusal, the outcome says why in one line, for the caller
 * to fall back to cxc's own summarizer.
 */
import type { LlmRequest } from "../core/conversation/request.js";
import { classifyLlmError } from "./errors.js";
import { toAnthropicRequest } from "./anthropic-request.js";
import { lazyAnthropicClient, withSdkConsole } from "./sdk-options.js";

/** The beta of on-demand compaction, on every request that asks for one or carries a block. */
export const COMPACTION_BETA = "compact-2026-09-04";

/** The longest `instructions` the API takes. */
export const MAX_COMPACTION_INSTRUCTIONS = 16_384;

/** What a native compaction gave, or why it gave nothing. */
export type NativeCompactionOutcome =
  | {
      readonly ok: true;
      readonly content: string;
      readonly signature: string;
      /** What it cost, from `usage.iterations` (the top-level counts are 0). */
      readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
    }
  | {
      readonly ok: false;
      /** One line: why there is no block. */
      readonly reason: string;
      /** The provider's error type, when it gave one (`compaction_unavailable`, …). */
      readonly code?: string;
      readonly aborted?: boolean;
    };

/** A model that can compact natively. */
export interface NativeCompactor {
  readonly modelId: string;
  /**
   * Whether the Models API says the model takes on-demand compaction
   * (`capabilities.compaction.summarize.supported`); undefined when it cannot say (unreachable,
   * an error, no such model, no capabilities in its answer). Asked at most once per process for a
   * model at an endpoint, within a few seconds.
   */
  supportsCompaction(options?: { readonly signal?: AbortSignal }): Promise<boolean | undefined>;
  compact(
    request: LlmRequest,
    options?: { readonly instructions?: string; readonly signal?: AbortSignal },
  ): Promise<NativeCompactionOutcome>;
}

/** Settings of an Anthropic compactor. The key is passed in, never read from the environment here. */
export interface AnthropicCompactorSettings {
  readonly modelId: string;
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string;
  readonly timeoutMs?: number;
  /** How many times a `compaction_unavailable` is retried (default 2). */
  readonly retries?: number;
  /** Waits between retries (tests pass one that does not wait). */
  readonly sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
}

const sleepFor = (milliseconds: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** How long the Models API is given to say whether a model has on-demand compaction. */
const CAPABILITY_TIMEOUT_MS = 3000;

/** The Models API's answers in this process, by endpoint and model. */
const capabilityAnswers = new Map<string, Promise<boolean | undefined>>();

/** Creates a compactor talking to the Messages API. */
export function createAnthropicCompactor(settings: AnthropicCompactorSettings): NativeCompactor {
  const sdk = lazyAnthropicClient(settings);
  return {
    modelId: settings.modelId,
    supportsCompaction(options = {}) {
      const key = `${settings.baseURL ?? ""} ${settings.model}`;
      let answer = capabilityAnswers.get(key);
      if (answer === undefined) {
        answer = askModelsApi(sdk, settings.model, options.signal);
        capabilityAnswers.set(key, answer);
      }
      return answer;
    },
    async compact(request, options = {}) {
      // No `context_management` here: the API refuses it beside `compaction`.
      const { stream: _stream, ...body } = toAnthropicRequest(request, settings.model, {
        modelId: settings.modelId,
      });
      const params = {
        ...body,
        compaction: {
          type: "summarize" as const,
          ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        },
        betas: [COMPACTION_BETA],
      };
      const retries = settings.retries ?? 2;
      for (let attempt = 0; ; attempt++) {
        try {
          const anthropic = await sdk();
          const message = await withSdkConsole(() =>
            anthropic.beta.messages.create(
              params as unknown as Parameters<typeof anthropic.beta.messages.create>[0],
              options.signal ? { signal: options.signal } : {},
            ),
          );
          return readAnswer(message as unknown as AnswerShape);
        } catch (thrown) {
          const error = classifyLlmError(thrown, options.signal);
          if (error.kind === "aborted") return { ok: false, reason: error.message, aborted: true };
          const code = providerType(thrown);
          if (code === "compaction_unavailable" && attempt < retries) {
            await (settings.sleep ?? sleepFor)(error.retryAfterMs ?? 1000 * (attempt + 1), options.signal);
            continue;
          }
          const reason =
            code === "compaction_unavailable"
              ? `on-demand compaction is unavailable (${retries} retries): ${error.message}`
              : error.message;
          return { ok: false, reason, ...(code === undefined ? {} : { code }) };
        }
      }
    },
  };
}

/**
 * `GET /v1/models/{model}` (the beta Models API, whose answer has `capabilities`): whether the
 * model takes the top-level `compaction` of type `summarize`. Any failure is "cannot say".
 */
async function askModelsApi(
  sdk: ReturnType<typeof lazyAnthropicClient>,
  model: string,
  signal: AbortSignal | undefined,
): Promise<boolean | undefined> {
  try {
    const anthropic = await sdk();
    const info = await withSdkConsole(() =>
      anthropic.beta.models.retrieve(
        model,
        {},
        { timeout: CAPABILITY_TIMEOUT_MS, maxRetries: 0, ...(signal === undefined ? {} : { signal }) },
      ),
    );
    return compactionCapability(info as unknown as ModelInfoShape);
  } catch {
    return undefined;
  }
}

interface ModelInfoShape {
  readonly capabilities?: {
    readonly compaction?: {
      readonly supported?: unknown;
      readonly summarize?: { readonly supported?: unknown };
    } | null;
  } | null;
}

/**
 * `capabilities.compaction`: whether `summarize` is supported (or, without that entry, the
 * capability); undefined when the answer does not say (no capabilities, a null or absent entry).
 */
export function compactionCapability(info: ModelInfoShape): boolean | undefined {
  const compaction = info.capabilities?.compaction;
  if (compaction === undefined || compaction === null) return undefined;
  const summarize = compaction.summarize?.supported;
  if (typeof summarize === "boolean") return summarize;
  return typeof compaction.supported === "boolean" ? compaction.supported : undefined;
}

interface AnswerShape {
  readonly stop_reason?: string | null;
  readonly content?: readonly { type?: string; content?: unknown; signature?: unknown }[];
  readonly usage?: {
    readonly iterations?: readonly { type?: string; input_tokens?: number; output_tokens?: number }[] | null;
  };
}

/** The block of a compaction answer, or why there is none (a 200 without a summary is billed too). */
function readAnswer(message: AnswerShape): NativeCompactionOutcome {
  const block = message.content?.find((candidate) => candidate.type === "compaction");
  if (message.stop_reason !== "compaction" || block === undefined || typeof block.content !== "string") {
    return {
      ok: false,
      reason: `the model answered without a summary (stop_reason ${String(message.stop_reason)})`,
      code: `stop_reason_${String(message.stop_reason)}`,
    };
  }
  if (typeof block.signature !== "string" || block.signature === "") {
    return { ok: false, reason: "the compaction block came without a signature" };
  }
  const iterations = message.usage?.iterations ?? [];
  const usage = iterations.reduce(
    (sum, iteration) => ({
      inputTokens: sum.inputTokens + (iteration.input_tokens ?? 0),
      outputTokens: sum.outputTokens + (iteration.output_tokens ?? 0),
    }),
    { inputTokens: 0, outputTokens: 0 },
  );
  return { ok: true, content: block.content, signature: block.signature, usage };
}

/** The provider's error type of a thrown SDK error (`compaction_unavailable`), if any. */
function providerType(thrown: unknown): string | undefined {
  const body = (thrown as { error?: { error?: { type?: unknown }; type?: unknown } } | undefined)?.error;
  const type = body?.error?.type ?? body?.type;
  return typeof type === "string" ? type : undefined;
}
