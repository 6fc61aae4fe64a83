/**
 * The parts of pi's extension API (pi 0.73.1, `@mariozechner/pi-coding-agent`) and of its model
 * API (`@mariozechner/pi-ai`) the cxc extension uses, as plain types. pi is not a dependency of
 * cxc: at run time pi hands the extension its own API and resolves its own packages for it
 * (extension.ts imports them; pi-modules.d.ts declares them for the compiler).
 */

/** A pi model (`ctx.model`, `modelRegistry.find`). */
export interface PiModel {
  readonly id: string;
  readonly provider: string;
  readonly api: string;
  readonly contextWindow: number;
  readonly reasoning?: boolean;
}

/** A pi content block. */
export type PiContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string }
  | {
      readonly type: "toolCall";
      readonly id: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
    };

/** What pi-ai's `complete` resolves with. */
export interface PiAssistantMessage {
  readonly content: readonly PiContent[];
  readonly usage?: {
    readonly input?: number;
    readonly output?: number;
    readonly cacheRead?: number;
    readonly cacheWrite?: number;
  };
  readonly stopReason?: string;
  readonly errorMessage?: string;
}

/** pi-ai's one-shot model call. */
export type PiComplete = (
  model: PiModel,
  context: {
    systemPrompt?: string;
    messages: { role: "user"; content: { type: "text"; text: string }[]; timestamp: number }[];
    tools?: { name: string; description: string; parameters: Readonly<Record<string, unknown>> }[];
  },
  options: Record<string, unknown>,
) => Promise<PiAssistantMessage>;

/** The request auth pi resolves for a model (its own keys, never a second one). */
export type PiAuth =
  | { readonly ok: true; readonly apiKey?: string; readonly headers?: Record<string, string> }
  | { readonly ok: false; readonly error: string };

/** `ctx.modelRegistry`. */
export interface PiModelRegistry {
  find(provider: string, modelId: string): PiModel | undefined;
  getApiKeyAndHeaders(model: PiModel): Promise<PiAuth>;
}

/** A session entry as pi stores it (a line of the session file). */
export type PiEntry = Record<string, unknown> & { readonly type: string; readonly id: string };

/** What pi's compaction prepared (`session_before_compact`), the fields cxc reads or moves. */
export interface PiCompactionPreparation {
  firstKeptEntryId: string;
  isSplitTurn: boolean;
  /** With a split turn, the messages of that turn before the cut (pi summarizes them apart). */
  turnPrefixMessages?: unknown[];
  readonly tokensBefore: number;
}

/** pi's compaction result (what `session_before_compact` may return instead of pi's own). */
export interface PiCompactionResult {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
}

/** pi's own summarizer (`compact` of `@mariozechner/pi-coding-agent`). */
export type PiCompact = (
  preparation: PiCompactionPreparation,
  model: PiModel,
  apiKey: string,
  headers: Record<string, string> | undefined,
  customInstructions: string | undefined,
  signal: AbortSignal | undefined,
  thinkingLevel: string | undefined,
) => Promise<PiCompactionResult>;

/** The context pi hands every handler and tool. */
export interface PiContext {
  readonly ui: { notify(message: string, type?: "info" | "warning" | "error"): void };
  readonly hasUI: boolean;
  readonly cwd: string;
  readonly sessionManager: {
    getHeader(): Record<string, unknown> | null;
    getBranch(): PiEntry[];
  };
  readonly modelRegistry: PiModelRegistry;
  readonly model: PiModel | undefined;
  readonly signal: AbortSignal | undefined;
  /** Whether pi's agent loop is not running (pi 0.73 has it; older ones may not). */
  isIdle?(): boolean;
  getContextUsage(): { tokens: number | null; contextWindow: number; percent: number | null } | undefined;
  compact(options?: {
    customInstructions?: string;
    onComplete?: (result: unknown) => void;
    onError?: (error: Error) => void;
  }): void;
}

/** A tool as `registerTool` takes it. */
export interface PiTool {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  execute(
    toolCallId: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: unknown,
    ctx: PiContext,
  ): Promise<{ content: { type: "text"; text: string }[]; details: unknown }>;
}

/** The events cxc handles, with the fields it reads. */
export interface PiEvents {
  session_start: { readonly reason: string };
  agent_start: Record<string, never>;
  agent_end: Record<string, unknown>;
  turn_end: {
    readonly turnIndex: number;
    readonly message: unknown;
    readonly toolResults: readonly unknown[];
  };
  session_before_compact: {
    readonly preparation: PiCompactionPreparation;
    readonly branchEntries: PiEntry[];
    readonly customInstructions?: string;
    readonly signal: AbortSignal;
  };
  session_compact: {
    readonly compactionEntry: { readonly summary: string; readonly firstKeptEntryId: string };
    readonly fromExtension: boolean;
  };
}

/** The API pi hands the extension's factory. */
export interface PiExtensionApi {
  on<E extends keyof PiEvents>(
    event: E,
    handler: (event: PiEvents[E], ctx: PiContext) => Promise<unknown> | unknown,
  ): void;
  registerTool(tool: PiTool): void;
  sendMessage(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
  ): void;
  appendEntry(customType: string, data?: unknown): void;
  getThinkingLevel(): string;
}
