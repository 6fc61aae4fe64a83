/**
 * The registry of built-in tools.
 *
 * A tool (tool.ts) is a name, a JSON Schema for its arguments, defaults for whether it is enabled
 * and how its calls are approved, and a `run` function. Built-in tools register here; local
 * command tools (`conversation.tools.<name>.command`) are built from configuration by
 * `local-command.ts` and share the same interface.
 */
import { compactTool } from "./compact.js";
import { proposeCompactionTool } from "./propose-compaction.js";
import type { Tool } from "./tool.js";

/** Built-in tools by name. Registration order is the order tools are offered in. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  /** Adds a tool; a second tool with the same name is a programming error. */
  register(tool: Tool): this {
    if (this.#tools.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    this.#tools.set(tool.name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }
}

/**
 * The built-in tools of this cxc. Later features add theirs here (`compact`, `propose_compaction`,
 * `should_i_compact`, `compact_now`), each in its own module exporting a `Tool`.
 */
export function createBuiltinRegistry(): ToolRegistry {
  return new ToolRegistry().register(compactTool).register(proposeCompactionTool);
}
