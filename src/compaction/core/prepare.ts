/**
 * `prepare(events, request, settings)`: what a compaction request would do to a conversation,
 * without doing it (docs/architecture.md, "The compaction slice"). Pure.
 *
 * A preparation holds the plan (plan.ts: every rule's range resolved, summaries placed by the
 * overlap rule of overlap.ts, facts blocks and keep rules attached from the keeping), the pins the
 * request adds, the turn the compactions activate at, and the events as prepare can realize them:
 * a summary still to be written is estimated with the digest, as the dry run shows it. Given a
 * token counter it holds the preview (preview.ts), step by step, with every saving figure.
 *
 * The one effectful step (src/compaction/compact.ts) writes the summaries a preparation asks for,
 * realizes it with `realize` below (the one constructor of compaction events, event.ts) and
 * appends. A preparation that plans nothing says why: `nothing` (with the reason in words for a
 * run of rules), `invalid` (a position error, or the `compact` tool's message for the model), or
 * `conflict` (a supplied summary that would split another).
 */
import type { Compaction, ConversationEvent, Pin } from "../../core/conversation/events.js";
import { buildPinEvent, planPin } from "../../core/conversation/pins.js";
import type { TokenCounter } from "../../core/conversation/tokens.js";
import { countTurns, groupTurns } from "../../core/conversation/turns.js";
import type { Bound } from "../../core/position/bound.js";
import type { MessagePosition } from "../../core/position/parse.js";
import { buildAutoRules, type CutPoint } from "./advisor/advisor.js";
import { withoutDeferral } from "./event.js";
import { DEFAULT_KEEPING, type Keeping } from "./keeping.js";
import { describeNothingToCompact } from "./nothing-to-compact.js";
import { type CompactionPlan, type NothingWhy, type PlannedCompaction, planCompaction } from "./plan.js";
import { type CompactionPreview, previewCompactions, savesAlmostNothing } from "./preview.js";
import { needsSummary, realizePlan } from "./realize.js";
import { applyRange, type CompactionRequest } from "./request.js";
import { reviewCompactionPlan } from "./review/review.js";
import { DIGEST_RECIPE, digestTurns } from "./summary/digest.js";
import { judgeToolPlan, type PlannedCompactRule, planToolRules } from "./tool/compact-tool-plan.js";

/** What `prepare` needs besides the events and the request. */
export interface PrepareSettings {
  /** RFC 3339 time of the run: time bounds are read at it. */
  readonly now: string;
  /** The facts block's budget and working directory, the keep rules (default: none configured). */
  readonly keeping?: Keeping;
  /** Counts tokens for the preview; absent: no preview (the `compact` tool needs one). */
  readonly countTokens?: TokenCounter;
}

/** What each planned compaction saves, in the preview's order. */
export interface PreparedPreview extends CompactionPreview {
  /** True where a compaction saves under 1 % of its turns' tokens (preview.ts). */
  readonly savesLittle: readonly boolean[];
}

/** A request that plans something. */
export interface PlannedPreparation {
  readonly kind: "planned";
  readonly request: CompactionRequest;
  /** The conversation as prepared against. */
  readonly events: readonly ConversationEvent[];
  readonly plan: PlannedCompaction;
  readonly keeping: Keeping;
  /** The turn the compactions activate at (`deferred_until_turn`); absent: in force at once. */
  readonly deferredUntilTurn?: number;
  /** Pins the request adds with its compactions (an agreed review's `keep`), none in force yet. */
  readonly pins: readonly MessagePosition[];
  /** The events as prepared: summaries to write estimated with the digest, placeholder ids. */
  readonly estimated: readonly Compaction[];
  /** With a token counter: the preview of `estimated`, step by step. */
  readonly preview?: PreparedPreview;
  readonly countTokens?: TokenCounter;
  /** The `compact` tool's rules as planned, for its approval and its answer. */
  readonly tool?: { readonly rules: readonly PlannedCompactRule[]; readonly activatesAtTurn: number };
}

/** A request that plans nothing, or cannot be planned. */
export interface UnplannedPreparation {
  readonly kind: "nothing" | "invalid" | "conflict";
  readonly request: CompactionRequest;
  readonly events: readonly ConversationEvent[];
  readonly message: string;
  /** Nothing: why, rule by rule (plan.ts). */
  readonly why?: readonly NothingWhy[];
  /** Nothing, for a run of rules: why in words (`the conversation has 2 turns, and …`). */
  readonly reason?: string;
  /** The rule the problem was found in. */
  readonly ruleIndex?: number;
}

/** What a request would do; see the module comment. */
export type Preparation = PlannedPreparation | UnplannedPreparation;

const NOTHING = "Nothing to compact.";

/** The timestamp of estimated events: later than every compaction there, so each outranks them. */
const ESTIMATE_TS = "9999-12-31T23:59:59.999999999Z";

/** Where an automatic compaction's range ends: turn `to`, or its cycle `toCycle` (0-based). */
function cutBound(cut: CutPoint): Bound {
  return cut.toCycle === undefined
    ? { kind: "turn", turn: cut.to }
    : { kind: "turn", turn: cut.to, cycle: cut.toCycle };
}

/** The plan of a request, and what goes with it. */
interface Planned {
  readonly plan: CompactionPlan;
  readonly deferredUntilTurn?: number;
  readonly pins?: readonly MessagePosition[];
  /** The rules as planned, for the reason when nothing is compacted. */
  readonly explain?: {
    readonly rules: Parameters<typeof planCompaction>[1]["rules"];
    readonly defaultRule: boolean;
  };
  readonly tool?: { readonly activatesAtTurn: number };
}

/** The pins of `positions` not in force yet (nor asked for twice). */
function newPins(events: readonly ConversationEvent[], positions: readonly MessagePosition[], now: string) {
  const planned: Pin[] = [];
  const kept: MessagePosition[] = [];
  for (const position of positions) {
    const pin = planPin([...events, ...planned], position);
    if (pin.ok && pin.kind === "new") {
      planned.push(buildPinEvent(position, { id: `pin:${planned.length}`, ts: now }));
      kept.push(position);
    }
  }
  return kept;
}

/** Plans a request that is not the `compact` tool's (the tool judges its plan further below). */
function planRequest(
  events: readonly ConversationEvent[],
  request: Exclude<CompactionRequest, { kind: "tool" }>,
  settings: PrepareSettings,
  keeping: Keeping,
): Planned {
  const common = { now: settings.now, keeping };
  switch (request.kind) {
    case "rules": {
      const rules = applyRange(request.rules, request.range);
      const explain = { rules, defaultRule: request.defaultRule };
      if (countTurns(events) === 0)
        return { plan: { kind: "nothing-to-compact", message: NOTHING }, explain };
      const note = request.note === undefined ? {} : { note: request.note };
      return { plan: planCompaction(events, { rules, source: "user", ...note, ...common }), explain };
    }
    case "draft": {
      if (countTurns(events) === 0) return { plan: { kind: "nothing-to-compact", message: NOTHING } };
      const rules = applyRange([request.rule], request.range);
      const plan = planCompaction(events, { rules, source: "user", ...common });
      // A review discusses one summary: the first piece of the range.
      return { plan: plan.kind === "planned" ? { ...plan, segments: plan.segments.slice(0, 1) } : plan };
    }
    case "review":
      return {
        plan: reviewCompactionPlan(
          request.proposal,
          request.reviewId,
          events,
          settings.now,
          keeping,
          request.native,
        ),
        pins: newPins(events, request.proposal.keep ?? [], settings.now),
      };
    case "cut": {
      const rules = buildAutoRules(request.focus, request.rules, request.native === true).map((rule) => ({
        ...rule,
        keep_last: cutBound(request.cut),
      }));
      const plan = planCompaction(events, { rules, source: "auto", note: request.note, ...common });
      return {
        // An automatic compaction that cannot be planned compacts nothing; it is never an error.
        plan: plan.kind === "planned" ? plan : { kind: "nothing-to-compact", message: NOTHING },
        ...(request.atOnce ? {} : { deferredUntilTurn: countTurns(events) }),
      };
    }
    case "imported":
      // The agent decided its range: turns 0..toTurn, whatever the events say.
      return {
        plan: {
          kind: "planned",
          segments: [
            {
              ruleIndex: 0,
              from: 0,
              to: request.toTurn,
              requested: { from: 0, to: request.toTurn },
              supplied: {
                text: request.summary,
                author: "assistant",
                ...(request.native === undefined ? {} : { native: request.native }),
              },
              ...(request.facts === undefined || request.facts === "" ? {} : { facts: request.facts }),
            },
          ],
          source: request.source,
          note: request.note,
          origin: request.origin,
        },
      };
  }
}

/** The preview of the estimated events, with the little-savings judgement of each. */
function previewOf(
  events: readonly ConversationEvent[],
  estimated: readonly Compaction[],
  countTokens: TokenCounter,
  activateAll: boolean,
): PreparedPreview {
  const preview = previewCompactions(events, estimated.map(withoutDeferral), countTokens, { activateAll });
  return { ...preview, savesLittle: preview.steps.map(savesAlmostNothing) };
}

/** The events of a plan with its summaries estimated by the digest, under placeholder ids. */
function estimate(
  events: readonly ConversationEvent[],
  plan: PlannedCompaction,
  deferredUntilTurn: number | undefined,
): Compaction[] {
  const turns = groupTurns(events);
  const estimates = plan.segments.map((segment, index) =>
    needsSummary(plan, index)
      ? { summary: digestTurns(turns, segment), source: "derived" as const, recipe: DIGEST_RECIPE }
      : undefined,
  );
  let counter = 0;
  return realizePlan(plan, estimates, {
    newEventId: () => `estimate:${counter++}`,
    now: () => ESTIMATE_TS,
    ...(deferredUntilTurn === undefined ? {} : { deferredUntilTurn }),
  });
}

/** Prepares `request` against `events`; see the module comment. */
export function prepare(
  events: readonly ConversationEvent[],
  request: CompactionRequest,
  settings: PrepareSettings,
): Preparation {
  const keeping = request.kind === "imported" ? DEFAULT_KEEPING : (settings.keeping ?? DEFAULT_KEEPING);
  const unplanned = (kind: UnplannedPreparation["kind"], message: string, extra: object = {}) =>
    ({ kind, request, events, message, ...extra }) as UnplannedPreparation;
  let planned: Planned;
  if (request.kind === "tool") {
    const tool = planToolRules(events, request.rules, { now: settings.now, keeping });
    if (!tool.ok) return unplanned("invalid", tool.message);
    planned = { plan: tool.plan, deferredUntilTurn: tool.activatesAtTurn, tool };
  } else {
    planned = planRequest(events, request, settings, keeping);
  }
  const { plan } = planned;
  if (plan.kind === "nothing-to-compact") {
    const explain = planned.explain;
    return unplanned("nothing", plan.message, {
      ...(plan.why === undefined ? {} : { why: plan.why }),
      ...(explain === undefined
        ? {}
        : {
            reason: describeNothingToCompact({
              rules: explain.rules,
              why: plan.why,
              turnCount: countTurns(events),
              defaultRule: explain.defaultRule,
            }),
          }),
    });
  }
  if (plan.kind === "invalid" || plan.kind === "conflict") {
    const { kind: _kind, message, ruleIndex, ...rest } = plan;
    return unplanned(plan.kind, message, { ...(ruleIndex === undefined ? {} : { ruleIndex }), ...rest });
  }
  const estimated = estimate(events, plan, planned.deferredUntilTurn);
  const countTokens = settings.countTokens;
  // The `compact` tool's compactions wait for the next turn: judged once every one is in force.
  const preview =
    countTokens === undefined
      ? undefined
      : previewOf(events, estimated, countTokens, request.kind === "tool");
  let tool: PlannedPreparation["tool"];
  if (request.kind === "tool") {
    if (countTokens === undefined || preview === undefined)
      throw new Error("the compact tool's rules are prepared with a token counter");
    const judged = judgeToolPlan(events, request.rules, plan, estimated, preview, countTokens);
    if (!judged.ok) return unplanned("invalid", judged.message);
    tool = { rules: judged.rules, activatesAtTurn: planned.tool!.activatesAtTurn };
  }
  return {
    kind: "planned",
    request,
    events,
    plan,
    keeping,
    ...(planned.deferredUntilTurn === undefined ? {} : { deferredUntilTurn: planned.deferredUntilTurn }),
    pins: planned.pins ?? [],
    estimated,
    ...(preview === undefined ? {} : { preview }),
    ...(countTokens === undefined ? {} : { countTokens }),
    ...(tool === undefined ? {} : { tool }),
  };
}
