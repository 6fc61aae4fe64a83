/**
 * The `[y/n/Y/N/e/?]` approval prompt for tool calls, on the terminal.
 *
 * One key, no Enter: `y` run, `n` decline, `Y`/`N` the same for the rest of this turn, `e` edit
 * the arguments in $EDITOR and run, `?` help. Ctrl-C interrupts the turn. Any other key shows the
 * help again. Keys typed before the prompt showed are not answers (see `readAnswerKey`).
 *
 * The call itself was shown just before, as one line (tool-lines.ts); the prompt adds only what
 * that line left out: the tool's own description of the call (the compact tool's plan), or the
 * whole arguments when the line had to cut them. All of it sanitized, since the model wrote it.
 */
import { locateJsonError } from "../../core/json-syntax.js";
import { sanitizeTerminalText } from "../../core/present/sanitize.js";
import type { ApprovalPrompter, PendingCall, PromptAnswer } from "../../query/approval.js";
import type { ArgumentsEditing } from "../../tools/tool.js";
import { editText } from "./editor.js";
import { toolCallLine } from "./tool-lines.js";
import { type PromptTerminal, readAnswerKey } from "./tty.js";

const HELP = [
  "  y - run this tool call",
  "  n - do not run it (the model is told you declined)",
  "  Y - run it, and every call of this tool for the rest of this turn",
  "  N - decline it, and every call of this tool for the rest of this turn",
  "  e - edit the arguments in $EDITOR, then run",
  "  ? - show this help",
  "  Ctrl-C - stop the turn",
].join("\n");

/** The most argument text shown before the prompt; the rest is elided. */
const MAX_SHOWN_ARGUMENTS = 2000;

export function createApprovalPrompter(
  terminal: PromptTerminal,
  options: { env: NodeJS.ProcessEnv; beforePrompt?: () => void },
): ApprovalPrompter {
  const write = (text: string): void => {
    terminal.output.write(text);
  };
  return {
    async ask(call: PendingCall): Promise<PromptAnswer> {
      options.beforePrompt?.();
      write(describeCall(call));
      for (;;) {
        write(`Run ${call.source} tool ${sanitizeTerminalText(call.name)}? [y/n/Y/N/e/?] `);
        const key = await readAnswerKey(terminal);
        write(`${key === "\u0003" ? "^C" : sanitizeTerminalText(key)}\n`);
        if (key === "\u0003") return "interrupt";
        if (key === "y" || key === "n" || key === "Y" || key === "N" || key === "e") return key;
        write(`${HELP}\n`);
      }
    },
    async editArguments(call: PendingCall) {
      if (call.editing !== undefined) return editInToolFormat(call, call.editing, options.env, write);
      let text = `${JSON.stringify(call.arguments, null, 2)}\n`;
      for (;;) {
        const edited = await editText(text, { env: options.env, fileName: `${call.name}-arguments.json` });
        if (edited === undefined) {
          write("cxc: No editor is set or it failed (set $EDITOR); not editing.\n");
          return undefined;
        }
        if (edited.trim().length === 0) return undefined;
        try {
          const value: unknown = JSON.parse(edited);
          if (typeof value === "object" && value !== null && !Array.isArray(value)) {
            return value as Record<string, unknown>;
          }
          write("cxc: The arguments must be a JSON object; opening the editor again.\n");
        } catch {
          // JSON.parse's message quotes the text (the model's arguments): say where instead.
          const error = locateJsonError(edited);
          const where =
            error === undefined ? "" : ` at line ${error.line}, column ${error.column}: ${error.reason}`;
          write(`cxc: Not valid JSON${where}; opening the editor again.\n`);
        }
        text = edited;
      }
    },
  };
}

/** `e` for a tool with its own text form of the arguments; re-opens the editor on a bad edit. */
async function editInToolFormat(
  call: PendingCall,
  editing: ArgumentsEditing,
  env: NodeJS.ProcessEnv,
  write: (text: string) => void,
): Promise<Record<string, unknown> | undefined> {
  let text = editing.render(call.arguments);
  for (;;) {
    const edited = await editText(text, { env, fileName: editing.fileName });
    if (edited === undefined) {
      write("cxc: No editor is set or it failed (set $EDITOR); not editing.\n");
      return undefined;
    }
    if (edited.trim().length === 0) return undefined;
    const parsed = editing.parse(edited);
    if (parsed.ok) return parsed.value;
    write(`cxc: ${sanitizeTerminalText(parsed.error)}; opening the editor again.\n`);
    text = edited;
  }
}

function describeCall(call: PendingCall): string {
  // A tool that describes its own calls (the compact tool's resolved plan) is shown by that
  // description, not by its JSON: the plan is what the user approves; `e` still opens the JSON.
  if (call.detail) return `${sanitizeTerminalText(call.detail)}\n`;
  if (!toolCallLine(call).cut) return "";
  let argumentsText = JSON.stringify(call.arguments, null, 2);
  if (argumentsText.length > MAX_SHOWN_ARGUMENTS) {
    argumentsText = `${argumentsText.slice(0, MAX_SHOWN_ARGUMENTS)}\n… (${argumentsText.length} characters)`;
  }
  return `${sanitizeTerminalText(argumentsText)}\n`;
}
