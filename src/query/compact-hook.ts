/**
 * `cxc q -k[=SPEC]`: compaction before the turn, so the new turn is never in range.
 *
 * Each `-k SPEC` is parsed with the `-k` DSL (core/compact-spec.ts); a bare `-k` stands for the
 * configured rules (`conversation.compaction.rules`, else the built-in default rule). The rules
 * are planned by the core planner against the conversation as stored, and one `compaction` event
 * per planned segment is appended (`source: user`) in a single append.
 *
 * Summaries: a rule naming a model (`summary.model.id`) is summarized by that model; otherwise, or
 * when the model call fails, by the deterministic `builtin/digest`, which needs no provider and is
 * re-derivable (`summary.source = derived`, `recipe = builtin/digest`).
 *
 * The caller holds the conversation's lock (the turn holds it from before this hook until the
 * turn ends), so the hook uses the store's plain `append`.
 */
import {
  type CompactSpec,
  combineRules,
  describeSpecError,
  parseCompactSpec,
  specToRule,
} from "../core/compact-spec.js";
import { type ConfigTable, lookupConfig } from "../core/config.js";
import { DIGEST_RECIPE, digestTurns } from "../core/digest.js";
import type { Compaction, ConversationEvent, SummaryPolicy } from "../core/events.js";
import { buildCompactionEvent, type CompactionSegment, planCompaction } from "../core/plan-compaction.js";
import { type CompactionRule, configuredRules, readCompactionRules } from "../core/rules.js";
import { groupTurns } from "../core/turns.js";
import { CxcError, usageError } from "../errors.js";
import { newEventId, timestampNow } from "../store/index.js";

/** One `-k` occurrence: `true` for a bare `-k`, else its SPEC text. */
export type CompactFlag = true | string;

/** The store operations the hook needs (the caller holds the lock). */
export interface CompactHookStore {
  load(id: string): { readonly events: readonly ConversationEvent[] };
  append(id: string, events: readonly ConversationEvent[]): unknown;
}

/** Injected effects; defaults use the real clock, ids and model registry. */
export interface CompactHookEnvironment {
  readonly now?: () => string;
  readonly newEventId?: () => string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
  /** Told about fallbacks (a failed summary model). */
  readonly warn?: (text: string) => void;
}

/** What the hook did. */
export type CompactHookResult =
  | { readonly kind: "compacted"; readonly compactions: readonly Compaction[]; readonly message: string }
  | { readonly kind: "nothing"; readonly message: string };

/** Parses the `-k` flags into rules; a bad SPEC is a usage error with jp's reason. */
export function rulesFromFlags(flags: readonly CompactFlag[], config: ConfigTable): CompactionRule[] {
  const explicit: CompactionRule[] = [];
  for (const flag of flags) {
    if (flag === true) continue;
    const parsed = parseCompactSpec(flag);
    if (!parsed.ok) {
      throw new CxcError("invalid-spec", describeSpecError(flag, parsed.message), {
        hint: "a SPEC is POLICIES[:RANGE], e.g. -k=r+t:..-2 or -k=s:1..10 (see docs/query.md)",
      });
    }
    explicit.push(specToRule(parsed.value as CompactSpec));
  }
  const configured = lookupConfig(config, "conversation.compaction.rules");
  let configRules: CompactionRule[];
  if (configured === undefined) configRules = configuredRules(undefined);
  else {
    const read = readCompactionRules(configured);
    if (!read.ok) throw new CxcError("invalid-config", `conversation.compaction.rules: ${read.message}`);
    configRules = configuredRules(read.value);
  }
  return combineRules(configRules, flags.includes(true), explicit);
}

/** Compacts conversation `id` according to the `-k` flags; see the module comment. */
export async function compactBeforeTurn(
  store: CompactHookStore,
  id: string,
  specs: readonly CompactFlag[],
  config: ConfigTable,
  environment: CompactHookEnvironment = {},
): Promise<CompactHookResult> {
  const rules = rulesFromFlags(specs, config);
  const now = environment.now ?? (() => timestampNow());
  const nextId = environment.newEventId ?? (() => newEventId());
  const events = store.load(id).events;
  const plan = planCompaction(events, { rules, now: now(), source: "user" });
  if (plan.kind === "nothing-to-compact") return { kind: "nothing", message: plan.message };
  if (plan.kind === "invalid") throw usageError(plan.message);
  if (plan.kind === "conflict") throw new CxcError("compaction-conflict", plan.message);
  const compactions: Compaction[] = [];
  for (const segment of plan.segments) {
    const summary =
      segment.summary === undefined ? undefined : await summarize(events, segment, config, environment);
    compactions.push(
      buildCompactionEvent(segment, {
        id: nextId(),
        ts: now(),
        source: plan.source,
        ...(plan.note === undefined ? {} : { note: plan.note }),
        ...(summary === undefined ? {} : { summary }),
      }),
    );
  }
  store.append(id, compactions);
  const ranges = compactions.map((compaction) => `${compaction.from_turn + 1}..${compaction.to_turn + 1}`);
  return {
    kind: "compacted",
    compactions,
    message: `Compacted turns ${ranges.join(", ")} before this turn.`,
  };
}

async function summarize(
  events: readonly ConversationEvent[],
  segment: CompactionSegment,
  config: ConfigTable,
  environment: CompactHookEnvironment,
): Promise<SummaryPolicy> {
  const turns = groupTurns(events);
  const modelId = segment.summary?.model?.id;
  if (modelId !== undefined && modelId !== DIGEST_RECIPE) {
    const text = await summarizeWithModelId(modelId, turns, segment, config, environment);
    if (text !== undefined) return { summary: text, source: "derived", recipe: modelId };
  }
  const digest = digestTurns(turns, { fromTurn: segment.from, toTurn: segment.to });
  return { summary: digest, source: "derived", recipe: DIGEST_RECIPE };
}

async function summarizeWithModelId(
  modelId: string,
  turns: ReturnType<typeof groupTurns>,
  segment: CompactionSegment,
  config: ConfigTable,
  environment: CompactHookEnvironment,
): Promise<string | undefined> {
  const { createLlmClient } = await import("../llm/registry.js");
  const { summarizeWithModel } = await import("../llm/summarize.js");
  const client = createLlmClient(modelId, { config, env: environment.env ?? {} });
  const rawTurns = turns.filter((turn) => turn.index >= segment.from && turn.index <= segment.to);
  const result = await summarizeWithModel(client, {
    rawTurns,
    model: modelId,
    ...(segment.summary?.instructions === undefined ? {} : { instructions: segment.summary.instructions }),
    ...(segment.summary?.context === undefined ? {} : { context: segment.summary.context }),
    ...(environment.signal === undefined ? {} : { signal: environment.signal }),
  });
  if (result.ok) return result.text;
  environment.warn?.(`${result.message}; using ${DIGEST_RECIPE} instead`);
  return undefined;
}
