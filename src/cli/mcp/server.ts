/**
 * `cxc mcp`: a stdio MCP server, on the official SDK, that offers one tool, `recall`, over the
 * transcript of the Claude Code or Codex session that started it (docs/recall.md, "Inside Claude
 * Code and Codex").
 *
 * - It always lists `recall`, so the agent's tool list never changes with a compaction.
 * - It learns its session from the record cxc's hooks (`SessionStart` at every start, `Stop`)
 *   made under the agent's process id (src/cli/hooks/agent-process.ts), at each call: a `/clear`
 *   or a resume is followed. It reads that transcript and no other, read-only, converted as
 *   `cxc conversation import` converts it; what the agent's own compactions hid is what recall
 *   reads. A call made while it does not know its session is a tool error that says why; a
 *   transcript the agent has not written yet holds nothing hidden.
 * - It keeps what it parsed: a later call reads and parses only the lines the agent appended since
 *   (transcript.ts), and the whole file again only when it was replaced, truncated or rewritten.
 * - A session exported from cxc carries references to the cxc conversation it came from
 *   (`cxc 01k… turn 3, call 1`): those read that conversation from the store, read-only.
 */
import { analyzeRecall, type RecallAnalysis } from "../../core/conversation/recall.js";
import { checkArguments, type ToolOutcome } from "../../tools/tool.js";
import {
  createRecallTool,
  RECALL_ARGUMENTS,
  RECALL_DESCRIPTION,
  RECALL_TOOL_NAME,
  type RecallSettings,
  recallOptions,
  runRecall,
  runRecallWithSources,
} from "../../tools/recall.js";
import type { ConversationEvent } from "../../core/conversation/events.js";
import { lookupAgentSession } from "../hooks/agent-process.js";
import { TranscriptFollower, transcriptAnalyzer } from "./transcript.js";
import type { SessionRecord } from "../hooks/agent-process.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The agents `cxc mcp` serves. */
export const MCP_AGENTS = ["claude-code", "codex"] as const;
export type McpAgent = (typeof MCP_AGENTS)[number];

/** What a server is started with. */
export interface McpOptions {
  readonly agent: McpAgent;
  readonly env: Environment;
  readonly settings: RecallSettings;
  readonly version: string;
  /** The process whose agent the server looks up (tests); default: this process's parent. */
  readonly parent?: number;
  /** A cxc conversation's events from the store, for a session exported from cxc; undefined when absent. */
  readonly loadConversation?: (id: string) => readonly ConversationEvent[] | undefined;
}

/**
 * The session's transcript, read whole at the first call and then only what the agent appended
 * (transcript.ts), converted as `cxc conversation import` converts it.
 */
export class TranscriptRecall extends TranscriptFollower {
  constructor(agent: McpAgent, settings: RecallSettings) {
    super(agent, transcriptAnalyzer(recallOptions(settings)));
  }
}

/** Answers one `recall` call for the session the agent process recorded. */
export async function answerRecall(
  options: McpOptions,
  recall: TranscriptRecall,
  argumentsObject: Readonly<Record<string, unknown>>,
): Promise<ToolOutcome> {
  const tool = createRecallTool(options.settings);
  const checked = await checkArguments(tool, argumentsObject);
  if (!checked.ok) return checked.outcome;
  const found = lookupAgentSession(options.env, options.agent, options.parent);
  if (!found.ok) return { content: `recall: cxc does not know this session: ${found.reason}`, isError: true };
  let analysis: RecallAnalysis;
  try {
    analysis = recall.analysis(found.record.transcript_path);
  } catch (error) {
    // A new session's transcript is written after its first messages: until then nothing is hidden.
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      analysis = analyzeRecall([], recallOptions(options.settings));
    else
      return {
        content: `recall: cannot read this session's transcript (${describe(found.record)}): ${(error as Error).message}`,
        isError: true,
      };
  }
  const load = options.loadConversation;
  if (load === undefined) return runRecall(analysis, checked.value, options.settings);
  return runRecallWithSources(analysis, checked.value, options.settings, (id) => {
    const events = load(id);
    return events === undefined
      ? undefined
      : analyzeRecall(events, recallOptions(options.settings, `cxc ${id}`));
  });
}

function describe(record: SessionRecord): string {
  return `session ${record.session_id}, ${record.transcript_path}`;
}

/** Serves `recall` on stdin/stdout until the agent closes the pipe. */
export async function serveMcp(options: McpOptions): Promise<void> {
  const { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } = await import(
    "./mcp-sdk.js"
  );
  const server = new Server(
    { name: "cxc", version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        "cxc's recall reads back, verbatim, what this session's compaction hid (the restore after a compaction lists it).",
    },
  );
  const recall = new TranscriptRecall(options.agent, options.settings);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: RECALL_TOOL_NAME,
        description: RECALL_DESCRIPTION,
        inputSchema: RECALL_ARGUMENTS.schema as { type: "object"; [key: string]: unknown },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== RECALL_TOOL_NAME)
      return {
        content: [
          {
            type: "text" as const,
            text: `cxc mcp has one tool, ${RECALL_TOOL_NAME}; there is no ${request.params.name}`,
          },
        ],
        isError: true,
      };
    const outcome = await answerRecall(options, recall, request.params.arguments ?? {});
    return { content: [{ type: "text" as const, text: outcome.content }], isError: outcome.isError };
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
