/**
 * The turn loop: one user message in, the model's answer and tool calls out, everything stored as
 * it completes.
 *
 * The caller holds the conversation's lock for the whole turn. The loop:
 *
 * 1. stores, in one append, answers to tool calls an earlier run left unanswered ("Tool call was
 *    interrupted."), a `config_delta` when the model changed, `turn_start` and the user's
 *    `chat_request` — so the message is on disk before any request is sent;
 * 2. per cycle: projects the conversation (compaction overlays applied), builds the request,
 *    streams the answer and stores each block as it completes (see core/conversation/fold-stream.ts);
 * 3. runs the cycle's tool calls in the order the model asked for them, each after its approval,
 *    storing each response (with the tool's effects, in the same append) as it finishes;
 * 4. loops until a cycle has no tool calls, or stops at the cycle cap with a clear message.
 *
 * A failed or interrupted stream keeps what arrived (marked `interrupted`) and ends the turn with
 * a `CxcError`; tool failures never end the turn, they are answers for the model.
 */
import type { Keeping } from "../compaction/core/keeping.js";
import type { CompactionEnvironment } from "../compaction/environment.js";
import type { ConversationEvent, ToolCallRequest, ToolCallResponse } from "../core/conversation/events.js";
import {
  createStreamFold,
  type EventDraft,
  type FoldableStreamEvent,
  foldStreamEvent,
  INVALID_ARGUMENTS_KEY,
  invalidArgumentsAnswer,
  interruptStreamFold,
  type StreamFoldState,
  type StreamOutcome,
  stampDraft,
  USAGE_KEY,
} from "../core/conversation/fold-stream.js";
import { projectConversation } from "../core/conversation/projection.js";
import { analyzeRecall, placeRecallIndex, type RecallOptions } from "../core/conversation/recall.js";
import { buildLlmRequest, INTERRUPTED_TOOL_RESULT } from "../core/conversation/request.js";
import { CxcError, ExitCode } from "../errors.js";
import type { LlmClient } from "../llm/types.js";
import { type LockedConversation, readOnly, type StoreReader } from "../store/index.js";
import { checkArguments, describeToolCall, type ToolCallContext, type ToolOutcome } from "../tools/tool.js";
import type { TurnApprovals } from "./approval.js";
import { providerError } from "./provider-errors.js";
import { recallLeftOutNotice, recallRefusedEvent } from "./recall.js";
import {
  type SelectedTool,
  type ToolSelection,
  toolChoiceForCycle,
  toolDefinitions,
} from "./tool-selection.js";

/** Ids and time, injected so tests are deterministic. */
export interface TurnClock {
  now(): string;
  newEventId(): string;
}

/** How a tool call was answered (see `TurnDisplay.toolFinished`). */
export type ToolCallEnd = "ran" | "declined" | "not-run";

/** What the user sees; implementations live in src/cli/terminal/turn-display.ts. */
export interface TurnDisplay {
  requestStarted(cycle: number): void;
  textDelta(text: string): void;
  reasoningDelta(text: string): void;
  /** Every stored event, in order (the NDJSON output uses this). */
  eventStored(event: ConversationEvent): void;
  /** A call is next: shown once, before any approval prompt. */
  toolStarted(call: ToolCallRequest): void;
  /** The call was approved (or needs no approval) and runs now. */
  toolRunning(call: ToolCallRequest): void;
  /**
   * The call was answered: it ran, the user declined it, or cxc answered it without running it.
   * `shown`: the tool's own one-line account of the result, when it gave one.
   */
  toolFinished(call: ToolCallRequest, response: ToolCallResponse, end: ToolCallEnd, shown?: string): void;
  /** One line of chrome for stderr. */
  notice(text: string): void;
  /** The turn is over (flush buffered output); `failed` when it ends with an error. */
  finish(failed: boolean): void;
}

/**
 * Optional points where the compaction advisor and automatic compaction join the loop (see
 * src/compaction/automatic.ts). Each returns events for the loop to store (a steering message, a
 * compaction); hooks swallow their own failures.
 */
export interface TurnHooks {
  /** After a cycle's tool calls ran, before the next request. */
  afterCycle?(
    events: readonly ConversationEvent[],
    signal: AbortSignal,
  ): Promise<readonly ConversationEvent[]>;
  /** After the turn ended normally (the display is finished). */
  afterTurn?(
    events: readonly ConversationEvent[],
    signal: AbortSignal,
  ): Promise<readonly ConversationEvent[]>;
  /**
   * A request failed with a context overflow before any content arrived: events that compact.
   * The loop stores them and retries the request once; none means the error stands.
   */
  onContextOverflow?(
    events: readonly ConversationEvent[],
    signal: AbortSignal,
  ): Promise<readonly ConversationEvent[]>;
}

/** Inputs of `runTurn`. */
export interface TurnOptions {
  /** What tools read (read-only). */
  readonly store: StoreReader;
  /** The conversation under its lock, held by the caller for the whole turn: where events go. */
  readonly conversation: LockedConversation;
  /** The conversation as loaded under the lock. */
  readonly events: readonly ConversationEvent[];
  readonly message: string;
  /** Recorded before the turn (a model change), when set. */
  readonly configDelta?: Record<string, unknown>;
  readonly client: LlmClient;
  readonly system?: string;
  readonly maxOutputTokens?: number;
  readonly tools: ToolSelection;
  readonly approvals: TurnApprovals;
  readonly display: TurnDisplay;
  readonly maxCycles: number;
  readonly signal: AbortSignal;
  readonly clock: TurnClock;
  readonly cwd: string;
  readonly hooks?: TurnHooks;
  /** What compactions keep by construction (the `compact` tool's plans). */
  readonly keeping?: Keeping;
  /** The process's compaction environment, for the tools that compact. */
  readonly compaction?: CompactionEnvironment;
  /** The context of the next request, as this turn measures it (the `compact` tool's approval). */
  readonly compactionEffect?: ToolCallContext["compactionEffect"];
  /**
   * Recall (src/query/recall.ts): `index` builds the recall index every request carries while the
   * `recall` tool is among `tools`; `record`, stored with the opening events, says recall is left
   * out for this model. A model that refuses a request for its tools loses `recall` (and the index)
   * for the rest of the turn, and the conversation remembers it.
   */
  readonly recall?: { readonly index?: RecallOptions; readonly record?: ConversationEvent };
}

/** How a turn ended. */
export interface TurnResult {
  readonly cycles: number;
  readonly stoppedAtCycleCap: boolean;
  /** Every event this run stored, in order. */
  readonly stored: readonly ConversationEvent[];
}

interface TurnState {
  readonly options: TurnOptions;
  readonly events: ConversationEvent[];
  readonly stored: ConversationEvent[];
  /** The one retry after a context overflow has been spent. */
  overflowRetried: boolean;
  /** The tools offered: the options' tools, less `recall` once the model refused tools. */
  tools: ToolSelection;
  /** How the recall index is built; undefined without recall. */
  recallIndex: RecallOptions | undefined;
}

/** Runs one turn; see the module comment. */
export async function runTurn(options: TurnOptions): Promise<TurnResult> {
  const state: TurnState = {
    options,
    events: [...options.events],
    stored: [],
    overflowRetried: false,
    tools: options.tools,
    recallIndex: options.recall?.index,
  };
  // Ctrl-C while waiting for the lock: stop before storing anything.
  if (options.signal.aborted) throw interrupted();
  try {
    store(state, openingEvents(options));
    let cycle = 0;
    for (;;) {
      const calls = await streamCycleWithOverflowRetry(state, cycle);
      cycle += 1;
      if (calls.length === 0) break;
      if (cycle >= options.maxCycles) {
        answerAtCycleCap(state, calls);
        options.display.finish(false);
        return { cycles: cycle, stoppedAtCycleCap: true, stored: state.stored };
      }
      await runToolCalls(state, calls);
      if (options.hooks?.afterCycle)
        store(state, await options.hooks.afterCycle(state.events, options.signal));
    }
    options.display.finish(false);
    if (options.hooks?.afterTurn) store(state, await options.hooks.afterTurn(state.events, options.signal));
    return { cycles: cycle, stoppedAtCycleCap: false, stored: state.stored };
  } catch (error) {
    options.display.finish(true);
    throw error;
  }
}

function stamp(clock: TurnClock): { id: string; ts: string } {
  return { id: clock.newEventId(), ts: clock.now() };
}

/** Orphan repairs, the model delta, turn_start and the request, in one append. */
function openingEvents(options: TurnOptions): ConversationEvent[] {
  const events: ConversationEvent[] = answerOrphanedCalls(options.events, options.clock);
  if (options.recall?.record !== undefined) events.push(options.recall.record);
  if (options.configDelta !== undefined) {
    events.push({ type: "config_delta", ...stamp(options.clock), delta: options.configDelta });
  }
  events.push({ type: "turn_start", ...stamp(options.clock) });
  events.push({ type: "chat_request", ...stamp(options.clock), content: options.message });
  return events;
}

/** Error responses for tool calls that never got one (a run interrupted mid-turn). */
export function answerOrphanedCalls(
  events: readonly ConversationEvent[],
  clock: TurnClock,
): ToolCallResponse[] {
  const answered = new Set<string>();
  for (const event of events) if (event.type === "tool_call_response") answered.add(event.call_id);
  const repairs: ToolCallResponse[] = [];
  for (const event of events) {
    if (event.type !== "tool_call_request" || answered.has(event.call_id)) continue;
    answered.add(event.call_id);
    repairs.push({
      type: "tool_call_response",
      ...stamp(clock),
      call_id: event.call_id,
      content: INTERRUPTED_TOOL_RESULT,
      is_error: true,
    });
  }
  return repairs;
}

function store(state: TurnState, events: readonly ConversationEvent[]): void {
  if (events.length === 0) return;
  state.options.conversation.append(events);
  state.events.push(...events);
  state.stored.push(...events);
  for (const event of events) state.options.display.eventStored(event);
}

/**
 * `streamCycle`, retried once after a context overflow the `onContextOverflow` hook compacted, and
 * once without `recall` when the model refused the request for its tools.
 */
async function streamCycleWithOverflowRetry(state: TurnState, cycle: number): Promise<ToolCallRequest[]> {
  const storedBefore = state.stored.length;
  try {
    return await streamCycle(state, cycle);
  } catch (error) {
    if (
      CxcError.isInstance(error) &&
      error.code === "provider-tools-unsupported" &&
      state.recallIndex !== undefined &&
      state.stored.length === storedBefore
    ) {
      const { options } = state;
      state.tools = { ...state.tools, tools: state.tools.tools.filter(({ tool }) => tool.name !== "recall") };
      state.recallIndex = undefined;
      store(state, [recallRefusedEvent(options.client.modelId, stamp(options.clock))]);
      options.display.notice(recallLeftOutNotice(options.client.modelId));
      return streamCycleWithOverflowRetry(state, cycle);
    }
    const hook = state.options.hooks?.onContextOverflow;
    const overflow = CxcError.isInstance(error) && error.code === "provider-context-overflow";
    if (hook === undefined || !overflow || state.overflowRetried || state.stored.length !== storedBefore)
      throw error;
    state.overflowRetried = true;
    const compaction = await hook(state.events, state.options.signal);
    if (compaction.length === 0) throw error;
    store(state, compaction);
    return streamCycle(state, cycle);
  }
}

/** One request and its streamed answer; returns the tool calls stored in this cycle. */
async function streamCycle(state: TurnState, cycle: number): Promise<ToolCallRequest[]> {
  const { options } = state;
  const view = projectConversation(state.events);
  const toolChoice = toolChoiceForCycle(state.tools, cycle);
  const placement =
    state.recallIndex === undefined
      ? undefined
      : placeRecallIndex(analyzeRecall(state.events, { ...state.recallIndex, view }));
  const request = buildLlmRequest(view.turns, {
    ...(options.system === undefined ? {} : { system: options.system }),
    tools: toolDefinitions(state.tools),
    ...(placement === undefined ? {} : { recallIndex: placement }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
  });
  options.display.requestStarted(cycle);
  const calls: ToolCallRequest[] = [];
  let fold: StreamFoldState = createStreamFold();
  let outcome: StreamOutcome | undefined;
  let storedContent = false;
  const offered = state.tools.tools.map(({ tool }) => tool.name);
  const keep = (drafts: readonly EventDraft[]): void => {
    const events = drafts.map((draft) => stampDraft(withOfferedTools(draft, offered), stamp(options.clock)));
    store(state, events);
    for (const event of events) if (event.type === "tool_call_request") calls.push(event);
    if (events.length > 0) storedContent = true;
  };
  try {
    for await (const event of options.client.stream(request, { signal: options.signal })) {
      showDelta(options.display, event);
      const step = foldStreamEvent(fold, event as FoldableStreamEvent);
      fold = step.state;
      keep(step.drafts);
      if (step.outcome) outcome = step.outcome;
    }
  } catch (error) {
    // A client that throws breaks its contract; the partial answer is kept all the same.
    if (CxcError.isInstance(error)) throw error;
    keep(interruptStreamFold(fold).drafts);
    const message = error instanceof Error ? error.message : String(error);
    outcome = { kind: "failed", error: { kind: "other", message } };
  }
  if (outcome === undefined) {
    // The client broke its contract (no terminal event); keep what arrived all the same.
    keep(interruptStreamFold(fold).drafts);
    outcome = { kind: "failed", error: { kind: "network", message: "The response stream ended early." } };
  }
  if (outcome.kind === "failed") {
    const failure = options.signal.aborted ? { ...outcome.error, kind: "aborted" } : outcome.error;
    throw providerError(failure, {
      conversationId: options.conversation.id,
      modelId: options.client.modelId,
      partialStored: storedContent,
    });
  }
  noticeFinish(options.display, outcome.finishReason);
  return calls;
}

/**
 * The answer's usage also names the tools its request offered, so the context of the next request
 * can count their definitions as this request did (compaction/core/advisor/next-request.ts).
 */
function withOfferedTools(draft: EventDraft, offered: readonly string[]): EventDraft {
  const metadata = (draft.metadata ?? {}) as Readonly<Record<string, unknown>>;
  const usage = metadata[USAGE_KEY];
  if (offered.length === 0 || typeof usage !== "object" || usage === null) return draft;
  return { ...draft, metadata: { ...metadata, [USAGE_KEY]: { ...usage, tools: [...offered] } } };
}

function showDelta(display: TurnDisplay, event: { type: string; text?: string }): void {
  if (event.type === "text-delta" && event.text) display.textDelta(event.text);
  else if (event.type === "reasoning-delta" && event.text) display.reasoningDelta(event.text);
}

function noticeFinish(display: TurnDisplay, finishReason: string): void {
  if (finishReason === "length") {
    display.notice("The answer was cut at the output token limit (assistant.max_output_tokens).");
  } else if (finishReason === "refusal") {
    display.notice("The model declined to answer.");
  }
}

/** The cap was reached with calls pending: answer them without running them, so the log stays valid. */
function answerAtCycleCap(state: TurnState, calls: readonly ToolCallRequest[]): void {
  const { maxCycles, clock } = state.options;
  const content = `Not run: this turn reached its limit of ${maxCycles} model requests (conversation.max_cycles).`;
  store(
    state,
    calls.map((call) => ({
      type: "tool_call_response" as const,
      ...stamp(clock),
      call_id: call.call_id,
      content,
      is_error: true,
    })),
  );
  state.options.display.notice(
    `Stopped after ${maxCycles} model requests (conversation.max_cycles); ` +
      "the pending tool calls were not run. Run `cxc q` again to continue.",
  );
}

/** Runs the cycle's calls in request order, storing each response as it finishes. */
async function runToolCalls(state: TurnState, calls: readonly ToolCallRequest[]): Promise<void> {
  const { options } = state;
  for (const call of calls) {
    if (options.signal.aborted) throw interrupted();
    const selected = state.tools.tools.find((entry) => entry.tool.name === call.name);
    options.display.toolStarted(call);
    const { outcome, end } = await executeCall(state, call, selected);
    const response: ToolCallResponse = {
      type: "tool_call_response",
      ...stamp(options.clock),
      call_id: call.call_id,
      content: outcome.content,
      is_error: outcome.isError,
      ...(outcome.metadata === undefined ? {} : { metadata: { ...outcome.metadata } }),
    };
    store(state, [response, ...(outcome.effects ?? [])]);
    options.display.toolFinished(call, response, end, outcome.display);
  }
  if (options.signal.aborted) throw interrupted();
}

async function executeCall(
  state: TurnState,
  call: ToolCallRequest,
  selected: SelectedTool | undefined,
): Promise<{ outcome: ToolOutcome; end: ToolCallEnd }> {
  const { options } = state;
  const notRun = (outcome: ToolOutcome) => ({ outcome, end: "not-run" as const });
  if (selected === undefined) {
    return notRun({
      isError: true,
      content: `Tool ${call.name} is not available in this conversation; do not call it again.`,
    });
  }
  const invalid = call.metadata?.[INVALID_ARGUMENTS_KEY];
  if (typeof invalid === "string") {
    return notRun({ isError: true, content: invalidArgumentsAnswer(invalid) });
  }
  const context = {
    conversationId: options.conversation.id,
    callId: call.call_id,
    events: state.events,
    signal: options.signal,
    cwd: options.cwd,
    store: readOnly(options.store),
    ...(options.keeping === undefined ? {} : { keeping: options.keeping }),
    ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
    ...(options.compactionEffect === undefined ? {} : { compactionEffect: options.compactionEffect }),
    newEventId: () => options.clock.newEventId(),
    now: () => options.clock.now(),
  };
  // The arguments are checked once, by the tool's one definition, before anything else sees them:
  // a call whose arguments fail is answered at once, nobody is asked.
  const tool = selected.tool;
  const checked = await checkArguments(tool, call.arguments);
  if (!checked.ok) return notRun(checked.outcome);
  const rejected = await tool.precheck?.(checked.value, context);
  if (rejected !== undefined) return notRun(rejected);
  const detail =
    tool.describeCall === undefined ? undefined : await tool.describeCall(checked.value, context);
  const decision = await options.approvals.decide(
    {
      name: call.name,
      source: tool.source,
      arguments: call.arguments,
      ...(detail === undefined ? {} : { detail }),
      ...(tool.editing === undefined ? {} : { editing: tool.editing }),
      ...(tool.describeCall === undefined
        ? {}
        : {
            redescribe: async (edited: Readonly<Record<string, unknown>>) =>
              (await describeToolCall(tool, edited, context)) ?? "",
          }),
    },
    selected.run,
  );
  if (decision.kind === "interrupt") throw interrupted();
  if (decision.kind === "decline") {
    const outcome = { isError: decision.isError, content: decision.content };
    return { outcome, end: decision.byUser ? "declined" : "not-run" };
  }
  options.display.toolRunning(call);
  const edited = decision.arguments !== call.arguments;
  // The model should know it was not its own arguments that ran.
  const noted = (outcome: ToolOutcome): ToolOutcome =>
    edited
      ? {
          ...outcome,
          content: `[The user edited the arguments before running: ${JSON.stringify(decision.arguments)}]\n${outcome.content}`,
        }
      : outcome;
  try {
    // Edited arguments are other arguments: checked in their turn.
    const value = edited ? await checkArguments(tool, decision.arguments) : checked;
    if (!value.ok) return { outcome: noted(value.outcome), end: "ran" };
    return { outcome: noted(await tool.run(value.value, context)), end: "ran" };
  } catch (error) {
    return {
      outcome: { isError: true, content: `Tool ${call.name} failed: ${(error as Error).message}` },
      end: "ran",
    };
  }
}

function interrupted(): CxcError {
  return new CxcError("interrupted", "interrupted; what completed so far was saved", {
    hint: "run `cxc q` again to continue the conversation",
    exitCode: ExitCode.interrupted,
  });
}
