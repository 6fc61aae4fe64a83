/**
 * Names shared by the request builder and the message interop: metadata keys under which
 * provider-opaque reasoning data rides on a `chat_response`, and the text of the synthetic result
 * given to an unanswered tool call. Pure. One definition, so an imported conversation and a live
 * one store (and replay) the same keys.
 */

/** Metadata key of an Anthropic thinking block's signature on a reasoning `chat_response` (jp's key). */
export const ANTHROPIC_SIGNATURE_KEY = "anthropic_thinking_signature";
/** Metadata key of Anthropic's opaque redacted-thinking payload on a reasoning `chat_response`. */
export const ANTHROPIC_REDACTED_KEY = "anthropic_redacted_thinking";
/** Content of the synthetic result given to a tool call that was never answered. */
export const INTERRUPTED_TOOL_RESULT = "Tool call was interrupted.";
