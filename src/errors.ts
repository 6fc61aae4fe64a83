/**
 * The one error type cxc throws across layers.
 *
 * Every failure a user can see has a stable `code` (a string-literal union, so callers switch on
 * it instead of matching message text) and the process exit code it maps to. `src/cli/program.ts` is
 * the only place that turns a `CxcError` into stderr text and `process.exitCode`.
 *
 * Expected domain outcomes inside `src/core` (nothing to compact, an invalid proposal) are returned
 * as discriminated results, not thrown; the shell converts them into `CxcError` where it must stop.
 */

/** Exit codes: 0 ok, 1 failure, 2 usage error, 130 interrupted. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Stable error codes. Add new ones here; never rename one that has shipped. */
export type CxcErrorCode =
  // usage: bad flags, bad values, conflicting options
  | "usage"
  | "invalid-bound"
  | "invalid-spec"
  | "invalid-range"
  | "invalid-config"
  // targets
  | "conversation-not-found"
  | "conversation-ambiguous"
  | "no-active-conversation"
  | "workspace-not-found"
  // store integrity and access
  | "corrupt-log"
  | "unsupported-version"
  | "store-unreadable"
  | "store-read-only"
  | "lock-timeout"
  | "import-invalid"
  // `import --update`: the session changed where the conversation holds it, or its new records
  // would land in a turn of the conversation's own
  | "import-conflict"
  // compaction
  | "nothing-to-compact"
  | "not-pinned"
  | "compaction-conflict"
  | "review-open"
  | "review-invalid"
  // models and providers
  | "no-model-configured"
  | "unknown-model"
  | "provider-auth"
  | "provider-rate-limit"
  | "provider-overloaded"
  | "provider-context-overflow"
  | "provider-tools-unsupported"
  | "provider-network"
  | "provider-error"
  | "summary-failed"
  // an agent's settings file (cxc hooks install, uninstall)
  | "agent-settings"
  // tools and the turn loop
  | "tool-refused"
  | "interrupted"
  | "internal";

const defaultExitCodes: Partial<Record<CxcErrorCode, ExitCode>> = {
  usage: ExitCode.usage,
  "invalid-bound": ExitCode.usage,
  "invalid-spec": ExitCode.usage,
  "invalid-range": ExitCode.usage,
  "invalid-config": ExitCode.usage,
  interrupted: ExitCode.interrupted,
};

export interface CxcErrorOptions {
  /** One line telling the user how to fix it. Printed after the message as `hint: …`. */
  hint?: string;
  /** Overrides the exit code implied by the error code. */
  exitCode?: ExitCode;
  cause?: unknown;
}

export class CxcError extends Error {
  readonly code: CxcErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(code: CxcErrorCode, message: string, options: CxcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CxcError";
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? defaultExitCodes[code] ?? ExitCode.failure;
  }

  static isInstance(value: unknown): value is CxcError {
    return value instanceof CxcError;
  }
}

/** A usage error (exit code 2): a bad flag value, a conflicting combination, a malformed spec. */
export function usageError(message: string, hint?: string): CxcError {
  return new CxcError("usage", message, hint === undefined ? {} : { hint });
}

/** The message of anything thrown, without assuming it is an Error. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
