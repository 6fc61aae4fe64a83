/**
 * `cxc q -k[=SPEC]`: compaction before the turn, so the new turn is never in range.
 *
 * Each `-k SPEC` is parsed with the `-k` DSL (compaction/core/spec.ts); a bare `-k` stands for the
 * configured rules (`conversation.compaction.rules`, else the built-in default rule). The rules
 * are planned by the core planner against the conversation as stored and applied by the
 * compaction pipeline (src/compaction/apply.ts): summaries by the summarizer the one rule
 * picks (the rule's model, else the assistant model the user chose with `-m` or configured, else
 * `builtin/digest`), the fallback setting when a model fails, one `compaction` event per planned
 * segment (`source: user`), all in a single append.
 *
 * The caller holds the conversation's lock (the turn holds it from before this hook until the
 * turn ends) and hands the locked conversation over: the pipeline appends through it.
 */
import {
  type CompactSpec,
  combineRules,
  describeSpecError,
  parseCompactSpec,
  specToRule,
} from "../compaction/core/spec.js";
import { type ConfigTable, lookupConfig } from "../core/config.js";
import type { Compaction } from "../core/conversation/events.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import { describeCompactionRanges } from "../core/present/labels.js";
import { planCompaction } from "../compaction/core/plan.js";
import { type CompactionRule, configuredRules, readCompactionRules } from "../compaction/core/rules.js";
import { CxcError, usageError } from "../errors.js";
import { newEventId, timestampNow } from "../store/index.js";
import type { LockedConversation } from "../store/index.js";
import { keepingFor } from "../compaction/keeping.js";
import { applyCompaction, expectRunnable, lockedTarget, type PipelineReport } from "../compaction/apply.js";

/** One `-k` occurrence: `true` for a bare `-k`, else its SPEC text. */
export type CompactFlag = true | string;

/** Injected effects; the clock and ids default to the real ones. */
export interface CompactHookEnvironment {
  readonly now?: () => string;
  readonly newEventId?: () => string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The assistant model the user chose for this turn (see `SummaryEnvironment.assistantModel`). */
  readonly assistantModel?: string;
  readonly signal?: AbortSignal;
  /** The digest notice and fallbacks (a failed summary model), on stderr. */
  readonly report: PipelineReport;
  /** Counts tokens for the summary model's window (see compaction/summaries.ts). */
  readonly countTokens?: TokenCounter;
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
  conversation: LockedConversation,
  specs: readonly CompactFlag[],
  config: ConfigTable,
  environment: CompactHookEnvironment,
): Promise<CompactHookResult> {
  const rules = rulesFromFlags(specs, config);
  const now = environment.now ?? (() => timestampNow());
  const nextId = environment.newEventId ?? (() => newEventId());
  const applied = await applyCompaction(lockedTarget(conversation), {
    plan: (events, meta) => {
      const keeping = keepingFor(config, meta);
      const plan = planCompaction(events, { rules, now: now(), source: "user", keeping });
      if (plan.kind === "invalid") throw usageError(plan.message);
      return expectRunnable(plan);
    },
    summaries: {
      config,
      env: environment.env,
      ...(environment.assistantModel === undefined ? {} : { assistantModel: environment.assistantModel }),
      ...(environment.signal === undefined ? {} : { signal: environment.signal }),
      report: environment.report,
      ...(environment.countTokens === undefined ? {} : { countTokens: environment.countTokens }),
    },
    newEventId: nextId,
    now,
  });
  if (applied.kind === "nothing") return { kind: "nothing", message: applied.message };
  const compactions = applied.segments.map((segment) => segment.compaction);
  return {
    kind: "compacted",
    compactions,
    message: `Compacted ${describeCompactionRanges(compactions)} before this turn.`,
  };
}
