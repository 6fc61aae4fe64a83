/**
 * The HTTP transport the provider SDKs send their requests through: node-fetch, on `node:http`
 * and `node:https`, instead of Node's global `fetch` (undici).
 *
 * Every `cxc q` is a new process, and in a new process undici compiles its WebAssembly HTTP
 * parser before it can read the first response: about 60 ms of every turn on the benchmark machine
 * (docs/benchmarks.md). node-fetch reads responses with Node's built-in parser. The SDKs take a
 * `fetch` option for exactly this; building requests, parsing the event stream, errors and
 * timeouts stay theirs. Responses are decompressed as before, interrupts and timeouts still go
 * through the SDK's AbortSignal, and, as with undici, no proxy variables are read.
 */

import { formatWithOptions } from "node:util";
import { sanitizeLine } from "../core/sanitize.js";

/** The `fetch` an SDK is given (each SDK declares its own Fetch type; node-fetch serves both). */
// biome-ignore lint/suspicious/noExplicitAny: the two SDKs' Fetch types differ in detail only.
export type SdkFetch = (...args: any[]) => Promise<any>;

let transport: Promise<SdkFetch> | undefined;

/** What both SDK clients are built with, besides their key. */
export interface SdkClientOptions {
  readonly fetch: SdkFetch;
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

type LogMethod = (message: string, ...rest: unknown[]) => void;

/** The logger both SDKs accept. */
export interface SdkLogger {
  readonly error: LogMethod;
  readonly warn: LogMethod;
  readonly info: LogMethod;
  readonly debug: LogMethod;
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

/** The client options for a base URL and a per-request timeout, with the transport loaded. */
export async function sdkClientOptions(settings: {
  readonly baseURL?: string;
  readonly timeoutMs?: number;
}): Promise<SdkClientOptions> {
  return {
    fetch: await loadTransport(),
    baseURL: settings.baseURL ?? null,
    maxRetries: 0,
    logLevel: process.env.CXC_DEBUG ? "warn" : "off",
    logger: SANITIZING_LOGGER,
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
  };
}

/** node-fetch, loaded with the first request (commands that never call a model never load it). */
function loadTransport(): Promise<SdkFetch> {
  transport ??= import("node-fetch").then(({ default: fetch }) => fetch as SdkFetch);
  return transport;
}
