/**
 * Turns a classified provider failure into the `CxcError` the user sees, with a hint that says
 * what to do. A context overflow names both ways to compact.
 */
import { CxcError, type CxcErrorCode, ExitCode } from "../errors.js";

/** The fields of `src/llm`'s `LlmError` this module reads. */
export interface ProviderFailure {
  readonly kind: string;
  readonly message: string;
  readonly status?: number;
  /** The provider layer's own hint (an unreachable server: where its URL came from). */
  readonly hint?: string;
}

/** The context a hint needs. */
export interface FailureContext {
  readonly conversationId: string;
  readonly modelId: string;
  /** True when some of the answer was stored before the failure. */
  readonly partialStored: boolean;
}

const CODES: Readonly<Record<string, CxcErrorCode>> = {
  auth: "provider-auth",
  "rate-limit": "provider-rate-limit",
  overloaded: "provider-overloaded",
  "context-overflow": "provider-context-overflow",
  "tools-unsupported": "provider-tools-unsupported",
  network: "provider-network",
  timeout: "provider-network",
};

/** The hint of the context-overflow error: exactly how to compact. */
export function compactionHint(conversationId: string): string {
  return (
    `compact it with \`cxc conversation compact ${conversationId}\` and run \`cxc q\` again, ` +
    `or compact and ask in one step: \`cxc q --id ${conversationId} -k "<message>"\``
  );
}

/** The error for a failed stream. Aborts (Ctrl-C) become `interrupted` with exit code 130. */
export function providerError(failure: ProviderFailure, context: FailureContext): CxcError {
  const kept = context.partialStored ? " The partial answer was saved." : "";
  if (failure.kind === "aborted") {
    return new CxcError("interrupted", `Interrupted.${kept}`, {
      hint: "run `cxc q` again to continue the conversation",
      exitCode: ExitCode.interrupted,
    });
  }
  const code = CODES[failure.kind] ?? "provider-error";
  const message = `${context.modelId}: ${failure.message}${kept}`;
  return new CxcError(code, message, { hint: failure.hint ?? hintFor(failure, context) });
}

function hintFor(failure: ProviderFailure, context: FailureContext): string {
  const provider = context.modelId.split("/")[0] ?? "";
  switch (failure.kind) {
    case "auth":
      return provider === "openai"
        ? "check OPENAI_API_KEY (and OPENAI_BASE_URL if set)"
        : provider === "anthropic"
          ? "check ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL if set)"
          : `check the key configured for providers.${provider}`;
    case "rate-limit":
      return "the provider is rate limiting this key; wait a minute and run `cxc q` again";
    case "overloaded":
      return "the provider is overloaded; try again shortly, or pick another model with -m";
    case "context-overflow":
      return compactionHint(context.conversationId);
    case "tools-unsupported":
      return `this model takes no tools: leave the tools out (-T NAME, conversation.tools), or set providers.${provider}.models.<model>.tools = false`;
    case "network":
    case "timeout":
      return "check the network (and the provider's base URL), then run `cxc q` again";
    default:
      return "run with CXC_DEBUG=1 for details";
  }
}
