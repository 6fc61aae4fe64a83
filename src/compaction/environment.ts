/**
 * What compaction needs of the world, built once per process (docs/architecture.md, "The
 * compaction slice"): the configuration and environment (the summarizer rule and its fallback read
 * them), the assistant model the user chose, the clock and event ids, where notices and warnings
 * go, and the token counters of the store. Every surface of a process hands the same environment
 * to `compact` (compact.ts).
 *
 * It also reads, once and with one wording for every surface, what configuration and flags say
 * about compaction: the configured rules (`conversation.compaction.rules`), the rule flags
 * (`-r/-t/-s`, `-k`), and what a compaction keeps for a conversation (core/keeping.ts).
 */
import type { ConfigTable } from "../core/config.js";
import { lookupConfig } from "../core/config.js";
import type { TokenCounter } from "../core/conversation/tokens.js";
import { originCwd } from "../core/interop/agents.js";
import type { BoundRange } from "../core/position/bound.js";
import { CxcError } from "../errors.js";
import { newEventId, timestampNow } from "../store/index.js";
import { type Keeping, readKeeping } from "./core/keeping.js";
import type { PrepareSettings } from "./core/prepare.js";
import {
  type ConfiguredRules,
  type ExplicitRules,
  type RuleFlags,
  readConfiguredRules,
  readRuleFlags,
  rulesRequest,
  type RulesRequest,
} from "./core/request.js";
import type { PipelineReport } from "./summaries.js";
import type { ConversationEvent } from "../core/conversation/events.js";
import type { RequestOverhead } from "./context-window.js";

export type { PipelineReport, SummaryProgress } from "./summaries.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Ids and time for new events. */
export interface CompactionClock {
  now(): string;
  newEventId(): string;
}

/** What a process builds its environment from. */
export interface CompactionEnvironmentOptions {
  readonly config: ConfigTable;
  readonly env: Env;
  /** Notices, warnings and progress, through the caller's prefixes (stderr). */
  readonly report: PipelineReport;
  /** The token counter of a conversation (the store's, cached with it); no id: one for any text. */
  readonly counter: (conversationId?: string) => Promise<TokenCounter>;
  /**
   * The assistant model the user chose for this run (`q -m`, the model the conversation was
   * switched to, `assistant.model.id`); absent: `assistant.model.id`. Never a model picked because
   * an API key is set.
   */
  readonly assistantModel?: string;
  /** Default: the store's ids and the system clock. */
  readonly clock?: CompactionClock;
  /** Write a private copy of each summary and name it in the result (`compact`, the review's draft). */
  readonly copies?: boolean;
  /** List what each summary lost (`compact`). */
  readonly checkLosses?: boolean;
  /** The system prompt and tools a conversation's next turn sends (a native summary is asked with them). */
  readonly overhead?: (events: readonly ConversationEvent[]) => Promise<RequestOverhead | undefined>;
}

/** The environment of a process; see the module comment. */
export interface CompactionEnvironment {
  readonly config: ConfigTable;
  readonly env: Env;
  readonly report: PipelineReport;
  readonly assistantModel?: string;
  readonly clock: CompactionClock;
  readonly copies: boolean;
  readonly checkLosses: boolean;
  readonly overhead?: (events: readonly ConversationEvent[]) => Promise<RequestOverhead | undefined>;
  counter(conversationId?: string): Promise<TokenCounter>;
  /** `conversation.compaction.rules` (the built-in default when unset); throws `invalid-config`. */
  configuredRules(): ConfiguredRules;
  /** What a compaction of a conversation with metadata `meta` keeps; throws `invalid-config`. */
  keeping(meta?: Readonly<Record<string, unknown>>): Keeping;
  /** `prepare`'s settings for a conversation with metadata `meta`, now. */
  settings(meta?: Readonly<Record<string, unknown>>, countTokens?: TokenCounter): PrepareSettings;
  /** The rules request of the explicit rules (`ruleFlags`) and the configured ones. */
  rules(
    explicit: ExplicitRules,
    options?: {
      readonly range?: BoundRange;
      readonly model?: string;
      readonly note?: string;
      /** `--native`: every summary asks for the provider's own. */
      readonly native?: boolean;
    },
  ): RulesRequest;
}

const SPEC_HINT = "a SPEC is POLICIES[:RANGE], e.g. -k=r+t:..-2 or -k=s:2..10 (see docs/compaction.md)";
const CONFIG_HINT = "check `cxc config show` and docs/compaction.md for the rule schema";

/** Builds the environment of a process; see the module comment. */
export function createCompactionEnvironment(options: CompactionEnvironmentOptions): CompactionEnvironment {
  const clock = options.clock ?? { now: () => timestampNow(), newEventId: () => newEventId() };
  let configured: ConfiguredRules | undefined;
  const keepings = new Map<string | undefined, Keeping>();
  const environment: CompactionEnvironment = {
    config: options.config,
    env: options.env,
    report: options.report,
    ...(options.assistantModel === undefined ? {} : { assistantModel: options.assistantModel }),
    clock,
    copies: options.copies === true,
    checkLosses: options.checkLosses === true,
    ...(options.overhead === undefined ? {} : { overhead: options.overhead }),
    counter: options.counter,
    configuredRules() {
      configured ??= configuredRulesOf(options.config);
      return configured;
    },
    keeping(meta = {}) {
      const cwd = originCwd(meta);
      const known = keepings.get(cwd);
      if (known !== undefined) return known;
      const read = readKeeping(options.config, cwd);
      if (!read.ok) {
        throw new CxcError("invalid-config", read.message, {
          hint: 'check `cxc config show` and docs/compaction.md ("What a compaction keeps")',
        });
      }
      keepings.set(cwd, read.value);
      return read.value;
    },
    settings(meta, countTokens) {
      return {
        now: clock.now(),
        keeping: environment.keeping(meta),
        ...(countTokens === undefined ? {} : { countTokens }),
      };
    },
    rules(explicit, request = {}) {
      return rulesRequest(environment.configuredRules(), explicit, request);
    },
  };
  return environment;
}

/** `conversation.compaction.rules` of `config`, or the error every surface words the same way. */
export function configuredRulesOf(config: ConfigTable): ConfiguredRules {
  const read = readConfiguredRules(lookupConfig(config, "conversation.compaction.rules"));
  if (!read.ok) throw new CxcError("invalid-config", read.message, { hint: CONFIG_HINT });
  return read.value;
}

/**
 * The rule flags of a surface (`compact`, `q -k`, `fork -k`) read, or the usage error every surface
 * words the same way.
 */
export function ruleFlags(flags: RuleFlags): ExplicitRules {
  const read = readRuleFlags(flags);
  if (read.ok) return read.value;
  throw new CxcError("invalid-spec", read.message, read.input === "spec" ? { hint: SPEC_HINT } : {});
}
