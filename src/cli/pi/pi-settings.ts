/**
 * What the pi package reads besides the advisor's settings: how cxc's facts reach pi's context after
 * pi compacts (`facts`), and pi's own `keepRecentTokens`, which the notice line should sit above
 * (docs/inside-agents.md: below it a compaction has little to drop). pi's settings files are
 * only read.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type ConfigTable, lookupConfig } from "../../core/config.js";

/**
 * How the facts of the turns pi compacted reach the model:
 *
 * - `message` (the default): pi writes its summary as it always does; cxc delivers the facts,
 *   verbatim, as a message after the compaction (pi stays the owner of its summary).
 * - `summary`: cxc has pi's own summarizer write the summary and appends the facts to it (the
 *   form before: the summary entry holds both).
 * - `off`: nothing.
 */
export type PiFactsMode = "message" | "summary" | "off";

export const PI_FACTS_MODES: readonly PiFactsMode[] = ["message", "summary", "off"];

/** The configuration key and the variable of the facts' mode. */
export const PI_FACTS_KEY = "conversation.compaction.advisor.pi_facts";
export const PI_FACTS_VARIABLE = "CXC_ADVISOR_PI_FACTS";

/** The facts' mode, and a warning when a value is not one of the modes (the default is used). */
export function readPiFactsMode(
  config: ConfigTable,
  env: Readonly<Record<string, string | undefined>>,
): { mode: PiFactsMode; warning?: string } {
  const variable = env[PI_FACTS_VARIABLE];
  const [where, value] =
    variable !== undefined && variable !== ""
      ? [PI_FACTS_VARIABLE, variable]
      : [PI_FACTS_KEY, lookupConfig(config, PI_FACTS_KEY)];
  if (value === undefined) return { mode: "message" };
  if (typeof value === "string" && (PI_FACTS_MODES as readonly string[]).includes(value)) {
    return { mode: value as PiFactsMode };
  }
  return {
    mode: "message",
    warning: `${where} = ${JSON.stringify(value)} is not one of ${PI_FACTS_MODES.join(", ")}; using message`,
  };
}

/** pi's default `compaction.keepRecentTokens`. */
export const PI_KEEP_RECENT_TOKENS = 20_000;

/**
 * pi's `compaction.keepRecentTokens` as its settings files set it (the project's
 * `<cwd>/.pi/settings.json` over the user's `~/.pi/agent/settings.json`, `PI_CODING_AGENT_DIR`
 * moving the latter), else pi's default. An unreadable file counts as unset.
 */
export function piKeepRecentTokens(cwd: string, env: Readonly<Record<string, string | undefined>>): number {
  const home = env.HOME ?? homedir();
  const configured = env.PI_CODING_AGENT_DIR;
  const agent = configured
    ? configured.startsWith("~/")
      ? join(home, configured.slice(2))
      : configured
    : join(home, ".pi", "agent");
  let tokens = PI_KEEP_RECENT_TOKENS;
  for (const file of [join(agent, "settings.json"), join(cwd, ".pi", "settings.json")]) {
    try {
      const settings = JSON.parse(readFileSync(file, "utf8")) as {
        compaction?: { keepRecentTokens?: unknown };
      };
      const value = settings.compaction?.keepRecentTokens;
      if (typeof value === "number" && Number.isFinite(value) && value >= 0) tokens = value;
    } catch {
      // Absent or unreadable: pi reads it as unset too.
    }
  }
  return tokens;
}

/** The warning when the notice line sits below pi's `keepRecentTokens`, else undefined. */
export function noticeBelowKeepRecent(notice: number, keepRecentTokens: number): string | undefined {
  if (notice >= keepRecentTokens) return undefined;
  return (
    `the notice line (${notice} tokens) is below pi's keepRecentTokens (${keepRecentTokens}): a compaction ` +
    "advised there has little to drop; set the three lines (AE_PI_COMPACT_ADVISOR_NOTICE_TOKENS and the " +
    "other two, or conversation.compaction.advisor) above it"
  );
}
