/**
 * The advisor's settings, read from the configuration and the environment. Pure. Kept apart from
 * the decisions (advisor.ts) so that code which needs only the settings (the Claude Code hook's
 * silent path, which must start fast) loads no schema library.
 *
 * - `conversation.compaction.advisor` with `CXC_ADVISOR_*` environment overrides; the three token
 *   lines are read as a set (docs/advisor.md, "Configuration").
 * - Inside pi the package's own variables (`AE_PI_COMPACT_ADVISOR_*`) are read too, below cxc's
 *   (`withPackageVariables`).
 */

/** The three token lines; a valid set is strictly increasing. */
export interface TokenLines {
  readonly notice: number;
  readonly recommend: number;
  readonly request: number;
}

/** The lines used when none (or an invalid set) is configured. */
export const DEFAULT_TOKEN_LINES: TokenLines = Object.freeze({
  notice: 60_000,
  recommend: 100_000,
  request: 140_000,
});

/** `conversation.compaction.advisor`, checked. */
export interface AdvisorSettings {
  readonly enabled: boolean;
  /** The decision model; undefined means the assistant model. */
  readonly model?: string;
  readonly lines: TokenLines;
  readonly timeoutMs: number;
  /** Whether the cut-point question is asked before an automatic compaction. */
  readonly cutPoint: boolean;
  /**
   * How many recent turns one cut-point question may offer: `max_turns`, else the decision
   * model's declared choice-option limit minus one, else 12 (docs/advisor.md).
   */
  readonly maxTurns: number;
  /** The decision model's declared choice-option limit (`choice_options`), when one is. */
  readonly choiceOptions?: number;
}

/** Settings plus the warnings reading them produced (bad values fall back; they never fail a turn). */
export interface ReadSettings<T> {
  readonly settings: T;
  readonly warnings: readonly string[];
}

/** Environment variables, as a plain record (core never reads the process). */
export type EnvironmentRecord = Readonly<Record<string, string | undefined>>;

export const DEFAULT_ADVISOR_TIMEOUT_MS = 5000;
/** `max_turns` when the decision model's choice-option limit is not declared. */
export const DEFAULT_ADVISOR_MAX_TURNS = 12;

/**
 * The default of `max_turns` (docs/advisor.md, "`max_turns` and the choice-option limit"): the
 * decision model's choice-option limit minus one where the limit is declared (`choice_options`,
 * at least 2), else 12. cxc's own tables know no provider's limit; a small local decision model
 * that lists at most a few options well is declared.
 */
export function defaultMaxTurns(choiceOptions: number | undefined): number {
  return choiceOptions === undefined ? DEFAULT_ADVISOR_MAX_TURNS : Math.max(1, choiceOptions - 1);
}

function readChoiceOptions(value: unknown): number | undefined {
  const number = readPositiveInteger(value);
  return number !== undefined && number >= 2 ? number : undefined;
}
/** Reads one setting by its key. */
export type Lookup = (key: string) => unknown;

function lookupIn(table: unknown, path: readonly string[]): unknown {
  let current = table;
  for (const segment of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * One section of settings, `conversation.compaction.<name>`, each key overridden by the environment
 * variable `<prefix><KEY>`: `lookup` gives a value as written, `read` one checked by `parse`, an
 * invalid value falling back with a warning in `warnings` (a bad value never fails a turn).
 */
export interface SettingsSection {
  readonly what: string;
  readonly warnings: string[];
  readonly lookup: Lookup;
  read<T>(key: string, parse: (value: unknown) => T | undefined, fallback: T): T;
}

export function settingsSection(
  config: unknown,
  name: string,
  environment: EnvironmentRecord,
  prefix: string,
): SettingsSection {
  const what = `conversation.compaction.${name}`;
  const warnings: string[] = [];
  const lookup: Lookup = (key) => {
    const fromEnvironment = environment[`${prefix}${key.toUpperCase()}`];
    if (fromEnvironment !== undefined && fromEnvironment !== "") return fromEnvironment;
    return lookupIn(config, ["conversation", "compaction", name, key]);
  };
  return {
    what,
    warnings,
    lookup,
    read(key, parse, fallback) {
      const value = lookup(key);
      if (value === undefined) return fallback;
      const parsed = parse(value);
      if (parsed !== undefined) return parsed;
      warnings.push(
        `${what}.${key} = ${JSON.stringify(value)} is not valid; using ${JSON.stringify(fallback)}`,
      );
      return fallback;
    },
  };
}

export function readBoolean(value: unknown): boolean | undefined {
  if (value === true || value === "true" || value === "on" || value === "1") return true;
  if (value === false || value === "false" || value === "off" || value === "0") return false;
  return undefined;
}

export function readPositiveInteger(value: unknown): number | undefined {
  const number =
    typeof value === "string" && /^\s*\d[\d_]*\s*$/.test(value) ? Number(value.replace(/_/g, "")) : value;
  return typeof number === "number" && Number.isInteger(number) && number > 0 ? number : undefined;
}

/**
 * Reads the three lines as a set: all absent gives the defaults quietly; any missing, invalid or
 * not strictly increasing gives all three defaults together, with one warning.
 */
export function readTokenLines(lookup: Lookup): { lines: TokenLines; warning?: string } {
  const raw = {
    notice: lookup("notice_tokens"),
    recommend: lookup("recommend_tokens"),
    request: lookup("request_tokens"),
  };
  if (raw.notice === undefined && raw.recommend === undefined && raw.request === undefined) {
    return { lines: DEFAULT_TOKEN_LINES };
  }
  const notice = readPositiveInteger(raw.notice);
  const recommend = readPositiveInteger(raw.recommend);
  const request = readPositiveInteger(raw.request);
  if (
    notice !== undefined &&
    recommend !== undefined &&
    request !== undefined &&
    notice < recommend &&
    recommend < request
  ) {
    return { lines: { notice, recommend, request } };
  }
  const given = `notice ${String(raw.notice ?? "unset")}, recommend ${String(raw.recommend ?? "unset")}, request ${String(raw.request ?? "unset")}`;
  const { notice: n, recommend: r, request: q } = DEFAULT_TOKEN_LINES;
  return {
    lines: DEFAULT_TOKEN_LINES,
    // A partial set is never mixed with the defaults: said plainly, with what to do.
    warning:
      `the advisor's token lines are read as a set, and ${given} is not a full, strictly increasing one ` +
      `(notice < recommend < request): all three use the defaults ${n}/${r}/${q}; set all three, or none`,
  };
}

/**
 * The advisor's settings as they are when nothing is configured, for `cxc config show`: keys and
 * values, and the decision model, which is the assistant model (a `note`, not a value).
 */
export function advisorDefaultLeaves(
  config: unknown = {},
  environment: EnvironmentRecord = {},
): { key: string; value: unknown; note?: string }[] {
  const key = (name: string): string => `conversation.compaction.advisor.${name}`;
  const { choiceOptions } = readAdvisorSettings(config, environment).settings;
  return [
    {
      key: key("choice_options"),
      value: null,
      note: `not declared: max_turns is ${DEFAULT_ADVISOR_MAX_TURNS}`,
    },
    { key: key("cut_point"), value: true },
    { key: key("enabled"), value: true },
    {
      key: key("max_turns"),
      value: defaultMaxTurns(choiceOptions),
      ...(choiceOptions === undefined ? {} : { note: `choice_options ${choiceOptions} minus one` }),
    },
    { key: key("model"), value: null, note: "the assistant model" },
    { key: key("notice_tokens"), value: DEFAULT_TOKEN_LINES.notice },
    { key: key("recommend_tokens"), value: DEFAULT_TOKEN_LINES.recommend },
    { key: key("request_tokens"), value: DEFAULT_TOKEN_LINES.request },
    { key: key("timeout_ms"), value: DEFAULT_ADVISOR_TIMEOUT_MS },
  ];
}

/** Reads `conversation.compaction.advisor` with `CXC_ADVISOR_*` overrides. */
export function readAdvisorSettings(
  config: unknown,
  environment: EnvironmentRecord = {},
): ReadSettings<AdvisorSettings> {
  const section = settingsSection(config, "advisor", environment, "CXC_ADVISOR_");
  const { what, warnings, lookup } = section;
  const tokenLines = readTokenLines(lookup);
  if (tokenLines.warning !== undefined) warnings.push(tokenLines.warning);
  const model = lookup("model");
  if (model !== undefined && (typeof model !== "string" || model === "")) {
    warnings.push(`${what}.model must be a model id; using the assistant model`);
  }
  const settings: AdvisorSettings = {
    enabled: section.read("enabled", readBoolean, true),
    ...(typeof model === "string" && model !== "" ? { model } : {}),
    lines: tokenLines.lines,
    timeoutMs: section.read("timeout_ms", readPositiveInteger, DEFAULT_ADVISOR_TIMEOUT_MS),
    cutPoint: section.read("cut_point", readBoolean, true),
    maxTurns: DEFAULT_ADVISOR_MAX_TURNS,
  };
  const declared = lookup("choice_options");
  const choiceOptions = declared === undefined ? undefined : readChoiceOptions(declared);
  if (declared !== undefined && choiceOptions === undefined) {
    warnings.push(
      `${what}.choice_options = ${JSON.stringify(declared)} is not a count of at least 2; treated as not declared`,
    );
  }
  const fallback = defaultMaxTurns(choiceOptions);
  let maxTurns = section.read("max_turns", readPositiveInteger, fallback);
  if (choiceOptions !== undefined && maxTurns > choiceOptions - 1) {
    warnings.push(
      `${what}.max_turns = ${maxTurns} is more than the decision model's ${choiceOptions} choice options ` +
        `allow; using ${choiceOptions - 1}`,
    );
    maxTurns = choiceOptions - 1;
  }
  return {
    settings: { ...settings, maxTurns, ...(choiceOptions === undefined ? {} : { choiceOptions }) },
    warnings,
  };
}

/** The package's own variables (inside pi) and the cxc settings they stand for. */
const PACKAGE_VARIABLES: Readonly<Record<string, string>> = {
  AE_PI_COMPACT_ADVISOR_ENABLED: "CXC_ADVISOR_ENABLED",
  AE_PI_COMPACT_ADVISOR_NOTICE_TOKENS: "CXC_ADVISOR_NOTICE_TOKENS",
  AE_PI_COMPACT_ADVISOR_RECOMMEND_TOKENS: "CXC_ADVISOR_RECOMMEND_TOKENS",
  AE_PI_COMPACT_ADVISOR_REQUEST_TOKENS: "CXC_ADVISOR_REQUEST_TOKENS",
  AE_PI_COMPACT_ADVISOR_TIMEOUT_MS: "CXC_ADVISOR_TIMEOUT_MS",
  AE_PI_COMPACT_ADVISOR_CUT_POINT_ENABLED: "CXC_ADVISOR_CUT_POINT",
  AE_PI_COMPACT_ADVISOR_MAX_TURNS: "CXC_ADVISOR_MAX_TURNS",
};

/**
 * The environment with the `AE_PI_COMPACT_ADVISOR_*` variables read as the `CXC_ADVISOR_*` ones
 * they stand for; a `CXC_ADVISOR_*` variable that is set wins over its package variable.
 */
export function withPackageVariables(environment: EnvironmentRecord): EnvironmentRecord {
  const mapped: Record<string, string | undefined> = {};
  for (const [from, to] of Object.entries(PACKAGE_VARIABLES)) {
    const value = environment[from];
    if (value !== undefined && value !== "") mapped[to] = value;
  }
  const own = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ""),
  );
  return { ...mapped, ...own };
}
