/**
 * Sessions of agents newer than the ones cxc was tested with. Pure.
 *
 * Users run a newer Claude Code, Codex or pi than `agents/` pins. The readers read the version the
 * records carry (Claude Code: each record's `version`; Codex: `session_meta.cli_version`; pi: the
 * session header's format `version`), count the records and the content they do not know
 * (`AgentImportSummary.unknown`: record kinds; `unknownFields`: kinds of content inside records
 * they do know, a content block or part, a message role), read the rest, and say so in one line
 * naming that version (`describeUnknown`), in `import`'s summary, in `hooks.log` (so `hooks
 * status`) and in the pi extension's notice. Nothing fails because of them.
 */
import type { AgentImportSummary } from "./agent-session.js";
import { AGENT_NAMES, type AgentFormat } from "./agents.js";

/**
 * What the readers were checked against: the versions the interop tests run (agents/package.json,
 * agents/codex/package.json, agents/opencode/package.json; test/core/agent-versions.test.ts holds
 * them equal), and for pi the session format its pinned version writes.
 */
export const TESTED_VERSIONS: Readonly<Partial<Record<AgentFormat, string>>> = {
  "claude-code": "2.1.332",
  codex: "0.169.0",
  pi: "3",
  // Gemini CLI's sessions carry no version; opencode's carry the version that wrote them.
  gemini: "0.61.0",
  opencode: "1.18.33",
};

/** Compares dotted versions part by part, numbers as numbers (`2.10.0` > `2.9.9`); 0 when equal. */
export function compareVersions(left: string, right: string): number {
  const split = (version: string) => version.replace(/^v/, "").split(/[.+-]/);
  const [a, b] = [split(left), split(right)];
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const [x, y] = [a[index] ?? "0", b[index] ?? "0"];
    const [m, n] = [Number(x), Number(y)];
    const order = Number.isFinite(m) && Number.isFinite(n) ? m - n : x.localeCompare(y);
    if (order !== 0) return Math.sign(order);
  }
  return 0;
}

/** Whether `version` of `agent` is newer than the one cxc was tested with. */
export function isNewerThanTested(agent: AgentFormat, version: string | undefined): boolean {
  const tested = TESTED_VERSIONS[agent];
  return version !== undefined && tested !== undefined && compareVersions(version, tested) > 0;
}

/** `Claude Code 2.3.0`, `pi session format 4`. */
function versionName(agent: AgentFormat, version: string): string {
  return agent === "pi" ? `pi session format ${version}` : `${AGENT_NAMES[agent]} ${version}`;
}

const total = (counts: Readonly<Record<string, number>> | undefined): number =>
  Object.values(counts ?? {}).reduce((sum, value) => sum + value, 0);

/** `future_record 2, block mystery 1` (largest first). */
function kinds(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort(([leftKey, left], [rightKey, right]) => right - left || leftKey.localeCompare(rightKey))
    .map(([kind, count]) => `${kind} ${count}`)
    .join(", ");
}

/**
 * The one line saying what a reader did not know, naming the version the records carry, or
 * undefined when it knew everything:
 * `written by Claude Code 2.3.0, newer than 2.1.332, which cxc was tested with: 2 records and 1
 * field of kinds cxc does not know were left out (future_record 2; block mystery 1)`.
 */
export function describeUnknown(summary: AgentImportSummary): string | undefined {
  const records = total(summary.unknown);
  const fields = total(summary.unknownFields);
  if (records + fields === 0) return undefined;
  const what = [
    records === 0 ? undefined : `${records} ${records === 1 ? "record" : "records"}`,
    fields === 0 ? undefined : `${fields} ${fields === 1 ? "field" : "fields"}`,
  ]
    .filter((part) => part !== undefined)
    .join(" and ");
  const listed = [kinds(summary.unknown), kinds(summary.unknownFields ?? {})]
    .filter((part) => part !== "")
    .join("; ");
  const tested = TESTED_VERSIONS[summary.agent];
  const version = summary.version;
  const by =
    version === undefined
      ? `written by ${AGENT_NAMES[summary.agent]} (no version recorded)`
      : isNewerThanTested(summary.agent, version)
        ? `written by ${versionName(summary.agent, version)}, newer than ${tested}, which cxc was tested with`
        : `written by ${versionName(summary.agent, version)}`;
  return `${by}: ${what} of kinds cxc does not know ${records + fields === 1 ? "was" : "were"} left out (${listed})`;
}
