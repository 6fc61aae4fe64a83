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

/**
 * Metadata keys of an OpenAI Responses reasoning item on a reasoning `chat_response` (written by a
 * Responses turn or read from a Codex rollout): its `encrypted_content`, its item `id`, and the
 * cxc model id that wrote it. Only that model can read the encrypted content, so the request
 * builder replays the item natively to that model alone.
 */
export const OPENAI_ENCRYPTED_REASONING_KEY = "openai_encrypted_reasoning";
export const OPENAI_REASONING_ID_KEY = "openai_reasoning_id";
export const OPENAI_REASONING_MODEL_KEY = "openai_reasoning_model";

/**
 * Metadata key of a Gemini thought signature (jp's key): Google's opaque token on a part of a
 * reply (a function call, text, a thought), which Gemini wants back on the same part in the next
 * request (for a function call of a Gemini 3 model, it refuses the request without it). Only the
 * Google adapter sends it.
 */
export const GOOGLE_THOUGHT_SIGNATURE_KEY = "google_thought_signature";

/** Metadata key of a pi thinking signature from a provider other than Anthropic. */
export const PI_SIGNATURE_KEY = "pi_thinking_signature";

/**
 * Reasoning a provider gave with its signature or encryption, which cxc sends back to it natively
 * (and the provider may leave out of a later turn's context); reasoning without one is sent as
 * text, which always counts.
 */
export function isNativeReasoning(metadata: Readonly<Record<string, unknown>> | undefined): boolean {
  if (metadata === undefined) return false;
  return [
    ANTHROPIC_SIGNATURE_KEY,
    ANTHROPIC_REDACTED_KEY,
    OPENAI_ENCRYPTED_REASONING_KEY,
    PI_SIGNATURE_KEY,
    GOOGLE_THOUGHT_SIGNATURE_KEY,
  ].some((key) => typeof metadata[key] === "string" && metadata[key] !== "");
}

/**
 * Metadata keys of a provider's own summary in the projected view (projection.ts puts them on the
 * injected summary turn; docs/native-compaction.md): on the response, the native summary
 * (`summary.native` of its compaction) and what cxc adds after it (its facts block and pinned
 * messages, which can never go inside a signed or encrypted summary); on the request
 * (`[Summary of previous conversation]`), a mark that an adapter replaying the summary natively
 * leaves it out (the provider's summary stands first, in place of the summarized messages).
 */
export const NATIVE_SUMMARY_KEY = "cxc_native_summary";
export const NATIVE_SUMMARY_ADDITION_KEY = "cxc_native_summary_addition";
export const NATIVE_SUMMARY_OPENER_KEY = "cxc_native_summary_opener";
/**
 * On the events of the turn a native summary was made inside that came before it
 * (`summary.native.inside_turn`, `turn_events`): the summary's own items hold that turn's prompt
 * and stand for its steps so far, so an adapter replaying the summary natively, and an export
 * writing it back as the agent recorded it, leave them out.
 */
export const NATIVE_SUMMARY_HELD_KEY = "cxc_native_summary_held";
