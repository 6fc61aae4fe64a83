/**
 * Deciding whether a tool call runs: run modes, the answers remembered for the rest of a turn,
 * and refusing (never approving) what needs a terminal when there is none.
 *
 * The terminal side (reading a key, opening $EDITOR) sits behind `ApprovalPrompter`, so the rules
 * here are tested without a terminal and the prompt itself is tested in tmux.
 */
import type { ArgumentsEditing, RunMode, ToolSource } from "../tools/tool.js";

/** A key answered at the `[y/n/Y/N/e/?]` prompt (`?` is handled inside the prompter). */
export type PromptAnswer = "y" | "n" | "Y" | "N" | "e" | "interrupt";

/** One tool call awaiting a decision. */
export interface PendingCall {
  readonly name: string;
  readonly source: ToolSource;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Extra lines from the tool (`Tool.describeCall`). */
  readonly detail?: string;
  /** The tool's own text form of its arguments for `e` (JSON when absent). */
  readonly editing?: ArgumentsEditing;
  /**
   * What edited arguments would do, resolved again (`Tool.describeCall`). When present, arguments
   * edited with `e` are shown again, resolved, and asked about before they run.
   */
  readonly redescribe?: (argumentsObject: Readonly<Record<string, unknown>>) => Promise<string>;
}

/** The terminal: present only when cxc can ask. */
export interface ApprovalPrompter {
  ask(call: PendingCall): Promise<PromptAnswer>;
  /** Opens the arguments in $EDITOR; undefined when cancelled or emptied. Re-asks on invalid JSON. */
  editArguments(call: PendingCall): Promise<Readonly<Record<string, unknown>> | undefined>;
}

/** What happens to a call. */
export type ApprovalDecision =
  | { readonly kind: "run"; readonly arguments: Readonly<Record<string, unknown>> }
  | {
      readonly kind: "decline";
      readonly content: string;
      readonly isError: boolean;
      /** The user said no (at the prompt, or with `N` earlier in the turn); else a setting or no terminal. */
      readonly byUser: boolean;
    }
  | { readonly kind: "interrupt" };

/**
 * Tool result texts, stable so tests and models can rely on them. A declined call is an error
 * result: the call did not run, and the model should not take its silence for an empty success.
 */
export function declinedText(name: string): string {
  return `The user declined this call of ${name}: it did not run. Do not call it again with the same arguments; continue without it, or ask the user what to do instead.`;
}

export function declinedRememberedText(name: string): string {
  return `The user declined every call of ${name} for the rest of this turn: this one did not run. Do not call ${name} again in this turn; continue without it, or ask the user what to do instead.`;
}

export function skippedText(name: string): string {
  return `Tool call skipped: conversation.tools.${name}.run is set to skip.`;
}

/** The result given to a call refused for lack of a terminal; names the setting that allows it. */
export function refusedText(name: string, run: RunMode): string {
  return (
    `Tool call refused: ${name} needs approval (run = ${run}) and there is no terminal to ask. ` +
    `To allow it without asking, set conversation.tools.${name}.run = "unattended" ` +
    `(for one run: -c conversation.tools.${name}.run=unattended).`
  );
}

/** Decisions for one turn; `Y` and `N` answers are remembered per tool name until the turn ends. */
export class TurnApprovals {
  readonly #prompter: ApprovalPrompter | undefined;
  readonly #remembered = new Map<string, "yes" | "no">();

  /** `prompter` is undefined when there is no terminal to ask. */
  constructor(prompter: ApprovalPrompter | undefined) {
    this.#prompter = prompter;
  }

  async decide(call: PendingCall, run: RunMode): Promise<ApprovalDecision> {
    if (run === "unattended") return { kind: "run", arguments: call.arguments };
    if (run === "skip")
      return { kind: "decline", content: skippedText(call.name), isError: false, byUser: false };
    const remembered = this.#remembered.get(call.name);
    if (remembered === "yes") return { kind: "run", arguments: call.arguments };
    if (remembered === "no") return declined(declinedRememberedText(call.name));
    if (this.#prompter === undefined)
      return { kind: "decline", content: refusedText(call.name, run), isError: true, byUser: false };
    if (run === "edit") {
      const edited = await this.#prompter.editArguments(call);
      // An emptied buffer falls back to asking, as jp does.
      if (edited !== undefined) {
        if (call.redescribe === undefined) return { kind: "run", arguments: edited };
        return this.#ask(await withEdited(call, edited, call.redescribe), this.#prompter);
      }
    }
    return this.#ask(call, this.#prompter);
  }

  async #ask(pending: PendingCall, prompter: ApprovalPrompter): Promise<ApprovalDecision> {
    let call = pending;
    for (;;) {
      const answer = await prompter.ask(call);
      switch (answer) {
        case "y":
          return { kind: "run", arguments: call.arguments };
        case "Y":
          this.#remembered.set(call.name, "yes");
          return { kind: "run", arguments: call.arguments };
        case "n":
          return declined(declinedText(call.name));
        case "N":
          this.#remembered.set(call.name, "no");
          return declined(declinedRememberedText(call.name));
        case "e": {
          const edited = await prompter.editArguments(call);
          if (edited === undefined) continue;
          if (call.redescribe === undefined) return { kind: "run", arguments: edited };
          // Shown again, resolved, before anything is recorded.
          call = await withEdited(call, edited, call.redescribe);
          continue;
        }
        case "interrupt":
          return { kind: "interrupt" };
      }
    }
  }
}

/** The call with edited arguments and what they now resolve to. */
async function withEdited(
  call: PendingCall,
  edited: Readonly<Record<string, unknown>>,
  redescribe: NonNullable<PendingCall["redescribe"]>,
): Promise<PendingCall> {
  return { ...call, arguments: edited, detail: await redescribe(edited) };
}

function declined(content: string): ApprovalDecision {
  return { kind: "decline", content, isError: true, byUser: true };
}
