/**
 * Pure pieces of the Google adapter: the Gemini API's `generateContent` request body for a neutral
 * request, and the finish-reason mapping. Imports only SDK *types*, so `print --format gemini`
 * builds a body without loading the SDK.
 *
 * The body is the REST shape (`contents`, `systemInstruction`, `tools`, `toolConfig`,
 * `generationConfig`), what goes on the wire and what `print --format gemini` prints; the client
 * hands the SDK the same fields in its parameter shape (google.ts).
 *
 * - The assistant is `model`. Reasoning goes back as a thought (`thought: true`), whoever wrote
 *   it; redacted reasoning cannot be read and is left out; an OpenAI reasoning item gives its
 *   summary.
 * - Tool calls are `functionCall` parts with their id; a result is a `functionResponse` carrying
 *   the call's name and `{output}` (or `{error}` for a failed call), as Gemini CLI sends them.
 * - A Gemini thought signature goes back on the part it came with. A call that has none (it was
 *   made by another model, or before the signature was kept) gets Google's documented
 *   placeholder, which Gemini 3 accepts where it would refuse a call without a signature.
 * - Without tools, a history that holds calls gets `toolConfig` mode NONE: Gemini otherwise tries
 *   to call the tools it sees in the history.
 */
import type {
  Content,
  FunctionCallingConfigMode,
  FunctionDeclaration,
  GenerationConfig,
  Part,
  Tool,
  ToolConfig,
} from "@google/genai";
import type { LlmMessage, LlmPart } from "../core/conversation/request.js";
import type { FinishReason, LlmRequest, ToolChoice } from "./types.js";

/** The placeholder signature Google documents for function calls no Gemini model signed. */
export const GEMINI_PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator";

/** The body of a `generateContent` / `streamGenerateContent` request, as sent. */
export interface GeminiRequestBody {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: ToolConfig;
  generationConfig: GenerationConfig;
}

/** Wire-shaping options of a Gemini request that do not come from the conversation. */
export interface GeminiRequestOptions {
  /** Output limit when the request has none. */
  readonly maxOutputTokens?: number;
  /** A thinking model: ask for its thoughts (`thinkingConfig.includeThoughts`). Default false. */
  readonly reasoning?: boolean;
}

/** Builds the Gemini request body for a neutral request. Pure. */
export function toGeminiRequest(request: LlmRequest, options: GeminiRequestOptions = {}): GeminiRequestBody {
  const body: Omit<GeminiRequestBody, "generationConfig"> = { contents: request.messages.flatMap(toContent) };
  if (request.system !== undefined) body.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map(
          (tool): FunctionDeclaration => ({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            parametersJsonSchema: { type: "object", ...tool.parameters },
          }),
        ),
      },
    ];
    if (request.toolChoice !== undefined) body.toolConfig = toToolConfig(request.toolChoice);
  } else if (request.messages.some((message) => message.parts.some((part) => part.type === "tool-call"))) {
    body.toolConfig = toToolConfig({ type: "none" });
  }
  // Always present, if empty, as the SDK sends it: the printed body is the wire body.
  const generationConfig: GenerationConfig = {};
  const limit = request.maxOutputTokens ?? options.maxOutputTokens;
  if (limit !== undefined) generationConfig.maxOutputTokens = limit;
  if (options.reasoning) generationConfig.thinkingConfig = { includeThoughts: true };
  return { ...body, generationConfig };
}

/** Maps Gemini's finish reason to ours; `sawToolCall` turns a plain stop into `tool-calls`. */
export function mapGeminiFinishReason(reason: string | undefined, sawToolCall: boolean): FinishReason {
  switch (reason) {
    case "STOP":
      return sawToolCall ? "tool-calls" : "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
    case "IMAGE_PROHIBITED_CONTENT":
      return "refusal";
    default:
      return "other";
  }
}

function toToolConfig(choice: ToolChoice): ToolConfig {
  const mode = (value: string) => value as FunctionCallingConfigMode;
  switch (choice.type) {
    case "auto":
      return { functionCallingConfig: { mode: mode("AUTO") } };
    case "none":
      return { functionCallingConfig: { mode: mode("NONE") } };
    case "required":
      return { functionCallingConfig: { mode: mode("ANY") } };
    case "tool":
      return { functionCallingConfig: { mode: mode("ANY"), allowedFunctionNames: [choice.name] } };
  }
}

/** One message as a Content; a message whose parts all fall away gives none. */
function toContent(message: LlmMessage): Content[] {
  const parts: Part[] = [];
  let signedCall = false;
  for (const part of message.parts) {
    const converted = toPart(part);
    if (converted === undefined) continue;
    if (part.type === "tool-call") {
      // The first call of a step carries the signature; one per call is what Google's own
      // clients send when they have none.
      if (converted.thoughtSignature === undefined && !signedCall) {
        converted.thoughtSignature = GEMINI_PLACEHOLDER_SIGNATURE;
      }
      signedCall = true;
    }
    parts.push(converted);
  }
  return parts.length === 0 ? [] : [{ role: message.role === "assistant" ? "model" : "user", parts }];
}

function toPart(part: LlmPart): Part | undefined {
  switch (part.type) {
    case "text":
      return signed({ text: part.text }, part.thoughtSignature);
    case "reasoning":
      return part.text.length === 0
        ? undefined
        : signed({ text: part.text, thought: true }, part.thoughtSignature);
    case "redacted-reasoning":
      return undefined;
    case "encrypted-reasoning":
      return part.text.length === 0 ? undefined : { text: part.text, thought: true };
    case "tool-call":
      return signed(
        { functionCall: { id: part.id, name: part.name, args: { ...part.arguments } } },
        part.thoughtSignature,
      );
    case "tool-result":
      return {
        functionResponse: {
          id: part.callId,
          name: part.toolName,
          response: part.isError ? { error: part.content } : { output: part.content },
        },
      };
  }
}

function signed(part: Part, signature: string | undefined): Part {
  return signature === undefined ? part : { ...part, thoughtSignature: signature };
}
