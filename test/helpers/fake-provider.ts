/**
 * A loopback fake LLM provider for tests: a node:http server on 127.0.0.1 (port 0) that speaks
 * the Anthropic Messages API (`POST /v1/messages`), OpenAI Chat Completions
 * (`POST /v1/chat/completions`), the OpenAI Responses API (`POST /v1/responses`, which cxc's
 * `openai/*` models and Codex speak) and Google's Gemini API
 * (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` and `:generateContent`, which cxc's
 * `google/*` models and Gemini CLI speak) on the wire, streaming SSE exactly as those services do
 * (and plain JSON when `stream` is false or the Gemini call is not a streaming one), from a queue
 * of scripted replies shared by the endpoints. Every request's body and headers are recorded.
 *
 * Real agents (Claude Code, pi) send requests of their own besides the turns a test scripts
 * (a summary for their compaction, a title): `routes` answer those by what the body contains,
 * before the queue is consulted, so the queue stays the script of the conversation's turns.
 * `POST /v1/messages/count_tokens` and Gemini's `:countTokens` are answered with an estimate and
 * never take a reply.
 *
 * Usage: a reply reports the usage it is scripted with (input 10 and output 5 when none is). A reply
 * whose usage is `"counted"`, and every reply without usage while `countUsage` is on, reports what
 * the fake counts instead, as a provider would: a quarter of the request body's characters as
 * input, a quarter of the characters of what it answers (text, thinking, tool names and arguments)
 * as output. `counted(request)` gives that input count for a recorded request.
 *
 * Anthropic's on-demand compaction (beta `compact-2026-09-04`): a reply with a `compaction` block
 * answers with `stop_reason: "compaction"`, the block whole, `usage.input_tokens`/`output_tokens`
 * 0 and the real cost in `usage.iterations`. Requests are checked as the API checks them, before
 * a reply is taken: a `compaction` parameter or a `compaction` block needs the beta header; the
 * block must be the first block of the first message, once (`compaction_block_misplaced`); its
 * signature must be the one the fake gave its content (`fakeCompactionSignature`), else
 * `compaction_content_mismatch`; `compaction` cannot come with `context_management`,
 * `stop_sequences` or a forced `tool_choice`. Its errors (`compaction_unavailable` 529,
 * `compaction_nothing_to_summarize`) are scripted as errors with their `errorType`.
 *
 * Anthropic's Models API (`GET /v1/models/<id>`, `GET /v1/models`, from a client that sends
 * `anthropic-version`) answers for the models a test adds (`addModel`), in the beta shape with
 * `capabilities` (`compaction.summarize.supported`); any other model is a 404 `not_found_error`,
 * as the API answers an unknown one.
 *
 * It imports only node built-ins so `fake-provider-cli.mjs` can transpile and run it as a
 * standalone process for end-to-end tests.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Token counts a reply reports. Unset counts are 0 (input defaults to 10, output to 5). */
export interface FakeUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Output tokens spent on reasoning (the Responses API reports them). */
  reasoningTokens?: number;
}

/** One content block of a scripted reply. */
export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; signature: string }
  | {
      type: "tool-call";
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      /** Sent instead of the JSON of `arguments` (arguments that are not a JSON object). */
      argumentsText?: string;
      /** Gemini only: the call's thought signature (Gemini sends no call ids). */
      signature?: string;
      /** Responses only: the namespace of a namespaced tool (Codex offers an MCP server's tools as one). */
      namespace?: string;
    };

/** A scripted successful (or truncated, or slow, or cut) message. */
export interface FakeMessageReply {
  kind?: "message";
  blocks: FakeBlock[];
  /** Default: `tool-use` when a block is a tool call, else `end`. */
  stop?: "end" | "max-tokens" | "tool-use" | "refusal";
  /** `"counted"`: what the fake counts for the request and the answer (see the module comment). */
  usage?: FakeUsage | "counted";
  /** Delay before each streamed event, in milliseconds. */
  chunkDelayMs?: number;
  /** Destroys the connection after this many streamed events (a stream cut mid-way). */
  cutAfterEvents?: number;
  /** The message id sent back (Anthropic `id`, OpenAI `id`). Default: `msg_fake_<n>` or
   * `chatcmpl-fake-<n>`, unique per server. */
  messageId?: string;
  /**
   * Stops after this many streamed events and holds the stream open until the client goes away
   * (a model that is still thinking): tests interrupt a turn at a known point this way.
   */
  holdAfterEvents?: number;
  /**
   * With `holdAfterEvents`: the rest of the stream is sent once this promise settles (a model that
   * paused and goes on), instead of holding until the client goes away.
   */
  release?: Promise<unknown>;
}

/** A scripted failure: an HTTP error status, or (Anthropic, `midStream`) an SSE `error` event. */
export interface FakeErrorReply {
  kind: "error";
  status: number;
  message?: string;
  /** Provider error type; derived from the status when unset. */
  errorType?: string;
  /** Sent as the `retry-after` header. */
  retryAfterSeconds?: number;
  /** OpenAI's `error.code`, e.g. `context_length_exceeded`. */
  code?: string;
  /**
   * Start a 200 stream, then fail: Anthropic sends an `error` event; the Responses API
   * `response.failed` (or an `error` event with `event: "error"`). Chat Completions has none.
   */
  midStream?: boolean;
  /** Responses only, with `midStream`: fail with an `error` event instead of `response.failed`. */
  event?: "failed" | "error";
}

/**
 * A reply sent exactly as given, for hostile streams: `body` is written as is (status 200,
 * `text/event-stream` unless told otherwise), then the response ends.
 */
export interface FakeRawReply {
  kind: "raw";
  body: string;
  status?: number;
  contentType?: string;
}

/**
 * Anthropic's answer to an on-demand compaction request: one `compaction` block (its signature
 * defaults to `fakeCompactionSignature` of its content), `stop_reason: "compaction"`, the cost in
 * `usage.iterations` (input 10 and output 5 unless scripted).
 */
export interface FakeCompactionReply {
  kind: "compaction";
  content: string;
  signature?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export type FakeReply = FakeMessageReply | FakeErrorReply | FakeRawReply | FakeCompactionReply;

/** What the fake server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** The index of the route that answered it, when one did (see `FakeRoute`). */
  route?: number;
  /** A quarter of the body's characters: the input a counted usage reports for it. */
  counted: number;
}

/**
 * A reply for every request whose JSON body text contains `bodyIncludes` (and whose path starts
 * with `path`, when set). Routes are tried in order before the queue; a route answers as often as
 * it matches, or `times` times when set.
 */
export interface FakeRoute {
  bodyIncludes?: string;
  path?: string;
  times?: number;
  reply: FakeReply;
}

/**
 * A model the fake's Models API knows. `compaction`: what its capabilities say of on-demand
 * compaction (`null`: the entry is null); `capabilities: false` answers without capabilities.
 */
export interface FakeModel {
  id: string;
  compaction?: boolean | null;
  capabilities?: false;
}

/** A running fake provider. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Base URL for the Anthropic SDK (it appends `/v1/messages`). */
  readonly anthropicBaseURL: string;
  /** Base URL for the OpenAI SDK (it appends `/chat/completions`). */
  readonly openaiBaseURL: string;
  readonly requests: RecordedRequest[];
  enqueue(...replies: FakeReply[]): void;
  /** Adds a route after the ones already there (see `FakeRoute`). */
  addRoute(route: FakeRoute): void;
  /** Adds a model to the Models API (see `FakeModel`). */
  addModel(model: FakeModel): void;
  /** Number of scripted replies not yet served. */
  remaining(): number;
  /** Replies without scripted usage report counted usage (see the module comment) while on. */
  countUsage(on: boolean): void;
  /** Forgets unserved replies, routes and recorded requests (between tests). */
  reset(): void;
  close(): Promise<void>;
}

/** Options of `startFakeProvider`. */
export interface FakeProviderOptions {
  replies?: FakeReply[];
  port?: number;
  /** Called after each request is recorded (the CLI writes its record file here). */
  onRequest?: (request: RecordedRequest) => void;
  /** Requests answered by what they contain rather than from the queue. */
  routes?: FakeRoute[];
  /** Replies without scripted usage report counted usage (default: off). */
  countUsage?: boolean;
}

/** A text reply. */
export function textReply(text: string, extra: Omit<FakeMessageReply, "blocks"> = {}): FakeMessageReply {
  return { blocks: [{ type: "text", text }], ...extra };
}

/** An HTTP error reply. */
export function errorReply(
  status: number,
  extra: Omit<FakeErrorReply, "kind" | "status"> = {},
): FakeErrorReply {
  return { kind: "error", status, ...extra };
}

/** A 400 whose message and code say the prompt does not fit. */
export function contextOverflowReply(): FakeErrorReply {
  return {
    kind: "error",
    status: 400,
    message: "prompt is too long: 210000 tokens > 200000 maximum; maximum context length exceeded",
    code: "context_length_exceeded",
  };
}

/** Starts the server; resolves once it listens. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const state: ServerState = {
    queue,
    requests,
    routes: (options.routes ?? []).map((route) => ({ ...route, used: 0 })),
    onRequest: options.onRequest,
    models: [],
    served: 0,
    countUsage: options.countUsage ?? false,
  };
  const server = createServer((request, response) => {
    void handleRequest(request, response, state);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    addRoute: (route) => {
      state.routes.push({ ...route, used: 0 });
    },
    addModel: (model) => {
      state.models.push(model);
    },
    remaining: () => queue.length,
    countUsage: (on) => {
      state.countUsage = on;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      state.routes.length = 0;
      state.models.length = 0;
      state.countUsage = options.countUsage ?? false;
    },
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface ServerState {
  readonly queue: FakeReply[];
  readonly requests: RecordedRequest[];
  readonly routes: (FakeRoute & { used: number })[];
  readonly onRequest: ((request: RecordedRequest) => void) | undefined;
  /** The models the Models API knows. */
  readonly models: FakeModel[];
  /** Message replies served so far, for unique default message ids. */
  served: number;
  countUsage: boolean;
}

/** The first route that matches the request and has uses left; counts the use. */
function matchRoute(state: ServerState, path: string, bodyText: string): number | undefined {
  const index = state.routes.findIndex(
    (route) =>
      (route.times === undefined || route.used < route.times) &&
      (route.path === undefined || path.startsWith(route.path)) &&
      (route.bodyIncludes === undefined || bodyText.includes(route.bodyIncludes)),
  );
  if (index === -1) return undefined;
  state.routes[index]!.used += 1;
  return index;
}

/** A rough token count of a text (4 characters a token): `count_tokens`, counted usage. */
function estimateTokens(bodyText: string): number {
  return Math.max(1, Math.ceil(bodyText.length / 4));
}

/** The usage a reply reports: as scripted, or counted (see the module comment). */
function replyUsage(
  reply: FakeMessageReply,
  bodyText: string,
  countByDefault: boolean,
): FakeUsage | undefined {
  if (reply.usage !== "counted" && (reply.usage !== undefined || !countByDefault)) return reply.usage;
  const answer = reply.blocks
    .map((block) =>
      block.type === "tool-call"
        ? `${block.name}${block.argumentsText ?? JSON.stringify(block.arguments)}`
        : block.text,
    )
    .join("");
  return { inputTokens: estimateTokens(bodyText), outputTokens: estimateTokens(answer) };
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  state: ServerState,
): Promise<void> {
  const { queue, requests, onRequest } = state;
  const text = await readBody(request);
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // Recorded as the raw text.
  }
  const recorded: RecordedRequest = {
    method: request.method ?? "",
    path: request.url ?? "",
    headers: Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
    ),
    body,
    counted: estimateTokens(text),
  };
  const gemini = GEMINI_PATH.exec(recorded.path);
  const countTokens =
    recorded.method === "POST" &&
    (recorded.path.startsWith("/v1/messages/count_tokens") || gemini?.[2] === "countTokens");
  const routeIndex = countTokens ? undefined : matchRoute(state, recorded.path, text);
  if (routeIndex !== undefined) recorded.route = routeIndex;
  requests.push(recorded);
  onRequest?.(recorded);
  if (countTokens) {
    sendJson(
      response,
      200,
      gemini ? { totalTokens: estimateTokens(text) } : { input_tokens: estimateTokens(text) },
    );
    return;
  }
  // Anthropic's Models API only (its clients send `anthropic-version`); OpenAI-compatible model
  // lists (an Ollama probe, an agent's) stay unanswered, as before.
  if (
    recorded.method === "GET" &&
    MODELS_PATH.test(recorded.path) &&
    "anthropic-version" in recorded.headers
  ) {
    serveModels(response, state.models, recorded.path);
    return;
  }
  const protocol = gemini
    ? "gemini"
    : recorded.path.startsWith("/v1/messages")
      ? "anthropic"
      : recorded.path.startsWith("/v1/chat/completions")
        ? "openai"
        : recorded.path.startsWith("/v1/responses")
          ? "responses"
          : undefined;
  if (protocol === undefined || recorded.method !== "POST") {
    sendJson(response, 404, { error: { type: "not_found_error", message: `no route ${recorded.path}` } });
    return;
  }
  const refused = protocol === "anthropic" ? compactionProblem(body, recorded.headers) : undefined;
  if (refused !== undefined) {
    sendError(response, protocol, refused);
    return;
  }
  const routed = routeIndex === undefined ? undefined : state.routes[routeIndex]!.reply;
  const scripted = routed ?? queue.shift();
  const reply =
    scripted === undefined ||
    scripted.kind === "error" ||
    scripted.kind === "raw" ||
    scripted.kind === "compaction"
      ? scripted
      : { ...scripted, usage: replyUsage(scripted, text, state.countUsage) };
  if (reply === undefined) {
    sendError(response, protocol, {
      kind: "error",
      status: 400,
      message: "fake provider: no scripted reply left",
    });
    return;
  }
  if (reply.kind === "raw") {
    response.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "text/event-stream" });
    response.end(reply.body);
    return;
  }
  const streaming = gemini
    ? gemini[2] === "streamGenerateContent"
    : typeof body === "object" && body !== null && (body as { stream?: unknown }).stream === true;
  const model = gemini
    ? decodeURIComponent(gemini[1]!)
    : String((body as { model?: unknown } | undefined)?.model ?? "fake-model");
  if (reply.kind === "error" && !(reply.midStream && streaming && protocol !== "openai")) {
    sendError(response, protocol, reply);
    return;
  }
  if (reply.kind === "compaction") {
    state.served += 1;
    if (protocol !== "anthropic") {
      sendError(response, protocol, {
        kind: "error",
        status: 400,
        message: "fake provider: a compaction reply is Anthropic's",
      });
      return;
    }
    const answer = compactionAnswer(reply, model, `msg_fake_${state.served}`, streaming);
    if (answer.frames === undefined) sendJson(response, 200, answer.json);
    else await streamFrames(response, answer.frames, {});
    return;
  }
  state.served += 1;
  const defaultId =
    protocol === "anthropic"
      ? `msg_fake_${state.served}`
      : protocol === "responses"
        ? `resp_fake_${state.served}`
        : protocol === "gemini"
          ? `gemini-fake-${state.served}`
          : `chatcmpl-fake-${state.served}`;
  const messageId = (reply.kind === "error" ? undefined : reply.messageId) ?? defaultId;
  if (protocol === "gemini") {
    if (reply.kind === "error") {
      await streamFrames(response, geminiFailureFrames(reply, model, messageId), {});
    } else if (streaming) {
      await streamFrames(response, geminiFrames(reply, model, messageId), reply);
    } else {
      sendJson(response, 200, geminiJson(reply, model, messageId));
    }
    return;
  }
  if (protocol === "responses") {
    if (reply.kind === "error") {
      await streamFrames(response, responsesFailureFrames(reply, model, messageId), {});
    } else if (streaming) {
      await streamFrames(response, responsesFrames(reply, model, messageId), reply);
    } else {
      sendJson(response, 200, responsesJson(reply, model, messageId));
    }
    return;
  }
  if (!streaming) {
    const json =
      protocol === "anthropic"
        ? anthropicJson(reply as FakeMessageReply, model, messageId)
        : openaiJson(reply as FakeMessageReply, model, messageId);
    sendJson(response, 200, json);
    return;
  }
  const frames =
    protocol === "anthropic"
      ? anthropicFrames(reply, model, messageId)
      : openaiFrames(reply as FakeMessageReply, model, messageId);
  await streamFrames(response, frames, reply.kind === "error" ? {} : reply);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function sendJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(value));
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function errorType(reply: FakeErrorReply): string {
  return reply.errorType ?? ANTHROPIC_ERROR_TYPES[reply.status] ?? "api_error";
}

function sendError(
  response: ServerResponse,
  protocol: "anthropic" | "openai" | "responses" | "gemini",
  reply: FakeErrorReply,
): void {
  const headers: Record<string, string> = {};
  if (reply.retryAfterSeconds !== undefined) headers["retry-after"] = String(reply.retryAfterSeconds);
  const message = reply.message ?? `fake ${reply.status} error`;
  const body =
    protocol === "anthropic"
      ? { type: "error", error: { type: errorType(reply), message } }
      : protocol === "gemini"
        ? geminiError(reply)
        : { error: { message, type: errorType(reply), param: null, code: reply.code ?? null } };
  sendJson(response, reply.status, body, headers);
}

interface Frame {
  event?: string;
  data: string;
}

async function streamFrames(
  response: ServerResponse,
  frames: Frame[],
  timing: {
    chunkDelayMs?: number;
    cutAfterEvents?: number;
    holdAfterEvents?: number;
    release?: Promise<unknown>;
  },
): Promise<void> {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  for (let position = 0; position < frames.length; position++) {
    if (timing.holdAfterEvents !== undefined && position === timing.holdAfterEvents && timing.release) {
      await Promise.race([timing.release, new Promise((resolve) => response.once("close", resolve))]);
      if (closed) return;
    } else if (
      timing.holdAfterEvents !== undefined &&
      position >= timing.holdAfterEvents &&
      !timing.release
    ) {
      if (!closed) await new Promise((resolve) => response.once("close", resolve));
      return;
    }
    if (timing.cutAfterEvents !== undefined && position >= timing.cutAfterEvents) {
      // Let the events already written reach the client, then drop the connection without the
      // terminating chunk, as a proxy or a crashed server would.
      await new Promise((resolve) => setTimeout(resolve, 20));
      response.socket?.destroy();
      return;
    }
    if (timing.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, timing.chunkDelayMs));
    if (closed) return;
    const frame = frames[position]!;
    response.write(`${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${frame.data}\n\n`);
  }
  response.end();
}

function stopOf(reply: FakeMessageReply): NonNullable<FakeMessageReply["stop"]> {
  return reply.stop ?? (reply.blocks.some((block) => block.type === "tool-call") ? "tool-use" : "end");
}

/** The beta header of Anthropic's on-demand compaction. */
export const COMPACTION_BETA = "compact-2026-09-04";

/** The signature the fake gives a compaction block's content (and checks when it comes back). */
export function fakeCompactionSignature(content: string): string {
  return `fakesig-${createHash("sha256").update(content).digest("base64url").slice(0, 32)}`;
}

/**
 * What Anthropic would refuse in a request about compaction (see the module comment), as a 400
 * reply, or undefined.
 */
function compactionProblem(body: unknown, headers: Record<string, string>): FakeErrorReply | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const request = body as Record<string, unknown>;
  const messages = Array.isArray(request.messages) ? (request.messages as Record<string, unknown>[]) : [];
  const blocks: { message: number; block: number; value: Record<string, unknown> }[] = [];
  messages.forEach((message, messageIndex) => {
    if (!Array.isArray(message.content)) return;
    (message.content as Record<string, unknown>[]).forEach((value, blockIndex) => {
      if (value?.type === "compaction") blocks.push({ message: messageIndex, block: blockIndex, value });
    });
  });
  if (request.compaction === undefined && blocks.length === 0) return undefined;
  const fail = (errorType: string, message: string): FakeErrorReply => ({
    kind: "error",
    status: 400,
    errorType,
    message,
  });
  const betas = (headers["anthropic-beta"] ?? "").split(",").map((beta) => beta.trim());
  if (!betas.includes(COMPACTION_BETA)) {
    return fail("invalid_request_error", `compaction needs the ${COMPACTION_BETA} beta header`);
  }
  if (request.compaction !== undefined) {
    const choice = (request.tool_choice as { type?: unknown } | undefined)?.type;
    if (
      request.context_management !== undefined ||
      request.stop_sequences !== undefined ||
      choice === "any" ||
      choice === "tool"
    ) {
      return fail(
        "invalid_request_error",
        "compaction cannot be combined with context_management, stop_sequences or a forced tool_choice",
      );
    }
  }
  if (blocks.length > 1 || (blocks.length === 1 && (blocks[0]!.message !== 0 || blocks[0]!.block !== 0))) {
    return fail(
      "compaction_block_misplaced",
      "a compaction block must be the first block of the first message, once",
    );
  }
  const block = blocks[0]?.value;
  if (block !== undefined && block.signature !== fakeCompactionSignature(String(block.content))) {
    return fail("compaction_content_mismatch", "the compaction block's content does not match its signature");
  }
  return undefined;
}

/** Splits text into a few pieces so clients see several deltas. */
function splitText(text: string): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  return pieces.length === 0 ? [text] : pieces;
}

function splitInTwo(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return text.length < 2 ? [text] : [text.slice(0, middle), text.slice(middle)];
}

const ANTHROPIC_STOPS = {
  end: "end_turn",
  "max-tokens": "max_tokens",
  "tool-use": "tool_use",
  refusal: "refusal",
};

/** On-demand compaction reports 0 at the top level; the real cost is in `iterations`. */
function compactionUsage(reply: FakeCompactionReply): Record<string, unknown> {
  return {
    input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 0,
    iterations: [
      {
        type: "compaction",
        input_tokens: reply.usage?.inputTokens ?? 10,
        output_tokens: reply.usage?.outputTokens ?? 5,
      },
    ],
  };
}

/** The message (JSON) or frames (streamed) of a compaction reply. */
function compactionAnswer(reply: FakeCompactionReply, model: string, messageId: string, streaming: boolean) {
  const block = {
    type: "compaction",
    content: reply.content,
    signature: reply.signature ?? fakeCompactionSignature(reply.content),
  };
  const usage = compactionUsage(reply);
  const message = { id: messageId, type: "message", role: "assistant", model, stop_sequence: null };
  if (!streaming) return { json: { ...message, content: [block], stop_reason: "compaction", usage } };
  const frame = (event: string, data: Record<string, unknown>): Frame => ({
    event,
    data: JSON.stringify({ type: event, ...data }),
  });
  return {
    frames: [
      frame("message_start", { message: { ...message, content: [], stop_reason: null, usage } }),
      // Streamed, the block arrives whole in its start event.
      frame("content_block_start", { index: 0, content_block: block }),
      frame("content_block_stop", { index: 0 }),
      frame("message_delta", { delta: { stop_reason: "compaction", stop_sequence: null }, usage }),
      frame("message_stop", {}),
    ],
  };
}

function anthropicUsage(scripted: FakeUsage | "counted" = {}): Record<string, number> {
  // Counted usage is resolved when the request arrives (`replyUsage`).
  const usage: FakeUsage = scripted === "counted" ? {} : scripted;
  return {
    input_tokens: usage.inputTokens ?? 10,
    cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
    output_tokens: usage.outputTokens ?? 5,
  };
}

function anthropicFrames(
  reply: FakeMessageReply | FakeErrorReply,
  model: string,
  messageId: string,
): Frame[] {
  const frame = (event: string, data: Record<string, unknown>): Frame => ({
    event,
    data: JSON.stringify({ type: event, ...data }),
  });
  const usage = anthropicUsage(reply.kind === "error" ? {} : reply.usage);
  const start = frame("message_start", {
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  if (reply.kind === "error") {
    return [
      start,
      frame("ping", {}),
      frame("error", { error: { type: errorType(reply), message: reply.message ?? "error" } }),
    ];
  }
  const frames: Frame[] = [start, frame("ping", {})];
  reply.blocks.forEach((block, index) => {
    frames.push(...anthropicBlockFrames(block, index, frame));
  });
  frames.push(
    frame("message_delta", {
      delta: { stop_reason: ANTHROPIC_STOPS[stopOf(reply)], stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    frame("message_stop", {}),
  );
  return frames;
}

function anthropicBlockFrames(
  block: FakeBlock,
  index: number,
  frame: (event: string, data: Record<string, unknown>) => Frame,
): Frame[] {
  const delta = (value: Record<string, unknown>) => frame("content_block_delta", { index, delta: value });
  const stop = frame("content_block_stop", { index });
  switch (block.type) {
    case "text":
      return [
        frame("content_block_start", { index, content_block: { type: "text", text: "" } }),
        ...splitText(block.text).map((text) => delta({ type: "text_delta", text })),
        stop,
      ];
    case "thinking":
      return [
        frame("content_block_start", {
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
        ...splitText(block.text).map((thinking) => delta({ type: "thinking_delta", thinking })),
        delta({ type: "signature_delta", signature: block.signature }),
        stop,
      ];
    case "tool-call":
      return [
        frame("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
        ...splitInTwo(argumentsText(block)).map((partial_json) =>
          delta({ type: "input_json_delta", partial_json }),
        ),
        stop,
      ];
  }
}

function argumentsText(block: Extract<FakeBlock, { type: "tool-call" }>): string {
  return block.argumentsText ?? JSON.stringify(block.arguments);
}

function anthropicJson(reply: FakeMessageReply, model: string, messageId: string): unknown {
  return {
    id: messageId,
    type: "message",
    role: "assistant",
    model,
    content: reply.blocks.map((block) =>
      block.type === "text"
        ? { type: "text", text: block.text }
        : block.type === "thinking"
          ? { type: "thinking", thinking: block.text, signature: block.signature }
          : { type: "tool_use", id: block.id, name: block.name, input: block.arguments },
    ),
    stop_reason: ANTHROPIC_STOPS[stopOf(reply)],
    stop_sequence: null,
    usage: anthropicUsage(reply.usage),
  };
}

const OPENAI_STOPS = {
  end: "stop",
  "max-tokens": "length",
  "tool-use": "tool_calls",
  refusal: "content_filter",
};

function openaiUsage(scripted: FakeUsage | "counted" = {}): Record<string, unknown> {
  // Counted usage is resolved when the request arrives (`replyUsage`).
  const usage: FakeUsage = scripted === "counted" ? {} : scripted;
  const cached = usage.cacheReadTokens ?? 0;
  const prompt = (usage.inputTokens ?? 10) + cached;
  const completion = usage.outputTokens ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
  };
}

function openaiFrames(reply: FakeMessageReply, model: string, messageId: string): Frame[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Frame => ({
    data: JSON.stringify({
      id: messageId,
      object: "chat.completion.chunk",
      created: 0,
      model,
      choices,
      ...extra,
    }),
  });
  const delta = (value: Record<string, unknown>) => chunk([{ index: 0, delta: value, finish_reason: null }]);
  const frames: Frame[] = [delta({ role: "assistant", content: "" })];
  let toolIndex = 0;
  for (const block of reply.blocks) {
    if (block.type === "text") frames.push(...splitText(block.text).map((content) => delta({ content })));
    if (block.type === "thinking") {
      frames.push(...splitText(block.text).map((reasoning_content) => delta({ reasoning_content })));
    }
    if (block.type === "tool-call") {
      const index = toolIndex++;
      const [first = "", second = ""] = splitInTwo(argumentsText(block));
      frames.push(
        delta({
          tool_calls: [
            { index, id: block.id, type: "function", function: { name: block.name, arguments: first } },
          ],
        }),
        delta({ tool_calls: [{ index, function: { arguments: second } }] }),
      );
    }
  }
  frames.push(chunk([{ index: 0, delta: {}, finish_reason: OPENAI_STOPS[stopOf(reply)] }]));
  frames.push(chunk([], { usage: openaiUsage(reply.usage) }));
  frames.push({ data: "[DONE]" });
  return frames;
}

function openaiJson(reply: FakeMessageReply, model: string, messageId: string): unknown {
  const text = reply.blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const reasoning = reply.blocks.flatMap((block) => (block.type === "thinking" ? [block.text] : [])).join("");
  const toolCalls = reply.blocks.flatMap((block) =>
    block.type === "tool-call"
      ? [
          {
            id: block.id,
            type: "function",
            function: { name: block.name, arguments: JSON.stringify(block.arguments) },
          },
        ]
      : [],
  );
  const message: Record<string, unknown> = { role: "assistant", content: text.length > 0 ? text : null };
  if (reasoning.length > 0) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: messageId,
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, message, finish_reason: OPENAI_STOPS[stopOf(reply)] }],
    usage: openaiUsage(reply.usage),
  };
}

/** The Responses API's usage object: cached tokens counted inside `input_tokens`. */
function responsesUsage(scripted: FakeUsage | "counted" = {}): Record<string, unknown> {
  // Counted usage is resolved when the request arrives (`replyUsage`).
  const usage: FakeUsage = scripted === "counted" ? {} : scripted;
  const cached = usage.cacheReadTokens ?? 0;
  const input = (usage.inputTokens ?? 10) + cached;
  const output = usage.outputTokens ?? 5;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}

/** The output items of a reply, completed, as `response.completed` lists them. */
function responsesItems(reply: FakeMessageReply, responseId: string): Record<string, unknown>[] {
  return reply.blocks.map((block, index) => {
    const id = `${responseId}_item_${index}`;
    if (block.type === "text") {
      const content =
        stopOf(reply) === "refusal"
          ? { type: "refusal", refusal: block.text }
          : { type: "output_text", text: block.text, annotations: [], logprobs: [] };
      return { id, type: "message", role: "assistant", status: "completed", content: [content] };
    }
    if (block.type === "thinking") {
      return {
        id,
        type: "reasoning",
        summary: block.text === "" ? [] : [{ type: "summary_text", text: block.text }],
        encrypted_content: block.signature,
      };
    }
    return {
      id,
      type: "function_call",
      status: "completed",
      call_id: block.id,
      name: block.name,
      ...(block.namespace === undefined ? {} : { namespace: block.namespace }),
      arguments: argumentsText(block),
    };
  });
}

/** The response object itself, as `response.created` (in progress) and the terminal events carry it. */
function responsesObject(
  reply: FakeMessageReply | undefined,
  model: string,
  responseId: string,
  status: string,
): Record<string, unknown> {
  const finished = status !== "in_progress" && reply !== undefined;
  return {
    id: responseId,
    object: "response",
    created_at: 0,
    model,
    status,
    output: finished ? responsesItems(reply, responseId) : [],
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    error: null,
    usage: finished ? responsesUsage(reply.usage) : null,
  };
}

/**
 * The Responses API's stream as OpenAI sends it, each event with its `sequence_number`:
 * `response.created`, `response.in_progress`, then per output item `output_item.added`, its parts
 * and deltas (`output_text.delta`, `refusal.delta`, `reasoning_summary_part.added` and
 * `reasoning_summary_text.delta`, `function_call_arguments.delta`) and `output_item.done`; then
 * `response.completed` with the usage, or `response.incomplete` for `stop: "max-tokens"`.
 */
function responsesFrames(reply: FakeMessageReply, model: string, responseId: string): Frame[] {
  let sequence = 0;
  const frames: Frame[] = [];
  const emit = (type: string, data: Record<string, unknown>) => {
    frames.push({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...data }) });
  };
  emit("response.created", { response: responsesObject(reply, model, responseId, "in_progress") });
  emit("response.in_progress", { response: responsesObject(reply, model, responseId, "in_progress") });
  const items = responsesItems(reply, responseId);
  reply.blocks.forEach((block, output_index) => {
    const item = items[output_index]!;
    const item_id = item.id;
    if (block.type === "text") {
      const refusal = stopOf(reply) === "refusal";
      const part = refusal
        ? { type: "refusal", refusal: "" }
        : { type: "output_text", text: "", annotations: [] };
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      emit("response.content_part.added", { item_id, output_index, content_index: 0, part });
      for (const delta of splitText(block.text)) {
        emit(refusal ? "response.refusal.delta" : "response.output_text.delta", {
          item_id,
          output_index,
          content_index: 0,
          delta,
          ...(refusal ? {} : { logprobs: [] }),
        });
      }
      emit(refusal ? "response.refusal.done" : "response.output_text.done", {
        item_id,
        output_index,
        content_index: 0,
        ...(refusal ? { refusal: block.text } : { text: block.text, logprobs: [] }),
      });
      emit("response.content_part.done", {
        item_id,
        output_index,
        content_index: 0,
        part: (item.content as unknown[])[0],
      });
    } else if (block.type === "thinking") {
      emit("response.output_item.added", { output_index, item: { ...item, summary: [] } });
      if (block.text !== "") {
        const part = { type: "summary_text", text: "" };
        emit("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part });
        for (const delta of splitText(block.text)) {
          emit("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
        }
        emit("response.reasoning_summary_text.done", {
          item_id,
          output_index,
          summary_index: 0,
          text: block.text,
        });
        emit("response.reasoning_summary_part.done", {
          item_id,
          output_index,
          summary_index: 0,
          part: { type: "summary_text", text: block.text },
        });
      }
    } else {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of splitInTwo(argumentsText(block))) {
        emit("response.function_call_arguments.delta", { item_id, output_index, delta });
      }
      emit("response.function_call_arguments.done", {
        item_id,
        output_index,
        arguments: argumentsText(block),
      });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const incomplete = stopOf(reply) === "max-tokens";
  emit(incomplete ? "response.incomplete" : "response.completed", {
    response: responsesObject(reply, model, responseId, incomplete ? "incomplete" : "completed"),
  });
  return frames;
}

/**
 * A failure after the stream started: `response.created`, then `response.failed` carrying the
 * error's code and message (or, with `event: "error"`, an `error` event).
 */
function responsesFailureFrames(reply: FakeErrorReply, model: string, responseId: string): Frame[] {
  const frame = (type: string, sequence: number, data: Record<string, unknown>): Frame => ({
    event: type,
    data: JSON.stringify({ type, sequence_number: sequence, ...data }),
  });
  const created = frame("response.created", 0, {
    response: responsesObject(undefined, model, responseId, "in_progress"),
  });
  const message = reply.message ?? `fake ${reply.status} error`;
  const code = reply.code ?? reply.errorType ?? "server_error";
  if (reply.event === "error") return [created, frame("error", 1, { code, message, param: null })];
  return [
    created,
    frame("response.failed", 1, {
      response: { ...responsesObject(undefined, model, responseId, "failed"), error: { code, message } },
    }),
  ];
}

/** The whole response as JSON, for `stream: false`. */
function responsesJson(reply: FakeMessageReply, model: string, responseId: string): unknown {
  const incomplete = stopOf(reply) === "max-tokens";
  return responsesObject(reply, model, responseId, incomplete ? "incomplete" : "completed");
}

/** Anthropic's Models API: `/v1/models` and `/v1/models/<id>` (the SDK adds `?beta=true`). */
const MODELS_PATH = /^\/v1\/models(?:\/([^/?:]+))?(?:\?.*)?$/;

/** A model as Anthropic's beta Models API describes it (the fields cxc reads, and their kin). */
function modelInfo(model: FakeModel): Record<string, unknown> {
  const supported = (value: boolean) => ({ supported: value });
  return {
    type: "model",
    id: model.id,
    display_name: model.id,
    created_at: "2026-01-01T00:00:00Z",
    lifecycle: "active",
    max_input_tokens: 200_000,
    max_tokens: 64_000,
    capabilities:
      model.capabilities === false
        ? null
        : {
            batch: supported(true),
            citations: supported(true),
            compaction:
              model.compaction === null
                ? null
                : { supported: model.compaction ?? false, summarize: supported(model.compaction ?? false) },
            context_management: { supported: true, clear_tool_uses_20250919: supported(true) },
            image_input: supported(true),
            pdf_input: supported(true),
            structured_outputs: supported(true),
          },
  };
}

function serveModels(response: ServerResponse, models: readonly FakeModel[], path: string): void {
  const id = MODELS_PATH.exec(path)?.[1];
  if (id === undefined) {
    const data = models.map(modelInfo);
    sendJson(response, 200, {
      data,
      has_more: false,
      first_id: models[0]?.id ?? null,
      last_id: models.at(-1)?.id ?? null,
    });
    return;
  }
  const model = models.find((candidate) => candidate.id === decodeURIComponent(id));
  if (model === undefined) {
    sendJson(response, 404, {
      type: "error",
      error: { type: "not_found_error", message: `model: ${decodeURIComponent(id)}` },
    });
    return;
  }
  sendJson(response, 200, modelInfo(model));
}

/** Gemini's paths: `/v1beta/models/<model>:<method>` (the query, `?alt=sse`, follows). */
const GEMINI_PATH =
  /^\/v1(?:beta|alpha)?\d*\/models\/([^:/?]+):(streamGenerateContent|generateContent|countTokens)\b/;

/** Google's RPC status name for an HTTP status. */
const GEMINI_STATUSES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/**
 * Google's error body. `errorType` is the status name when set; a `retryAfterSeconds` becomes a
 * `RetryInfo` detail (Gemini sends no `retry-after` header); `code: "API_KEY_INVALID"` the
 * `ErrorInfo` detail of a key Google refuses.
 */
function geminiError(reply: FakeErrorReply): Record<string, unknown> {
  const details: Record<string, unknown>[] = [];
  if (reply.code !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: reply.code,
      domain: "googleapis.com",
    });
  }
  if (reply.retryAfterSeconds !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${reply.retryAfterSeconds}s`,
    });
  }
  return {
    error: {
      code: reply.status,
      message: reply.message ?? `fake ${reply.status} error`,
      status: reply.errorType ?? GEMINI_STATUSES[reply.status] ?? "UNKNOWN",
      ...(details.length === 0 ? {} : { details }),
    },
  };
}

const GEMINI_FINISH = { end: "STOP", "max-tokens": "MAX_TOKENS", "tool-use": "STOP", refusal: "SAFETY" };

/** Gemini's usage: cached tokens inside `promptTokenCount`, thoughts apart from the candidates. */
function geminiUsage(scripted: FakeUsage | "counted" = {}, final = true): Record<string, number> {
  // Counted usage is resolved when the request arrives (`replyUsage`).
  const usage: FakeUsage = scripted === "counted" ? {} : scripted;
  const cached = usage.cacheReadTokens ?? 0;
  const prompt = (usage.inputTokens ?? 10) + cached;
  const thoughts = usage.reasoningTokens ?? 0;
  const candidates = final ? Math.max(0, (usage.outputTokens ?? 5) - thoughts) : 0;
  return {
    promptTokenCount: prompt,
    ...(final ? { candidatesTokenCount: candidates } : {}),
    totalTokenCount: prompt + (final ? candidates + thoughts : 0),
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(final && thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/** The parts of a block as Gemini streams them: text in pieces, a thought and a call whole. */
function geminiParts(block: FakeBlock, whole: boolean): Record<string, unknown>[][] {
  switch (block.type) {
    case "text":
      return (whole ? [block.text] : splitText(block.text)).map((text) => [{ text }]);
    case "thinking":
      // Gemini streams a thought summary as one part (Gemini CLI records one thought per part).
      return [
        [
          {
            text: block.text,
            thought: true,
            ...(block.signature === "" ? {} : { thoughtSignature: block.signature }),
          },
        ],
      ];
    case "tool-call": {
      const args = block.argumentsText === undefined ? block.arguments : JSON.parse(block.argumentsText);
      const part: Record<string, unknown> = { functionCall: { name: block.name, args } };
      if (block.signature !== undefined) part.thoughtSignature = block.signature;
      return [[part]];
    }
  }
}

/**
 * Gemini's stream: one `GenerateContentResponse` per event, each holding the next parts of the
 * one candidate and the usage so far; the last carries the finish reason and the whole usage.
 */
function geminiFrames(reply: FakeMessageReply, model: string, responseId: string): Frame[] {
  const chunk = (
    parts: Record<string, unknown>[],
    extra: Record<string, unknown> = {},
    final = false,
  ): Frame => ({
    data: JSON.stringify({
      candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
      usageMetadata: geminiUsage(reply.usage, final),
      modelVersion: model,
      responseId,
    }),
  });
  const frames = reply.blocks.flatMap((block) => geminiParts(block, false).map((parts) => chunk(parts)));
  frames.push(chunk([{ text: "" }], { finishReason: GEMINI_FINISH[stopOf(reply)] }, true));
  return frames;
}

/** A failure after the stream started: a first chunk, then Google's error object as an event. */
function geminiFailureFrames(reply: FakeErrorReply, model: string, responseId: string): Frame[] {
  const first = {
    data: JSON.stringify({
      candidates: [{ content: { parts: [{ text: "" }], role: "model" }, index: 0 }],
      modelVersion: model,
      responseId,
    }),
  };
  return [first, { data: JSON.stringify(geminiError(reply)) }];
}

/** The whole response as JSON, for `:generateContent`. */
function geminiJson(reply: FakeMessageReply, model: string, responseId: string): unknown {
  return {
    candidates: [
      {
        content: { parts: reply.blocks.flatMap((block) => geminiParts(block, true).flat()), role: "model" },
        finishReason: GEMINI_FINISH[stopOf(reply)],
        index: 0,
      },
    ],
    usageMetadata: geminiUsage(reply.usage),
    modelVersion: model,
    responseId,
  };
}
