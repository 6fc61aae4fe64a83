/**
 * The options both provider SDK clients are built with, besides their key. Requests go through
 * the SDKs' default transport, Node's own `fetch`.
 */
import { formatWithOptions } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { sanitizeLine } from "../core/present/sanitize.js";

type LogMethod = (message: string, ...rest: unknown[]) => void;

/** The logger both SDKs accept. */
export interface SdkLogger {
  readonly error: LogMethod;
  readonly warn: LogMethod;
  readonly info: LogMethod;
  readonly debug: LogMethod;
}

/** What both SDK clients are built with, besides their key. */
export interface SdkClientOptions {
  readonly baseURL: string | null;
  /** cxc retries itself (retry.ts), so the SDKs' own retries are off. */
  readonly maxRetries: 0;
  readonly timeout?: number;
  /**
   * The SDKs log to the console by default, quoting what the server sent (a malformed stream
   * event, raw): off, unless `CXC_DEBUG` is set, and then sanitized onto stderr.
   */
  readonly logLevel: "off" | "warn";
  readonly logger: SdkLogger;
}

const writeSanitized: LogMethod = (message, ...rest) => {
  process.stderr.write(`cxc: sdk: ${sanitizeLine(formatWithOptions({ colors: false }, message, ...rest))}\n`);
};

const SANITIZING_LOGGER: SdkLogger = {
  error: writeSanitized,
  warn: writeSanitized,
  info: writeSanitized,
  debug: writeSanitized,
};

/**
 * Runs `call` (a synchronous SDK call that starts a request) with `console.warn` and
 * `console.error` writing cxc's warning lines instead of raw text: the Anthropic SDK warns about a
 * deprecated model with a bare `console.warn` as it builds the request, outside its logger, and
 * Google's warns from its constructor. Lines matching `drop` are not written (a warning about a
 * choice cxc made for the SDK).
 */
export function withSdkConsole<T>(call: () => T, options: { readonly drop?: RegExp } = {}): T {
  const { warn, error } = console;
  const write = (...parts: unknown[]): void => {
    const line = formatWithOptions({ colors: false }, ...parts);
    if (options.drop?.test(line)) return;
    process.stderr.write(`cxc: warning: ${sanitizeLine(line)}\n`);
  };
  console.warn = write;
  console.error = write;
  try {
    return call();
  } finally {
    console.warn = warn;
    console.error = error;
  }
}

/** The client options for a base URL and a per-request timeout. */
export function sdkClientOptions(settings: {
  readonly baseURL?: string;
  readonly timeoutMs?: number;
}): SdkClientOptions {
  return {
    baseURL: settings.baseURL ?? null,
    maxRetries: 0,
    logLevel: process.env.CXC_DEBUG ? "warn" : "off",
    logger: SANITIZING_LOGGER,
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
  };
}

/**
 * The Anthropic SDK client for `settings`, made on the first call: the SDK (an island,
 * tsup.config.ts) is imported by the first request, so commands that never call a model, and
 * users of other providers, do not load it. The Messages client and the compactor share it.
 */
export function lazyAnthropicClient(settings: {
  readonly apiKey: string;
  readonly baseURL?: string;
  readonly timeoutMs?: number;
}): () => Promise<Anthropic> {
  let client: Promise<Anthropic> | undefined;
  return () =>
    (client ??= import("@anthropic-ai/sdk").then(
      ({ default: AnthropicSdk }) =>
        new AnthropicSdk({ ...sdkClientOptions(settings), apiKey: settings.apiKey }),
    ));
}
