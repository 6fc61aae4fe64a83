/**
 * What `import --from claude-code|pi` reports for each session file: the turns and the agent's
 * compactions it made, and what it left out (docs/import-export.md).
 */
import type { AgentImportSummary } from "../../core/interop/agent-session.js";
import { AGENT_NAMES } from "../../core/interop/agent-session.js";

/** `1 turn`, `3 turns`. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

function total(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((sum, value) => sum + value, 0);
}

/** `queue-operation 6, last-prompt 3` (largest first). */
export function byKind(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort(([leftKey, left], [rightKey, right]) => right - left || leftKey.localeCompare(rightKey))
    .map(([kind, count]) => `${kind} ${count}`)
    .join(", ");
}

/**
 * One line: what came in and what was left out of one session file, the skipped records by kind
 * (`left out: 37 skipped records (queue-operation 8, atis-latch 6, …)`).
 */
export function describeAgentImport(summary: AgentImportSummary): string {
  const agent = AGENT_NAMES[summary.agent];
  const parts = [
    counted(summary.turns, "turn"),
    `${counted(summary.compactions, `compaction of ${agent}'s`, `compactions of ${agent}'s`)} as ${
      summary.compactions === 1 ? "an overlay" : "overlays"
    }`,
  ];
  const none = (count: number, text: string): string => (count === 0 ? `no ${text}` : `${count} ${text}`);
  const skipped = total(summary.skipped);
  const left = [
    skipped === 0
      ? "no skipped records"
      : `${counted(skipped, "skipped record")} (${byKind(summary.skipped)})`,
    none(
      total(summary.unknown),
      total(summary.unknown) === 1 ? "record of an unknown type" : "records of unknown types",
    ),
    none(
      summary.sideChainRecords,
      summary.sideChainRecords === 1 ? "side-chain record" : "side-chain records",
    ),
    summary.abandonedBranches === 0
      ? "no abandoned branches"
      : `${counted(summary.abandonedBranches, "abandoned branch", "abandoned branches")} (${counted(
          summary.abandonedRecords,
          "record",
        )})`,
  ];
  // opencode's sessions are rows of its database: messages, not lines.
  const unit = summary.agent === "opencode" ? "message" : "line";
  return `${counted(summary.lines, unit)} read: ${parts.join(", ")}; left out: ${left.join(", ")}`;
}

/** The summary as JSON (stable snake_case keys). */
export function agentImportJson(summary: AgentImportSummary): Record<string, unknown> {
  return {
    agent: summary.agent,
    lines: summary.lines,
    turns: summary.turns,
    compactions: summary.compactions,
    skipped: summary.skipped,
    unknown: summary.unknown,
    unknown_fields: summary.unknownFields ?? {},
    version: summary.version ?? null,
    side_chain_records: summary.sideChainRecords,
    abandoned_branches: summary.abandonedBranches,
    abandoned_records: summary.abandonedRecords,
  };
}
