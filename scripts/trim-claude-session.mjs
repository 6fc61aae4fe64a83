/**
 * What a Claude Code session fixture leaves out: the records and attachments holding Claude
 * Code's own text (its system prompt, tool, skill and agent descriptions), with what hung off a
 * dropped record re-linked to its nearest kept ancestor. Shared by the fixture scripts
 * (make-agent-fixtures.mjs, make-edit-fixtures.mjs).
 */

/** Records and attachments holding Claude Code's own text, dropped from the fixture. */
const CLAUDE_DROPPED_RECORDS = new Set(["api-request", "api-request-shape", "api-request-blob"]);
const CLAUDE_DROPPED_ATTACHMENTS = new Set([
  "prompt_snapshot",
  "skill_listing",
  "agent_listing_delta",
  "deferred_tools_delta",
  "environment",
  "remote_session_change",
  "model",
]);

/** Drops Claude Code's own text and re-links what hung off a dropped record (see the top). */
export function trimClaudeSession(records) {
  const droppedParent = new Map();
  const kept = [];
  for (const record of records) {
    const drop =
      CLAUDE_DROPPED_RECORDS.has(record.type) ||
      (record.type === "attachment" && CLAUDE_DROPPED_ATTACHMENTS.has(record.attachment?.type));
    if (!drop) kept.push(record);
    else if (typeof record.uuid === "string") droppedParent.set(record.uuid, record.parentUuid ?? null);
  }
  const resolve = (uuid) => {
    let current = uuid;
    while (typeof current === "string" && droppedParent.has(current)) current = droppedParent.get(current);
    return current;
  };
  const relink = (value) => {
    if (typeof value === "string") return droppedParent.has(value) ? resolve(value) : value;
    if (Array.isArray(value)) return value.map(relink);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, relink(inner)]));
    }
    return value;
  };
  return kept.map(relink);
}
