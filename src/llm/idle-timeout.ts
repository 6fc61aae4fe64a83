/**
 * An idle timeout over any `LlmClient`: a stream that goes silent for longer than the limit is
 * aborted and ends with a retryable `timeout` error (jp's `stream_idle_timeout_secs`). The SDKs'
 * own timeouts only cover waiting for the response to start, not a connection that stalls halfway.
 */
import { abortedError } from "./errors.js";
import type { LlmClient, LlmError, LlmStreamEvent, StreamOptions } from "./types.js";

/** Default silence allowed between two stream events. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Wraps a client so a stalled stream ends with a `timeout` error after `idleMs` of silence. */
export function withIdleTimeout(client: LlmClient, idleMs: number = DEFAULT_IDLE_TIMEOUT_MS): LlmClient {
  return {
    modelId: client.modelId,
    stream: (request, options) => streamWithIdleTimeout(client, request, idleMs, options),
  };
}

async function* streamWithIdleTimeout(
  client: LlmClient,
  request: Parameters<LlmClient["stream"]>[0],
  idleMs: number,
  options: StreamOptions = {},
): AsyncGenerator<LlmStreamEvent> {
  const controller = new AbortController();
  const forwardAbort = () => controller.abort();
  options.signal?.addEventListener("abort", forwardAbort, { once: true });
  const iterator = client.stream(request, { signal: controller.signal })[Symbol.asyncIterator]();
  try {
    while (true) {
      const next = await nextWithin(iterator, idleMs);
      if (next === "idle") {
        controller.abort();
        yield { type: "error", error: idleError(idleMs) };
        return;
      }
      if (next.done) return;
      if (next.value.type === "error" && next.value.error.kind === "aborted" && options.signal?.aborted) {
        yield { type: "error", error: abortedError() };
        return;
      }
      yield next.value;
    }
  } finally {
    options.signal?.removeEventListener("abort", forwardAbort);
    if (controller.signal.aborted) void iterator.return?.(undefined);
  }
}

function nextWithin(
  iterator: AsyncIterator<LlmStreamEvent>,
  idleMs: number,
): Promise<IteratorResult<LlmStreamEvent> | "idle"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<"idle">((resolve) => {
    timer = setTimeout(() => resolve("idle"), idleMs);
  });
  return Promise.race([iterator.next(), idle]).finally(() => clearTimeout(timer));
}

function idleError(idleMs: number): LlmError {
  return {
    kind: "timeout",
    retryable: true,
    message: `The provider did not answer in time: the stream was silent for ${formatDuration(idleMs)}.`,
  };
}

function formatDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 100) / 10} s`;
}
