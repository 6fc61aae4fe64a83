/**
 * The options both provider SDK clients are built with, besides their key. Requests go through
 * the SDKs' default transport, Node's own `fetch`.
 */

/** What both SDK clients are built with, besides their key. */
export interface SdkClientOptions {
  readonly baseURL: string | null;
  /** cxc retries itself (retry.ts), so the SDKs' own retries are off. */
  readonly maxRetries: 0;
  readonly timeout?: number;
}

/** The client options for a base URL and a per-request timeout. */
export function sdkClientOptions(settings: {
  readonly baseURL?: string;
  readonly timeoutMs?: number;
}): SdkClientOptions {
  return {
    baseURL: settings.baseURL ?? null,
    maxRetries: 0,
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
  };
}
