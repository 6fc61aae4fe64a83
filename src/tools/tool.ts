/**
 * What a tool is: its interface, what a running call can see, and what it returns. A module of
 * its own, so the tools and the registry that lists them do not import each other.
 *
 * Besides its result text, a tool may return *effects*: events the turn loop stores in the same
 * append as the tool's response, so they land together or not at all (the compact tool records its
 * compactions this way). Tools never write to the store themselves.
 */
import type { CompactionCost } from "../compaction/core/advisor/cache-cost.js";
import type { NextRequestContext } from "../compaction/core/advisor/next-request.js";
import type { Keeping } from "../compaction/core/keeping.js";
import type { CompactionEnvironment } from "../compaction/environment.js";
import type { Compaction, ConversationEvent } from "../core/conversation/events.js";
import type { StoreReader } from "../store/index.js";
import type { ToolArguments } from "./arguments.js";

/** How a call is approved: ask at the terminal, run without asking, edit the arguments first, or never run. */
export type RunMode = "ask" | "unattended" | "edit" | "skip";
export const RUN_MODES: readonly RunMode[] = ["ask", "unattended", "edit", "skip"];

/** Whether a tool is offered to the model: on, off, or only when named with `-t`/`-u`. */
export type EnableState = boolean | "explicit";

/** Where a tool comes from. */
export type ToolSource = "builtin" | "local";

/** What a running tool can see. */
export interface ToolCallContext {
  readonly conversationId: string;
  readonly callId: string;
  /** The conversation's events so far, this turn's included (read-only). */
  readonly events: readonly ConversationEvent[];
  /** Aborted when the user interrupts; long-running tools should stop. */
  readonly signal: AbortSignal;
  /** The working directory of the cxc process. */
  readonly cwd: string;
  /** The store the conversation is in, read-only: tools never write to it (effects are stored for them). */
  readonly store: StoreReader;
  /** What compactions keep by construction (facts blocks, keep rules); absent: the defaults. */
  readonly keeping?: Keeping;
  /** The process's compaction environment (src/compaction/environment.ts); absent: the call's clock alone. */
  readonly compaction?: CompactionEnvironment;
  /**
   * What compactions appended to these events would do to the context of the next request,
   * measured as the turn's gauge measures it (compaction/core/advisor/next-request.ts), and what
   * they cost with the prompt cache (compaction/core/advisor/cache-cost.ts); absent where no turn runs.
   */
  readonly compactionEffect?: (
    events: readonly ConversationEvent[],
    compactions: readonly Compaction[],
  ) => {
    readonly before: NextRequestContext;
    readonly after: NextRequestContext;
    readonly cost: CompactionCost;
  };
  /** Ids and timestamps for effect events. */
  newEventId(): string;
  now(): string;
}

/** A text form of a tool's arguments for `$EDITOR` (`e` at the approval prompt). */
export interface ArgumentsEditing {
  /** The file name the editor opens (its extension picks the syntax highlighting). */
  readonly fileName: string;
  render(argumentsObject: Readonly<Record<string, unknown>>): string;
  /** The edited text as arguments, or one line saying why it cannot be read. */
  parse(
    text: string,
  ):
    | { readonly ok: true; readonly value: Record<string, unknown> }
    | { readonly ok: false; readonly error: string };
}

/** The result of one call. */
export interface ToolOutcome {
  /** Sent back to the model as the tool result. */
  readonly content: string;
  readonly isError: boolean;
  /**
   * Events stored together with the tool response, in one append, after it (for example the
   * `compaction` events a compact tool records). They must carry ids and timestamps from the
   * context.
   */
  readonly effects?: readonly ConversationEvent[];
  /**
   * What the call recorded, as data, kept in the response event's `metadata` (a review's proposal):
   * read back from there, never parsed out of the result text.
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The one line the terminal shows after `↳ ok:` when the result text's first line would not say
   * what matters (the compact tool's summary check); the model still gets `content`.
   */
  readonly display?: string;
}

/** A tool cxc can offer to a model; `A` is its arguments once checked (arguments.ts). */
export interface Tool<A = unknown> {
  readonly name: string;
  /** Sent to the model. */
  readonly description: string;
  /**
   * The arguments: their JSON Schema (sent to the model) and the check of a call, which gives the
   * typed arguments every method below receives (arguments.ts). A call that fails it is answered
   * at once, with the check's message (`checkArguments`).
   */
  readonly arguments: ToolArguments<A>;
  readonly source: ToolSource;
  /**
   * Used when configuration says nothing. A built-in tool with `enable: false` exists only where
   * its own `conversation.tools.<name>` entry enables it (`propose_compaction`, inside a review):
   * `'*'` and `-t` cannot reach it elsewhere.
   */
  readonly defaults: { readonly enable: EnableState; readonly run: RunMode };
  /**
   * How `e` at the approval prompt presents the arguments for editing; JSON when absent.
   */
  readonly editing?: ArgumentsEditing;
  /**
   * A check before anyone is asked: an outcome returned here goes straight back to the model (a
   * call that cannot be carried out, such as an unresolvable quote), so the model corrects itself
   * without the user having to decline. Undefined means the call may be put to the user.
   */
  precheck?(argumentsObject: A, context: ToolCallContext): Promise<ToolOutcome | undefined>;
  /**
   * What the call would do, resolved against the conversation, for the approval prompt. When a
   * tool gives it, the prompt shows it instead of the call's JSON.
   */
  describeCall?(argumentsObject: A, context: ToolCallContext): Promise<string>;
  /**
   * What the approval prompt shows for arguments that fail the check (edited ones, say); absent:
   * the check's message under the tool's name.
   */
  describeInvalid?(message: string): string;
  /** Runs the call. Expected failures are returned with `isError`, not thrown. */
  run(argumentsObject: A, context: ToolCallContext): Promise<ToolOutcome>;
}

/** A built-in tool: what its module defines, with the source every built-in tool has. */
export function builtinTool<A>(tool: Omit<Tool<A>, "source">): Tool<A> {
  return { ...tool, source: "builtin" };
}

/** A call's arguments checked, once: the typed arguments, or the answer the model gets instead. */
export async function checkArguments<A>(
  tool: Tool<A>,
  argumentsObject: Readonly<Record<string, unknown>>,
): Promise<{ readonly ok: true; readonly value: A } | { readonly ok: false; readonly outcome: ToolOutcome }> {
  const checked = await tool.arguments.check(argumentsObject);
  return checked.ok ? checked : { ok: false, outcome: { content: checked.message, isError: true } };
}

/** What the approval prompt shows for a call's arguments (the tool's description, or why they fail). */
export async function describeToolCall<A>(
  tool: Tool<A>,
  argumentsObject: Readonly<Record<string, unknown>>,
  context: ToolCallContext,
): Promise<string | undefined> {
  if (tool.describeCall === undefined) return undefined;
  const checked = await tool.arguments.check(argumentsObject);
  if (checked.ok) return tool.describeCall(checked.value, context);
  return tool.describeInvalid?.(checked.message) ?? `${tool.name} — not run: ${checked.message}`;
}

/** Checks a call's arguments, then runs it (no approval): the pi extension, and tests. */
export async function callTool<A>(
  tool: Tool<A>,
  argumentsObject: Readonly<Record<string, unknown>>,
  context: ToolCallContext,
): Promise<ToolOutcome> {
  const checked = await checkArguments(tool, argumentsObject);
  return checked.ok ? tool.run(checked.value, context) : checked.outcome;
}
