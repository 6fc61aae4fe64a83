/**
 * A retry wrapper over any `LlmClient`.
 *
 * A retryable error (rate limit, overload, network, timeout, 5xx) that arrives before the stream
 * yielded any content is retried with exponential backoff, honouring the provider's
 * `retry-after`. Once content was yielded, a retry would repeat it, so the error is passed on and
 * the caller decides (store the partial answer, continue). The wrapped client keeps the stream
 * contract: exactly one terminal event, never a throw.
 */
import { abortedError } from "./errors.js";
import {
  isContentEvent,
  type LlmClient,
  type LlmError,
  type LlmStreamEvent,
  type StreamOptions,
} from "./types.js";

/** Tunables of `withRetry`. Delays are injectable so tests run instantly. */
export interface RetryOptions {
  /** Retries after the first attempt (default 5). */
  readonly maxRetries?: number;
  /** First backoff delay; doubled per attempt (default 1000 ms). */
  readonly baseDelayMs?: number;
  /** Upper bound for any delay, `retry-after` included (default 60 s). */
  readonly maxDelayMs?: number;
  /** Waits `milliseconds`; resolves early (without throwing) when the signal aborts. */
  readonly sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter in [0, 1); multiplied by 500 ms and added to the backoff (default Math.random). */
  readonly random?: () => number;
  /** Told before each retry (`describeRetry` words it). */
  readonly onRetry?: (notice: RetryNotice) => void;
}

/** What a retry is about to do. */
export interface RetryNotice {
  /** 1-based number of this retry. */
  readonly attempt: number;
  readonly maxRetries: number;
  readonly delayMs: number;
  readonly error: LlmError;
}

const JITTER_MS = 500;

/**
 * The warning told before a retry, naming the cause in words:
 * `the provider returned HTTP 500; retrying in 2 s (attempt 2 of 4)`. Attempts count the first
 * request, so retry 1 of 3 is attempt 2 of 4.
 */
export function describeRetry(notice: RetryNotice): string {
  const { error } = notice;
  const http = error.status === undefined ? "" : ` (HTTP ${error.status})`;
  const causes: Partial<Record<LlmError["kind"], string>> = {
    "rate-limit": `the provider is rate limiting requests${http}`,
    overloaded: `the provider is overloaded${http}`,
    network: "the connection to the provider failed",
    timeout: `the provider did not answer in time${http}`,
  };
  const cause =
    causes[error.kind] ??
    (error.status === undefined
      ? "the provider returned an error"
      : `the provider returned HTTP ${error.status}`);
  const seconds = notice.delayMs / 1000;
  const delay = seconds < 10 ? Math.round(seconds * 10) / 10 : Math.round(seconds);
  return `${cause}; retrying in ${delay} s (attempt ${notice.attempt + 1} of ${notice.maxRetries + 1})`;
}

/** The delay before retry number `attempt` (1-based). */
export function computeRetryDelay(
  attempt: number,
  error: LlmError,
  options: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs" | "random"> = {},
): number {
  const maxDelay = options.maxDelayMs ?? 60_000;
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, maxDelay);
  const base = options.baseDelayMs ?? 1000;
  const jitter = (options.random ?? Math.random)() * JITTER_MS;
  return Math.min(base * 2 ** (attempt - 1) + jitter, maxDelay);
}

/** Wraps a client so retryable failures before any content are retried. */
export function withRetry(client: LlmClient, options: RetryOptions = {}): LlmClient {
  return {
    modelId: client.modelId,
    stream: (request, streamOptions) =>
      streamWithRetry((signal) => client.stream(request, signal ? { signal } : {}), options, streamOptions),
  };
}

async function* streamWithRetry(
  start: (signal: AbortSignal | undefined) => AsyncIterable<LlmStreamEvent>,
  options: RetryOptions,
  streamOptions: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const maxRetries = options.maxRetries ?? 5;
  const sleep = options.sleep ?? sleepUnlessAborted;
  for (let attempt = 0; ; attempt++) {
    let yieldedContent = false;
    let failure: LlmError | undefined;
    for await (const event of start(streamOptions.signal)) {
      if (event.type === "error" && !yieldedContent && event.error.retryable && attempt < maxRetries) {
        failure = event.error;
        break;
      }
      if (isContentEvent(event)) yieldedContent = true;
      yield event;
    }
    if (failure === undefined) return;
    const delayMs = computeRetryDelay(attempt + 1, failure, options);
    options.onRetry?.({ attempt: attempt + 1, maxRetries, delayMs, error: failure });
    await sleep(delayMs, streamOptions.signal);
    if (streamOptions.signal?.aborted) {
      yield { type: "error", error: abortedError() };
      return;
    }
  }
}

function sleepUnlessAborted(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
