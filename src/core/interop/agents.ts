/**
 * The coding agents whose session files cxc reads and writes, and how messages name them. A leaf
 * module (no imports), so a listing can name where a conversation came from without loading the
 * converters.
 */

/** The agents whose session files cxc reads and writes. */
export const AGENT_FORMATS = ["claude-code", "pi", "codex", "gemini", "opencode"] as const;
export type AgentFormat = (typeof AGENT_FORMATS)[number];

/** How each agent is named in messages. */
export const AGENT_NAMES: Readonly<Record<AgentFormat, string>> = {
  "claude-code": "Claude Code",
  pi: "pi",
  codex: "Codex",
  gemini: "Gemini CLI",
  opencode: "opencode",
};

/** The agents cxc writes sessions for: all it reads. */
export type ExportAgent = AgentFormat;

/** Meta field naming where an imported conversation came from: `{agent, session_id, cwd, file, …}`. */
export const ORIGIN_META_KEY = "origin";

/**
 * Metadata key marking an imported event that cxc's export wrote as a pinned message (Claude Code:
 * the record's `cxcPinned`; opencode: the part's `metadata.cxc_pinned`): the restore after the
 * agent's own compaction gives it back verbatim.
 */
export const CXC_PINNED_KEY = "cxc_pinned";

/** Meta field jp imports carry (`jp-c…`, the jp conversation id). */
export const JP_ID_META_KEY = "jp_id";

/** The message arrays (request bodies) cxc imports, by the API they are written for. */
export const MESSAGE_FORMATS = ["openai", "anthropic"] as const;
export type MessageFormat = (typeof MESSAGE_FORMATS)[number];

/** Where a conversation came from, by its metadata: an agent, jp, a message array, or cxc itself. */
export type ConversationSource = AgentFormat | MessageFormat | "jp" | "cxc";

export function conversationSource(meta: Readonly<Record<string, unknown>>): ConversationSource {
  const origin = meta[ORIGIN_META_KEY];
  if (typeof origin === "object" && origin !== null) {
    const { agent, format } = origin as { agent?: unknown; format?: unknown };
    if (typeof agent === "string" && (AGENT_FORMATS as readonly string[]).includes(agent)) {
      return agent as AgentFormat;
    }
    if (typeof format === "string" && (MESSAGE_FORMATS as readonly string[]).includes(format)) {
      return format as MessageFormat;
    }
  }
  return typeof meta[JP_ID_META_KEY] === "string" ? "jp" : "cxc";
}

/** The source as people read it: `Claude Code`, `pi`, `jp`, `cxc`, `OpenAI`, `Anthropic`. */
export function sourceName(source: ConversationSource): string {
  if (source === "openai") return "OpenAI";
  if (source === "anthropic") return "Anthropic";
  return source === "jp" || source === "cxc" ? source : AGENT_NAMES[source];
}

/** The agent session file an imported conversation was read from, when it records one. */
export function originFile(meta: Readonly<Record<string, unknown>>): string | undefined {
  const origin = meta[ORIGIN_META_KEY];
  if (typeof origin !== "object" || origin === null) return undefined;
  const file = (origin as { file?: unknown }).file;
  return typeof file === "string" ? file : undefined;
}

/** The working directory of the agent session an imported conversation was read from, when it records one. */
export function originCwd(meta: Readonly<Record<string, unknown>>): string | undefined {
  const origin = meta[ORIGIN_META_KEY];
  if (typeof origin !== "object" || origin === null) return undefined;
  const cwd = (origin as { cwd?: unknown }).cwd;
  return typeof cwd === "string" && cwd !== "" ? cwd : undefined;
}
