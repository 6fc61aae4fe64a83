/**
 * `cxc q` from parsed flags to a finished turn: read the message, load the configuration, pick
 * the conversation (new, given, forked or active) and the model, compact first when `-k` asks,
 * then run the turn holding the conversation's lock.
 *
 * Everything that touches the terminal (the display, the approval prompt, $EDITOR, stdin) comes in
 * through `QueryUi`, so this module knows the order of things and nothing about ttys.
 */
import { copyEventsForFork, selectTurnSlice } from "../core/conversation/fork.js";
import type { ConfigTable } from "../core/config.js";
import { type RecordedSettings, recordedSettings } from "../core/conversation/settings.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import { titleFromPrompt } from "../core/interop/agent-session.js";
import { describeJpTools } from "../core/interop/jp-config.js";
import { applyReviewConfig } from "../compaction/core/review/review.js";
import { configuredAssistantModel } from "../compaction/core/summary/summarizer.js";
import { countTurns } from "../core/conversation/turns.js";
import { CxcError, ExitCode, usageError } from "../errors.js";
import type { RetryNotice } from "../llm/retry.js";
import type { LlmClient } from "../llm/types.js";
import { assertNoOpenReview, newEventId, type Store, timestampNow } from "../store/index.js";
import { createBuiltinRegistry } from "../tools/registry.js";
import { type ApprovalPrompter, TurnApprovals } from "./approval.js";
import {
  type AdvisorHolder,
  gateAdvisorTools,
  prepareTurnCompaction,
  registerAdvisorTools,
} from "./advisor.js";
import { createCompactionEnvironment, type PipelineReport } from "../compaction/environment.js";
import { type CompactFlag, compactBeforeTurn, measureNextRequest, readCompactFlags } from "./compaction.js";
import { conversationOverhead } from "./request-overhead.js";
import { loadSnapshot, reloadIfChanged } from "./log-snapshot.js";
import { modelDelta, readQuerySettings } from "./settings.js";
import { isReviewConversation, planTurnRecall, querySettingsOfRecall, recallDirectives } from "./recall.js";
import type { ToolCallContext } from "../tools/tool.js";
import type { RequestOverhead } from "../compaction/context-window.js";
import { selectTools, type ToolDirective, toolDefinitions } from "./tool-selection.js";
import { runTurn, type TurnDisplay, type TurnResult } from "./turn-loop.js";
import {
  createLlmClient,
  providerKeyVariables,
  readLlmConfig,
  resolveModel,
  selectDefaultModel,
} from "../llm/registry.js";
import { describeContextGauge } from "../compaction/core/advisor/context-gauge.js";
import { measureContextGauge } from "../compaction/context-window.js";
import { describeRetry } from "../llm/retry.js";

/** The parsed flags of `cxc q`. */
export interface QueryRequest {
  /** Positional words; `["-"]` reads stdin. */
  readonly message: readonly string[];
  readonly newConversation: boolean;
  readonly id?: string;
  readonly model?: string;
  readonly directives: readonly ToolDirective[];
  readonly forcedTool?: string;
  readonly compact: readonly CompactFlag[];
  /** `--native` with `-k`: its summaries are the provider's own. */
  readonly native?: boolean;
  /** `--fork` (true) or `--fork=N` (keep the last N turns). */
  readonly fork?: true | number;
  readonly maxCycles?: number;
}

/** The terminal side, supplied by the command. */
export interface QueryUi {
  readonly stdinIsTerminal: boolean;
  readStdin(): Promise<string>;
  /** Opens $EDITOR for the message; undefined when no editor is set. */
  editMessage(): Promise<string | undefined>;
  createDisplay(modelId: string): TurnDisplay;
  /** Present only when a person can be asked. */
  readonly prompter: ApprovalPrompter | undefined;
  info(text: string): void;
  /** Advice after a notice: a `hint:` line. */
  hint(text: string): void;
  warn(text: string): void;
  /** Progress while a model writes a `-k` summary (a spinner at a terminal); absent: none. */
  readonly progress?: NonNullable<PipelineReport["progress"]>;
  /**
   * Where the context gauge line goes after a turn; `terminal` says whether stderr is a terminal
   * (the `auto` setting prints it only there). Absent: never (`--format json`).
   */
  readonly gauge?: { readonly terminal: boolean; print(text: string): void };
}

/** Inputs of `runQuery`. */
export interface QueryEnvironment {
  readonly store: Store;
  readonly config: ConfigTable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly ui: QueryUi;
}

/**
 * The first turn cxc runs on a conversation imported from jp names, once, the jp tools it cannot
 * carry (import said so too): from the next turn on the conversation is cxc's.
 */
function warnOfJpTools(
  loaded: { readonly meta: Readonly<Record<string, unknown>>; readonly events: readonly ConversationEvent[] },
  recorded: RecordedSettings,
  ui: QueryUi,
): void {
  const importedTurns = loaded.meta.jp_imported_turns;
  if (typeof importedTurns !== "number" || countTurns(loaded.events) > importedTurns) return;
  if (recorded.jpTools.length === 0) return;
  ui.warn(describeJpTools(recorded.jpTools));
}

/** Runs `cxc q`; resolves when the turn is stored, rejects with a `CxcError`. */
export async function runQuery(
  request: QueryRequest,
  environment: QueryEnvironment,
): Promise<TurnResult | undefined> {
  const { store, ui } = environment;
  checkFlags(request);
  // `-k` is read before anything is created, as every surface reads it.
  const compactRules = request.compact.length > 0 ? readCompactFlags(request.compact) : undefined;
  const message = await readMessage(request.message, ui);
  if (message.trim().length === 0) {
    ui.info("The message is empty; nothing was sent.");
    return undefined;
  }
  // Resolve everything that can fail (target, model, key) before creating anything.
  const target = resolveTarget(request, store);
  const snapshot = target.kind === "new" ? undefined : loadSnapshot(store, target.id);
  const history = snapshot?.loaded.events ?? [];
  // A compaction review runs with its fork-time configuration (tools, instructions; docs/review.md).
  const settings = readQuerySettings(applyReviewConfig(environment.config, history));
  // The conversation's own recorded model and system prompt (an imported jp conversation's too).
  const recorded = recordedSettings(history);
  const system = recorded.system ?? settings.instructions;
  if (snapshot !== undefined) warnOfJpTools(snapshot.loaded, recorded, ui);
  const advisorHolder: AdvisorHolder = {};
  // `recall` is offered by its own setting, beside the selected tools (src/query/recall.ts).
  const recallSettings = querySettingsOfRecall(environment.config);
  const inReview = isReviewConversation(history);
  const recallNamed = recallDirectives(request.directives, request.forcedTool, recallSettings, inReview);
  const named = [
    ...recallNamed.directives.filter((directive) => directive.enable).map((directive) => directive.name),
    ...(recallNamed.forced === undefined ? [] : [recallNamed.forced]),
  ];
  const gate = gateAdvisorTools(environment.config, environment.env, settings.tools, named);
  let tools = selectTools({
    registry: registerAdvisorTools(createBuiltinRegistry(), advisorHolder, { enabled: gate.enabled }),
    configured: gate.tools,
    env: environment.env,
    protectedVariables: providerKeyVariables(environment.config),
    directives: recallNamed.directives,
    ...(recallNamed.forced === undefined ? {} : { forced: recallNamed.forced }),
  });
  const { client, configDelta, chosenModel } = await chooseModel(request, recorded.model, environment);
  const recall = planTurnRecall({
    settings: recallSettings,
    history,
    modelId: client.modelId,
    takesTools: resolveModel(client.modelId, readLlmConfig(environment.config), environment.env).tools,
    inReview,
    stamp: () => ({ id: newEventId(), ts: timestampNow() }),
  });
  if (recall.tool !== undefined) {
    tools = {
      tools: [...tools.tools, recall.tool],
      ...(recallNamed.forcesRecall
        ? { forced: recall.tool.tool.name }
        : tools.forced === undefined
          ? {}
          : { forced: tools.forced }),
    };
  }
  if (recall.notice !== undefined) ui.warn(recall.notice);
  if (configDelta !== undefined && countTurns(history) > 0) {
    // `-m` sticks: said once, when it changes the model of a conversation that has turns.
    const was = recorded.model === undefined ? "" : ` (was ${recorded.model})`;
    ui.info(
      `This conversation uses ${client.modelId} from now on${was}: its later turns, its compact tool and its reviews; -m again changes it.`,
    );
  }
  // What every request of the turn sends besides the conversation (the context figure counts it).
  const overhead: RequestOverhead = {
    ...(system === undefined ? {} : { system }),
    tools: toolDefinitions(tools),
  };
  const conversationId = materializeTarget(target, request, message, store, ui);
  const clock = { now: () => timestampNow(), newEventId: () => newEventId() };
  // Compaction's environment (src/compaction/), once for `-k`, automatic compaction and the tools.
  const compaction = createCompactionEnvironment({
    config: environment.config,
    env: environment.env,
    report: {
      info: (text) => ui.info(text),
      warn: (text) => ui.warn(text),
      ...(ui.progress === undefined ? {} : { progress: ui.progress }),
    },
    counter: (id) => store.tokenCounter(id ?? conversationId),
    ...(chosenModel === undefined ? {} : { assistantModel: chosenModel }),
    clock,
    // A native summary is asked with the system prompt and tools this turn sends.
    overhead: (events) => conversationOverhead(events, environment.config, environment.env),
  });
  const controller = new AbortController();
  const removeHandlers = installInterruptHandlers(controller, ui);
  try {
    return await store.locked(conversationId, "cxc q", async (conversation) => {
      if (compactRules !== undefined) {
        assertNoOpenReview(store, conversationId);
        ui.info(
          await compactBeforeTurn(
            conversation,
            compactRules,
            compaction,
            controller.signal,
            request.native === true,
          ),
        );
      }
      const loaded = reloadIfChanged(store, conversationId, snapshot);
      for (const warning of loaded.warnings) ui.warn(warning);
      // The compaction advisor and automatic compaction (docs/advisor.md) join the loop as hooks.
      const turnCompaction = await prepareTurnCompaction({
        config: environment.config,
        env: environment.env,
        assistant: client,
        compaction,
        store,
        conversation,
        compactNowEnabled: tools.tools.some(({ tool }) => tool.name === "compact_now"),
        overhead,
        ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
        clock,
        info: (text) => ui.info(text),
        hint: (text) => ui.hint(text),
        warn: (text) => ui.warn(text),
      });
      advisorHolder.current = turnCompaction.advisor;
      const result = await runTurn({
        store,
        conversation,
        events: loaded.events,
        message,
        ...(configDelta === undefined ? {} : { configDelta }),
        client,
        ...(system === undefined ? {} : { system }),
        ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
        tools,
        approvals: new TurnApprovals(ui.prompter),
        display: ui.createDisplay(client.modelId),
        maxCycles: request.maxCycles ?? settings.maxCycles,
        signal: controller.signal,
        clock,
        cwd: environment.cwd,
        hooks: turnCompaction.hooks,
        keeping: compaction.keeping(loaded.meta),
        compaction,
        ...(recall.index === undefined && recall.record === undefined
          ? {}
          : {
              recall: {
                ...(recall.index === undefined ? {} : { index: recall.index }),
                ...(recall.record === undefined ? {} : { record: recall.record }),
              },
            }),
        ...(tools.tools.some(({ tool }) => tool.name === "compact")
          ? {
              compactionEffect: await nextRequestMeasure(
                loaded.events,
                client.modelId,
                overhead,
                environment,
                conversationId,
              ),
            }
          : {}),
      });
      const gauge = ui.gauge;
      if (
        gauge !== undefined &&
        (settings.gaugeDisplay === "show" || (settings.gaugeDisplay === "auto" && gauge.terminal))
      ) {
        const events = [...loaded.events, ...result.stored];
        gauge.print(await describeGauge(events, client.modelId, environment, conversationId, overhead));
      }
      return result;
    });
  } finally {
    removeHandlers();
  }
}

/**
 * What the `compact` tool's approval says a compaction does: the next request measured as the
 * gauge measures it, and the cost with the prompt cache (docs/context.md).
 */
async function nextRequestMeasure(
  events: readonly ConversationEvent[],
  modelId: string,
  overhead: RequestOverhead,
  environment: QueryEnvironment,
  conversationId: string,
): Promise<NonNullable<ToolCallContext["compactionEffect"]>> {
  const { effect } = await measureNextRequest(events, {
    config: environment.config,
    env: environment.env,
    countTokens: await environment.store.tokenCounter(conversationId),
    modelId,
    overhead,
  });
  return effect;
}

/** The context gauge line after a turn (docs/query.md, "The context gauge"). */
async function describeGauge(
  events: readonly ConversationEvent[],
  modelId: string,
  environment: QueryEnvironment,
  conversationId: string,
  overhead: RequestOverhead,
): Promise<string> {
  // The conversation's cached counts: after a turn without compactions nothing is counted at all,
  // and what a compaction changed is counted once and kept (compaction/core/advisor/context-gauge.ts).
  const countTokens = await environment.store.tokenCounter(conversationId);
  const gauge = await measureContextGauge(events, {
    modelId,
    config: environment.config,
    env: environment.env,
    countTokens,
    overhead,
  });
  return `context ${describeContextGauge(gauge)}`;
}

function checkFlags(request: QueryRequest): void {
  if (request.newConversation && request.id !== undefined)
    throw usageError("--new and --id cannot be used together");
  if (request.newConversation && request.fork !== undefined) {
    throw usageError(
      "--new and --fork cannot be used together",
      "--fork continues on a copy of an existing conversation",
    );
  }
}

async function readMessage(words: readonly string[], ui: QueryUi): Promise<string> {
  if (words.length === 1 && words[0] === "-") return stripOneNewline(await ui.readStdin());
  if (words.length > 0) return words.join(" ");
  if (!ui.stdinIsTerminal) return stripOneNewline(await ui.readStdin());
  const edited = await ui.editMessage();
  if (edited === undefined) {
    throw usageError(
      "no message given",
      'pass it as an argument (cxc q "…"), pipe it on stdin, or set $EDITOR',
    );
  }
  return edited;
}

function stripOneNewline(text: string): string {
  return text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
}

type Target = { readonly kind: "new" } | { readonly kind: "existing"; readonly id: string };

/** The conversation this turn goes to; nothing is created yet. */
function resolveTarget(request: QueryRequest, store: Store): Target {
  if (request.newConversation) return { kind: "new" };
  try {
    return { kind: "existing", id: store.resolveTarget(request.id) };
  } catch (error) {
    // With nothing active and nothing named, start one: `cxc q "…"` just works on a fresh store.
    if (CxcError.isInstance(error) && error.code === "no-active-conversation") return { kind: "new" };
    throw error;
  }
}

/** Creates the new conversation or the fork, when the turn needs one; returns the id to use. */
function materializeTarget(
  target: Target,
  request: QueryRequest,
  message: string,
  store: Store,
  ui: QueryUi,
): string {
  if (target.kind === "new") return startConversation(store, ui, titleFromPrompt(message));
  if (request.fork === undefined) {
    // Naming a conversation makes it the active one, as jp records the session's activation.
    if (request.id !== undefined && store.active() !== target.id) store.setActive(target.id);
    return target.id;
  }
  const id = target.id;
  const source = store.load(id);
  const turnCount = countTurns(source.events);
  const slice = selectTurnSlice(turnCount, request.fork === true ? {} : { last: request.fork });
  const forked = copyEventsForFork(source.events, slice, () => newEventId());
  const meta = store.create({
    title: `Fork of ${source.meta.title ?? id}`,
    events: forked.events,
    extra: { forked_from: id },
  });
  store.setActive(meta.id);
  ui.info(`Continuing on ${meta.id}, a fork of ${id} (${meta.turn_count ?? 0} turns).`);
  return meta.id;
}

/** A new conversation, titled by the first line of its first message (as an agent session's is). */
function startConversation(store: Store, ui: QueryUi, title: string | undefined): string {
  const meta = store.create(title === undefined ? {} : { title });
  store.setActive(meta.id);
  ui.info(`Started conversation ${meta.id}.`);
  return meta.id;
}

/**
 * `-m`, else the model this conversation last used, else the configured or default one. The
 * default may come from an API key in the environment; `chosenModel` is the model the user chose
 * (everything but that default), the one summaries may use (compaction/core/summary/summarizer.ts).
 */
async function chooseModel(
  request: QueryRequest,
  previous: string | undefined,
  environment: QueryEnvironment,
): Promise<{ client: LlmClient; configDelta?: Record<string, unknown>; chosenModel?: string }> {
  const chosenModel = request.model ?? previous ?? configuredAssistantModel(environment.config);
  const wanted =
    chosenModel ?? (await selectDefaultModel({ config: environment.config, env: environment.env }));
  const client = createLlmClient(wanted, {
    config: environment.config,
    env: environment.env,
    retry: {
      onRetry: (notice: RetryNotice) => environment.ui.warn(describeRetry(notice)),
    },
  });
  const changed = request.model !== undefined && client.modelId !== previous;
  const chosen = chosenModel === undefined ? {} : { chosenModel };
  return changed ? { client, configDelta: modelDelta(client.modelId), ...chosen } : { client, ...chosen };
}

/** First Ctrl-C (or SIGTERM): stop the turn, keeping what arrived. Second: exit at once. */
function installInterruptHandlers(controller: AbortController, ui: QueryUi): () => void {
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    ui.warn("interrupting; saving what arrived (press Ctrl-C again to quit at once)");
    controller.abort();
  };
  // SIGTERM (a `kill`, a closing terminal multiplexer) is handled the same way: what arrived is kept.
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
