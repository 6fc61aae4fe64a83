/**
 * The persisted event model of a cxc conversation. Pure: schemas and types only.
 *
 * A conversation is an append-only list of events. Every event has a stable, sortable `id`, a
 * timestamp `ts` (RFC 3339, UTC) and a `type`. The kinds mirror jp's (see docs/file-format.md):
 *
 * - conversation events, which belong to a turn: `turn_start`, `chat_request`, `chat_response`,
 *   `tool_call_request`, `tool_call_response`, `inquiry_request`, `inquiry_response`;
 * - global entries, which belong to no turn's content and never open one: `config_delta`,
 *   `compaction` (an overlay read by projection), `compaction_reset` (retires overlays), `pin`
 *   (messages kept verbatim by every compaction), `pin_reset` (retires pins), `usage` (the usage a
 *   request reported, learnt after its answer was stored: an update of an imported agent session),
 *   `recall_exclusion` (what the `recall` tool may never read), and unknown kinds written by a
 *   newer cxc, which are kept and written back verbatim.
 *
 * One shape for every provider: provider-opaque data (thinking signatures, cache hints) rides in
 * the `metadata` bag. Known events are loose objects, so fields added by a newer cxc survive a
 * round trip through an older one.
 */
// zod/mini, not the classic API: every command that reads a log loads these schemas, and the
// classic bundle (methods on every schema, all locales) costs more to load than validating a
// large log does. Same validation core, same error texts; see docs/decisions/003-zod-mini-for-events.md.
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

/** Current version of the on-disk log format (the header line's `version`). */
export const LOG_FORMAT_VERSION = 1;

/**
 * Features an event may declare it needs (`requires`), for a reader to refuse what it cannot
 * honour instead of misreading it: a cxc that meets a feature it does not know says the log needs
 * a newer cxc and changes nothing. `native-summary`: a compaction whose summary is a provider's own
 * (`summary.native`), which must go back to that provider as it was written.
 */
export const KNOWN_EVENT_FEATURES = ["native-summary"] as const;
export type EventFeature = (typeof KNOWN_EVENT_FEATURES)[number];

/** The feature a compaction with a native summary declares (`requires`). */
export const NATIVE_SUMMARY_FEATURE: EventFeature = "native-summary";

/**
 * The `author` of the `chat_request`s cxc itself inserts into a running turn (the advisor's
 * steering messages). They are sent to the model but are not the user's words, so summaries do
 * not list them as user requests.
 */
export const ADVISOR_AUTHOR = "cxc advisor";

/**
 * Builds the event schemas. A load whose validation stamp matches (src/store/log.ts) parses its
 * lines with `JSON.parse` alone and never needs them, so they are built on first use
 * (`eventSchemas()`), not when this module is loaded: building them is a large part of what a
 * short command would otherwise compile and run (see docs/benchmarks.md).
 */
function buildEventSchemas() {
  const base = {
    /** Stable, unique, sortable id (ULID). */
    id: z.string().check(z.minLength(1)),
    /** RFC 3339 timestamp in UTC, e.g. `2026-05-29T19:42:36.467321Z`. */
    ts: z.string().check(z.minLength(1)),
    /** Provider-opaque data kept with the event (e.g. `anthropic_thinking_signature`). */
    metadata: z.optional(z.record(z.string(), z.unknown())),
    /** Features a reader must know to read the event (KNOWN_EVENT_FEATURES); absent: none. */
    requires: z.optional(z.array(z.enum(KNOWN_EVENT_FEATURES))),
  };

  /** Marks the start of a turn. Carries no index: turn numbers are derived (see core/conversation/turns.ts). */
  const TurnStartSchema = z.looseObject({ ...base, type: z.literal("turn_start") });

  /** A user message. `author` is cosmetic and never sent to a provider. */
  const ChatRequestSchema = z.looseObject({
    ...base,
    type: z.literal("chat_request"),
    content: z.string(),
    author: z.optional(z.string()),
    /** JSON Schema asking for structured output. */
    schema: z.optional(z.record(z.string(), z.unknown())),
  });

  /**
   * An assistant output. Exactly one of `message`, `reasoning` or `data` is present (jp's untagged
   * variants). `interrupted` marks a partial answer stored when the stream was cut or the user pressed
   * Ctrl-C.
   */
  const ChatResponseSchema = z
    .looseObject({
      ...base,
      type: z.literal("chat_response"),
      message: z.optional(z.string()),
      reasoning: z.optional(z.string()),
      data: z.optional(z.unknown()),
      interrupted: z.optional(z.boolean()),
    })
    .check(
      z.refine(
        (event) =>
          [event.message, event.reasoning, event.data].filter((value) => value !== undefined).length === 1,
        { message: "chat_response needs exactly one of message, reasoning or data" },
      ),
    );

  /** The assistant asks for a tool to run. `call_id` pairs it with its response. */
  const ToolCallRequestSchema = z.looseObject({
    ...base,
    type: z.literal("tool_call_request"),
    call_id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  });

  /** The result of a tool call. `is_error` tells a failure from a success. */
  const ToolCallResponseSchema = z.looseObject({
    ...base,
    type: z.literal("tool_call_response"),
    call_id: z.string(),
    content: z.string(),
    is_error: z.boolean(),
  });

  /** A question asked of the user or the assistant during a turn (imported from jp). */
  const InquiryRequestSchema = z.looseObject({
    ...base,
    type: z.literal("inquiry_request"),
    inquiry_id: z.string(),
    source: z.unknown(),
    question: z.unknown(),
  });

  /** The answer to an inquiry. */
  const InquiryResponseSchema = z.looseObject({
    ...base,
    type: z.literal("inquiry_response"),
    inquiry_id: z.string(),
    answer: z.unknown(),
  });

  /** A change of configuration that applies to the events after it. */
  const ConfigDeltaSchema = z.looseObject({
    ...base,
    type: z.literal("config_delta"),
    delta: z.record(z.string(), z.unknown()),
  });

  /** Who asked for a compaction. */
  const CompactionSourceSchema = z.enum(["user", "assistant", "auto"]);

  /**
   * A summary that replaces every provider-visible event of the turns it covers.
   *
   * - `derived`: cxc can produce the text again from a recipe (`recipe`: the summarizer model id, or
   *   `builtin/digest`). Overlap extension may widen a derived summary's range.
   * - `supplied`: typed text (by the user or the assistant, or another agent's own summary brought in
   *   by an import), not reproducible. Its range is never widened; a supplied proposal that
   *   partially overlaps an existing summary is rejected.
   */
  /**
   * A provider's own summary, kept as the provider wrote it so it can go back to it
   * (docs/native-compaction.md). `format` says which:
   *
   * - `anthropic-compaction`: Anthropic's on-demand compaction block, readable (`content`) and
   *   signed (`signature`); replayed as the block itself to the same provider and model family.
   * - `openai-compaction`: OpenAI's encrypted compaction, as Codex recorded it (`items`: the
   *   replacement history verbatim, with its `compaction` items; `message`: Codex's own text);
   *   replayed only to the same provider. `inside_turn`: Codex compacted inside the turn after
   *   the range (the range stops before it, so that turn is kept whole), and the replacement
   *   history holds that turn's prompt; `turn_events`: how many of that turn's events (the
   *   prompt first) came before the compaction. Replayed natively, those are not sent again:
   *   the history holds the prompt where Codex put it, before the compaction item, and the item
   *   stands for the steps (absent: the prompt alone).
   *
   * `model` is the cxc model id that wrote it (`anthropic/claude-opus-4-6`), `provider` its
   * provider. The summary's `summary` is what every other model gets.
   */
  const NativeSummarySchema = z.looseObject({
    format: z.enum(["anthropic-compaction", "openai-compaction"]),
    provider: z.string().check(z.minLength(1)),
    model: z.string().check(z.minLength(1)),
    content: z.optional(z.string()),
    signature: z.optional(z.string()),
    items: z.optional(z.array(z.record(z.string(), z.unknown()))),
    message: z.optional(z.string()),
    inside_turn: z.optional(z.boolean()),
    turn_events: z.optional(z.number()),
    /**
     * What writing it cost, as the provider reported it (Anthropic: `usage.iterations`, whose
     * top-level counts are 0). Absent on those cxc did not request (Codex's).
     */
    usage: z.optional(z.looseObject({ input_tokens: z.number(), output_tokens: z.number() })),
  });

  const SummaryPolicySchema = z.looseObject({
    summary: z.string(),
    source: z._default(z.enum(["derived", "supplied"]), "derived"),
    author: z.optional(z.enum(["user", "assistant"])),
    recipe: z.optional(z.string()),
    /**
     * The facts block cxc built from the raw events of the range when it wrote the summary (files
     * read and modified, the user's binding sentences verbatim; compaction/core/summary/range-facts.ts).
     * Projection shows it after the summary text, which stays as it was written. Absent on the
     * agents' own imported summaries and on those an older cxc wrote.
     */
    facts: z.optional(z.string()),
    /** The provider's own summary, when this is one (the event then `requires` `native-summary`). */
    native: z.optional(NativeSummarySchema),
  });

  /** Drop reasoning (`chat_response.reasoning`) in the covered turns. The only value is `strip`. */
  const ReasoningPolicySchema = z.literal("strip");

  /**
   * What happens to tool calls in the covered turns.
   *
   * - `strip`: a request's arguments become `{}` (`request: true`); a response's content becomes
   *   `[compacted] <tool>: success|error` (`response: true`).
   * - `omit`: requests and responses are removed, pairs together.
   */
  const ToolCallsPolicySchema = z.discriminatedUnion("policy", [
    z.object({ policy: z.literal("strip"), request: z.boolean(), response: z.boolean() }),
    z.object({ policy: z.literal("omit") }),
  ]);

  /**
   * The range and policies of a compaction that starts or ends inside a turn (decision 006).
   *
   * `from` is the first covered cycle of `from_turn` (absent: from the start of the turn, its head
   * included) and `to` the last covered cycle of `to_turn`, both 0-based and absolute: cycles added
   * to `to_turn` later are not covered. The policies mean what the top-level ones mean, applied to
   * the events between those positions, except that a stripped response becomes a placeholder
   * naming the tool, its arguments and the size dropped. They are nested so that an older cxc,
   * which knows only the top-level policies, sees a compaction without policy (projecting nothing)
   * instead of one over whole turns.
   */
  const CyclePoliciesSchema = z.looseObject({
    from: z.optional(z.int().check(z.nonnegative())),
    to: z.int().check(z.nonnegative()),
    summary: z.optional(SummaryPolicySchema),
    reasoning: z.optional(ReasoningPolicySchema),
    tool_calls: z.optional(ToolCallsPolicySchema),
  });

  /**
   * Where an imported overlay came from: `agent` names the agent whose own compaction it is
   * (`claude-code`, `pi`), `record` the id of the agent's record it was read from. Agents' summaries
   * are `supplied` (written by the agent's model, not reproducible); see docs/import-export.md.
   */
  const CompactionOriginSchema = z.looseObject({
    agent: z.string().check(z.minLength(1)),
    record: z.optional(z.string()),
  });

  /**
   * The compaction overlay. It never changes stored events; projection reads it.
   *
   * `from_turn`/`to_turn` are 0-based and inclusive. An unset policy means "no opinion": an earlier
   * compaction's policy applies, or the original events pass through. A summary beats the mechanical
   * policies in its turns. `deferred_until_turn`, when set, makes projection ignore the compaction
   * until the conversation's highest turn index reaches it. With `cycles` the compaction is
   * cycle-precise: its range starts and ends at cycles and its policies are inside `cycles`, never
   * at the top level.
   */
  const CompactionSchema = z
    .looseObject({
      ...base,
      type: z.literal("compaction"),
      from_turn: z.int().check(z.nonnegative()),
      to_turn: z.int().check(z.nonnegative()),
      summary: z.optional(SummaryPolicySchema),
      reasoning: z.optional(ReasoningPolicySchema),
      tool_calls: z.optional(ToolCallsPolicySchema),
      cycles: z.optional(CyclePoliciesSchema),
      source: z._default(CompactionSourceSchema, "user"),
      note: z.optional(z.string().check(z.maxLength(200))),
      deferred_until_turn: z.optional(z.int().check(z.nonnegative())),
      /** Set on overlays imported from another agent's own compaction. */
      origin: z.optional(CompactionOriginSchema),
      /**
       * The ids of the messages of its range that the configured keep rules matched when it was
       * written (`conversation.compaction.keep`): kept verbatim like pinned ones while it is in force.
       */
      pinned_events: z.optional(z.array(z.string())),
    })
    .check(
      z.refine(
        (event) =>
          event.cycles === undefined ||
          (event.summary === undefined && event.reasoning === undefined && event.tool_calls === undefined),
        { message: "a compaction with `cycles` keeps its policies inside `cycles`, not at the top level" },
      ),
    );

  /**
   * Retires earlier `compaction` events (projection ignores them) or earlier `compaction_reset`
   * events (which brings back what they retired). A reset is itself undone by a later reset that
   * retires it, so nothing stored is ever rewritten.
   */
  const CompactionResetSchema = z.looseObject({
    ...base,
    type: z.literal("compaction_reset"),
    retires: z.array(z.string()),
  });

  /** Which messages of a turn or cycle a pin keeps; absent: all of them. */
  const PinPartSchema = z.enum(["user", "assistant", "results"]);

  /**
   * Messages every compaction keeps verbatim (docs/compaction.md, "Pins"): turn `turn` whole
   * (0-based), or with `cycle` its cycle (0-based: the response and the results answering it);
   * `only` narrows to the user's messages, the assistant's (text and tool calls) or the tool
   * results. An overlay like a compaction: it never changes stored events, and a `pin_reset`
   * retires it.
   */
  const PinSchema = z.looseObject({
    ...base,
    type: z.literal("pin"),
    turn: z.int().check(z.nonnegative()),
    cycle: z.optional(z.int().check(z.nonnegative())),
    only: z.optional(PinPartSchema),
    source: z._default(CompactionSourceSchema, "user"),
  });

  /** Retires earlier `pin` events (`cxc conversation unkeep`). Pins are never brought back by it. */
  const PinResetSchema = z.looseObject({
    ...base,
    type: z.literal("pin_reset"),
    retires: z.array(z.string()),
  });

  /**
   * The usage a request reported, for the event `event` (the last of that request's answer),
   * learnt after the event was stored: `import --update` brings an agent's usage to a session
   * imported before cxc kept it. Read as that event's `metadata.usage` (the event's own wins);
   * never part of the view.
   */
  const UsageSchema = z.looseObject({
    ...base,
    type: z.literal("usage"),
    event: z.string().check(z.minLength(1)),
    usage: z.record(z.string(), z.unknown()),
  });

  /**
   * What recall may never read (docs/recall.md, "Keeping things out of recall"): turn `turn`
   * (0-based) whole, or with `call` its call number `call` (1-based, in the order the turn made
   * its calls); or every match of `pattern` (text, or `/regex/flags`) anywhere in the
   * conversation. With `retires` it takes back earlier exclusions instead. An overlay like a pin:
   * it never changes stored events, and the model never sees it.
   */
  const RecallExclusionSchema = z
    .looseObject({
      ...base,
      type: z.literal("recall_exclusion"),
      turn: z.optional(z.int().check(z.nonnegative())),
      call: z.optional(z.int().check(z.positive())),
      pattern: z.optional(z.string().check(z.minLength(1))),
      retires: z.optional(z.array(z.string())),
    })
    .check(
      z.refine(
        (event) =>
          [event.turn, event.pattern, event.retires].filter((value) => value !== undefined).length === 1 &&
          (event.call === undefined || event.turn !== undefined),
        { message: "recall_exclusion needs exactly one of turn (with call or not), pattern or retires" },
      ),
    );

  return {
    RecallExclusionSchema,
    TurnStartSchema,
    ChatRequestSchema,
    ChatResponseSchema,
    ToolCallRequestSchema,
    ToolCallResponseSchema,
    InquiryRequestSchema,
    InquiryResponseSchema,
    ConfigDeltaSchema,
    CompactionSourceSchema,
    NativeSummarySchema,
    SummaryPolicySchema,
    ReasoningPolicySchema,
    ToolCallsPolicySchema,
    CyclePoliciesSchema,
    CompactionOriginSchema,
    CompactionSchema,
    CompactionResetSchema,
    PinPartSchema,
    PinSchema,
    PinResetSchema,
    UsageSchema,
  };
}

/** Kinds that belong to a turn and are counted as conversation events (jp's `len()`). */
const TURN_KINDS = [
  "turn_start",
  "chat_request",
  "chat_response",
  "tool_call_request",
  "tool_call_response",
  "inquiry_request",
  "inquiry_response",
] as const;

/**
 * The entries projection consumes: the overlays it reads (compactions, pins and their resets,
 * recall exclusions) and the usage records of earlier answers.
 */
const OVERLAY_KINDS = [
  "compaction",
  "compaction_reset",
  "pin",
  "pin_reset",
  "usage",
  "recall_exclusion",
] as const;

export const KNOWN_EVENT_TYPES = [...TURN_KINDS, "config_delta", ...OVERLAY_KINDS] as const;
export type KnownEventType = (typeof KNOWN_EVENT_TYPES)[number];

const KNOWN_EVENT_TYPE_SET: ReadonlySet<unknown> = new Set(KNOWN_EVENT_TYPES);

/** True for the `type` of an event kind this cxc knows. */
export function isKnownEventType(type: unknown): type is KnownEventType {
  return KNOWN_EVENT_TYPE_SET.has(type);
}

/** The event schemas by name (`eventSchemas().CompactionSchema`), built on first use. */
export type EventSchemas = ReturnType<typeof buildEventSchemas>;

interface BuiltSchemas {
  readonly schemas: EventSchemas;
  readonly byKind: Readonly<Record<KnownEventType, z.ZodMiniType>>;
  /** zod's English messages: zod/mini registers no locale of its own. */
  readonly parseOptions: { readonly error: z.core.$ZodErrorMap };
}

let built: BuiltSchemas | undefined;

function builtSchemas(): BuiltSchemas {
  if (built === undefined) {
    const schemas = buildEventSchemas();
    built = {
      schemas,
      parseOptions: { error: en().localeError },
      byKind: {
        turn_start: schemas.TurnStartSchema,
        chat_request: schemas.ChatRequestSchema,
        chat_response: schemas.ChatResponseSchema,
        tool_call_request: schemas.ToolCallRequestSchema,
        tool_call_response: schemas.ToolCallResponseSchema,
        inquiry_request: schemas.InquiryRequestSchema,
        inquiry_response: schemas.InquiryResponseSchema,
        config_delta: schemas.ConfigDeltaSchema,
        compaction: schemas.CompactionSchema,
        compaction_reset: schemas.CompactionResetSchema,
        pin: schemas.PinSchema,
        pin_reset: schemas.PinResetSchema,
        usage: schemas.UsageSchema,
        recall_exclusion: schemas.RecallExclusionSchema,
      },
    };
  }
  return built;
}

/** The event schemas, built on first use. */
export function eventSchemas(): EventSchemas {
  return builtSchemas().schemas;
}

/** What to pass to `safeParse` of an event schema, so that messages are zod's English texts. */
export function eventParseOptions(): { readonly error: z.core.$ZodErrorMap } {
  return builtSchemas().parseOptions;
}

/** The schema of each known event kind (validate by kind, so an error names the field at fault). */
export function eventSchemasByKind(): Readonly<Record<KnownEventType, z.ZodMiniType>> {
  return builtSchemas().byKind;
}

export type CompactionSource = z.infer<EventSchemas["CompactionSourceSchema"]>;
export type SummaryPolicy = z.infer<EventSchemas["SummaryPolicySchema"]>;
export type NativeSummary = z.infer<EventSchemas["NativeSummarySchema"]>;
export type ReasoningPolicy = z.infer<EventSchemas["ReasoningPolicySchema"]>;
export type ToolCallsPolicy = z.infer<EventSchemas["ToolCallsPolicySchema"]>;
export type CyclePolicies = z.infer<EventSchemas["CyclePoliciesSchema"]>;
export type CompactionOrigin = z.infer<EventSchemas["CompactionOriginSchema"]>;
export type TurnStart = z.infer<EventSchemas["TurnStartSchema"]>;
export type ChatRequest = z.infer<EventSchemas["ChatRequestSchema"]>;
export type ChatResponse = z.infer<EventSchemas["ChatResponseSchema"]>;
export type ToolCallRequest = z.infer<EventSchemas["ToolCallRequestSchema"]>;
export type ToolCallResponse = z.infer<EventSchemas["ToolCallResponseSchema"]>;
export type InquiryRequest = z.infer<EventSchemas["InquiryRequestSchema"]>;
export type InquiryResponse = z.infer<EventSchemas["InquiryResponseSchema"]>;
export type ConfigDelta = z.infer<EventSchemas["ConfigDeltaSchema"]>;
export type Compaction = z.infer<EventSchemas["CompactionSchema"]>;
export type CompactionReset = z.infer<EventSchemas["CompactionResetSchema"]>;
export type PinPart = z.infer<EventSchemas["PinPartSchema"]>;
export type Pin = z.infer<EventSchemas["PinSchema"]>;
export type PinReset = z.infer<EventSchemas["PinResetSchema"]>;
export type UsageReport = z.infer<EventSchemas["UsageSchema"]>;
export type RecallExclusion = z.infer<EventSchemas["RecallExclusionSchema"]>;

/**
 * An event of a kind this cxc does not know. Held as its raw JSON object and written back
 * byte-for-byte as parsed; it belongs to no turn and is never sent to a provider.
 */
export interface UnknownEvent {
  readonly type: "unknown";
  readonly raw: Readonly<Record<string, unknown>>;
}

export type KnownEvent = TurnEvent | ConfigDelta | OverlayEvent;

export type ConversationEvent = KnownEvent | UnknownEvent;

/** Kinds that belong to a turn and are counted as conversation events (jp's `len()`). */
export const TURN_EVENT_TYPES: ReadonlySet<string> = new Set(TURN_KINDS);

export type TurnEvent =
  | TurnStart
  | ChatRequest
  | ChatResponse
  | ToolCallRequest
  | ToolCallResponse
  | InquiryRequest
  | InquiryResponse;

/** An overlay (a compaction, a pin, a reset of either, a recall exclusion) or a usage record. */
export type OverlayEvent = Compaction | CompactionReset | Pin | PinReset | UsageReport | RecallExclusion;

const OVERLAY_TYPES: ReadonlySet<string> = new Set(OVERLAY_KINDS);

/**
 * True for an overlay (a compaction, a pin, a reset of either, a recall exclusion) or a usage
 * record: never part of the projected view.
 */
export function isOverlay(event: ConversationEvent): event is OverlayEvent {
  return OVERLAY_TYPES.has(event.type);
}

/** The text an event shows the model, or undefined for events with none (turn_start, inquiries). */
export function eventText(event: TurnEvent): string | undefined {
  switch (event.type) {
    case "chat_request":
      return event.content;
    case "chat_response":
      if (event.message !== undefined) return event.message;
      if (event.reasoning !== undefined) return event.reasoning;
      return JSON.stringify(event.data ?? null);
    case "tool_call_request":
      return `${event.name} ${JSON.stringify(event.arguments)}`;
    case "tool_call_response":
      return event.content;
    default:
      return undefined;
  }
}

/** True for events that belong to a turn (as opposed to global entries). */
export function isTurnEvent(event: ConversationEvent): event is TurnEvent {
  return TURN_EVENT_TYPES.has(event.type);
}

/** `newer`: the event needs a feature of a newer cxc (KNOWN_EVENT_FEATURES), not a repair. */
export type ParsedEvent = { ok: true; event: ConversationEvent } | { ok: false; error: string; newer?: true };

const KNOWN_FEATURE_SET: ReadonlySet<unknown> = new Set(KNOWN_EVENT_FEATURES);

/** The first feature of `requires` this cxc does not know (a feature that is not a string counts). */
function unknownFeature(requires: unknown): string | undefined {
  if (!Array.isArray(requires)) return undefined;
  const unknown = requires.find((feature) => !KNOWN_FEATURE_SET.has(feature));
  return unknown === undefined ? undefined : String(unknown);
}

/**
 * The schemas' verdicts by shape, so that thousands of events of a few shapes (an import writes
 * tens of thousands, a load reads them back) are not each walked by zod: the schema of its kind
 * still decides every shape, once, on the first event of that shape, and every later event of the
 * same shape gets the same verdict and the same output (its fields in the order the schema returns
 * them). Sound only for the kinds whose schema decides by shape alone: every field a string (at most
 * "not empty" checked), a boolean, a record of anything, anything, or absent, and no check across
 * fields but whether some are there (`chat_response`'s "exactly one of"). test/core/event-shapes.test.ts
 * checks both against the schemas. Any other kind, or a value of another class (a number, an array,
 * `requires`, an object that is not a plain record), is judged by the schema every time.
 */
export const SHAPE_DECIDED_KINDS: ReadonlySet<string> = new Set([...TURN_KINDS, "config_delta", "usage"]);

/** What the schema returned for a shape: its fields in its order, and whether that is the shape's own. */
interface ShapeVerdict {
  readonly keys: readonly string[];
  readonly canonical: boolean;
}

const shapeVerdicts = new Map<string, ShapeVerdict>();

/** Shapes remembered at most: a log of a thousand made-up fields is judged by the schema, line by line. */
const MAX_SHAPES = 512;

/** Forgets every shape (tests: each case learns its own). */
export function forgetEventShapes(): void {
  shapeVerdicts.clear();
}

/** A record zod's `record` takes as it is: a plain object, no `__proto__` of its own (zod drops it). */
function isPlainRecord(value: object): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.hasOwn(value, "__proto__")) return false;
  return (
    !Object.hasOwn(value, "constructor") ||
    typeof (value as { constructor: unknown }).constructor !== "function"
  );
}

/** Each kind judged by shape, by its number (the first character of a shape). */
const SHAPE_KIND_CODES: ReadonlyMap<string, number> = new Map(
  [...SHAPE_DECIDED_KINDS].map((kind, index) => [kind, index]),
);

/** A number for each field name met (a shape names its fields by them); at most `MAX_FIELD_NAMES`. */
const fieldNumbers = new Map<string, number>();

const MAX_FIELD_NAMES = 4096;

/** The classes of values a shape tells apart (see `shapeOf`); fewer than 8. */
const EMPTY = 0;
const STRING = 1;
const BOOLEAN = 2;
const UNDEFINED = 3;
const NULL = 4;
const RECORD = 5;

/**
 * The shape of a known event: its kind, and each field in order with its value's class (a string
 * empty or not, a boolean, undefined, null, a plain record), one character each: the field's
 * number × 8 + the class (below 4096 × 8, one UTF-16 unit, never a surrogate). A short string of
 * numbers, not of names: building and looking it up is most of what an event's check costs.
 * Undefined when the schema must judge the value itself (see `SHAPE_DECIDED_KINDS`).
 */
function shapeOf(record: Record<string, unknown>): string | undefined {
  const kind = SHAPE_KIND_CODES.get(record.type as string);
  if (kind === undefined || Object.getPrototypeOf(record) !== Object.prototype) return undefined;
  let shape = String.fromCharCode(kind);
  for (const key in record) {
    const value = record[key];
    let valueClass: number;
    if (typeof value === "string") valueClass = value === "" ? EMPTY : STRING;
    else if (typeof value === "boolean") valueClass = BOOLEAN;
    else if (value === undefined) valueClass = UNDEFINED;
    else if (value === null) valueClass = NULL;
    else if (typeof value === "object" && !Array.isArray(value) && isPlainRecord(value)) valueClass = RECORD;
    else return undefined;
    let field = fieldNumbers.get(key);
    if (field === undefined) {
      if (fieldNumbers.size >= MAX_FIELD_NAMES) return undefined;
      field = fieldNumbers.size;
      fieldNumbers.set(key, field);
    }
    shape += String.fromCharCode(field * 8 + valueClass);
  }
  return shape;
}

/** The schema's output for a record of a shape it accepted: the same values, in its order. */
function asShaped(record: Record<string, unknown>, verdict: ShapeVerdict): KnownEvent {
  if (verdict.canonical) return record as unknown as KnownEvent;
  const event: Record<string, unknown> = {};
  for (const key of verdict.keys) event[key] = record[key];
  return event as unknown as KnownEvent;
}

/**
 * Remembers that the schema accepted `record`, of `shape`, as `output`; and `output`'s own shape,
 * which the schema returns as it is (what it returns it takes back unchanged).
 */
function rememberShape(
  shape: string,
  record: Record<string, unknown>,
  output: Record<string, unknown>,
): void {
  if (shapeVerdicts.size >= MAX_SHAPES) return;
  const keys = Object.keys(output);
  const inputKeys = Object.keys(record);
  const canonical = keys.length === inputKeys.length && keys.every((key, index) => inputKeys[index] === key);
  shapeVerdicts.set(shape, { keys, canonical });
  const own = canonical ? undefined : shapeOf(output);
  if (own !== undefined) shapeVerdicts.set(own, { keys, canonical: true });
}

/** The outcome of a known event's schema: the event it returns, or its first issue. */
export type KnownEventCheck =
  | { readonly ok: true; readonly event: KnownEvent }
  | { readonly ok: false; readonly issue: z.core.$ZodIssue | undefined };

/**
 * Checks a record of a known kind against that kind's schema (by its shape when the schema judged
 * that shape before, see `shapeVerdicts`): the event is what the schema returns for it.
 */
export function checkKnownEvent(record: Record<string, unknown>, type: KnownEventType): KnownEventCheck {
  const shape = shapeOf(record);
  const verdict = shape === undefined ? undefined : shapeVerdicts.get(shape);
  if (verdict !== undefined) return { ok: true, event: asShaped(record, verdict) };
  const parsed = eventSchemasByKind()[type].safeParse(record, eventParseOptions());
  if (!parsed.success) return { ok: false, issue: parsed.error.issues[0] };
  const event = parsed.data as Record<string, unknown>;
  if (shape !== undefined) rememberShape(shape, record, event);
  return { ok: true, event: event as unknown as KnownEvent };
}

/**
 * Whether `event` is exactly what its schema returns for it (valid, its fields in the schema's
 * order), known by its shape alone: writing it (src/store/log.ts) need not validate it again.
 * False means "not known", not "invalid".
 */
export function isCanonicalEvent(event: ConversationEvent): boolean {
  const shape = shapeOf(event as unknown as Record<string, unknown>);
  return shape !== undefined && shapeVerdicts.get(shape)?.canonical === true;
}

/**
 * Validates one parsed JSON value as an event. Unknown kinds are accepted and kept verbatim; a
 * malformed known kind is an error whose text names the first problem.
 */
export function parseEvent(value: unknown): ParsedEvent {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "an event must be a JSON object" };
  }
  const record = value as Record<string, unknown>;
  if (typeof record.type !== "string") return { ok: false, error: "an event needs a string `type`" };
  const needed = unknownFeature(record.requires);
  if (needed !== undefined) {
    return {
      ok: false,
      error: `a ${record.type} event needs a newer cxc (it requires "${needed}", which this cxc does not know)`,
      newer: true,
    };
  }
  if (!isKnownEventType(record.type)) {
    return { ok: true, event: { type: "unknown", raw: record } };
  }
  // Pick the schema by `type` instead of trying a union's members in turn: loading a large log
  // validates thousands of events, and a union would fail its way through most of them.
  const checked = checkKnownEvent(record, record.type);
  if (checked.ok) return checked;
  return { ok: false, error: `invalid ${record.type} event: ${describeFieldIssue(checked.issue, record)}` };
}

/** A schema issue, in the words of the file the value came from: the field by name, the value by kind. */
export function describeFieldIssue(issue: z.core.$ZodIssue | undefined, record: unknown): string {
  if (issue === undefined) return "it does not match the event's shape";
  const field = issue.path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
  const named = field === "" ? "the event" : `"${field}"`;
  let actual: unknown = record;
  for (const part of issue.path) actual = (actual as Record<PropertyKey, unknown> | undefined)?.[part];
  if (issue.code === "custom") return issue.message;
  if (actual === undefined && field !== "") return `${named} is missing`;
  switch (issue.code) {
    case "invalid_type":
      return `${named} must be ${withArticle(issue.expected)}, not ${kindOf(actual)}`;
    case "invalid_value":
      return `${named} must be ${issue.values.map((value) => JSON.stringify(value)).join(" or ")}, not ${JSON.stringify(actual)}`;
    case "too_small":
      return typeof actual === "string" || Array.isArray(actual)
        ? `${named} must not be empty`
        : `${named} must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `${named} must be at most ${String(issue.maximum)}`;
    case "invalid_format":
      return `${named} is not a valid ${issue.format}`;
    case "invalid_union":
      return `${named} has none of the shapes it may take`;
    default:
      return `${named} is not valid`;
  }
}

/** `a string`, `an object`, `an integer`. */
function withArticle(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
}

/** What a JSON value is, for a message: `a number`, `null`, `an array`. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return withArticle(typeof value);
}

/** The JSON value written to disk for an event (unknown kinds as they were read). */
export function serializeEvent(event: ConversationEvent): Record<string, unknown> {
  return event.type === "unknown"
    ? (event.raw as Record<string, unknown>)
    : (event as Record<string, unknown>);
}

/** The id of any event, unknown kinds included (an unknown event may have none). */
export function eventId(event: ConversationEvent): string | undefined {
  if (event.type === "unknown") return typeof event.raw.id === "string" ? event.raw.id : undefined;
  return event.id;
}

/** Compares two RFC 3339 UTC timestamps of any fractional precision. */
export function compareTimestamps(a: string, b: string): number {
  // Both in `toISOString`'s form: the text orders as the time does.
  if (a.length === 24 && b.length === 24 && ISO_MILLISECONDS.test(a) && ISO_MILLISECONDS.test(b)) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const left = normalizeTimestamp(a);
  const right = normalizeTimestamp(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `2026-12-01T10:12:32.954Z`: RFC 3339 UTC with milliseconds, as `toISOString` writes it. */
const ISO_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `2026-05-29T19:42:36.4673Z` → `2026-05-29T19:42:36.467300000Z`, for ordering only. */
function normalizeTimestamp(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/.exec(value);
  if (!match) return value;
  return `${match[1]}T${match[2]}.${(match[3] ?? "").padEnd(9, "0")}Z`;
}
