/**
 * Approval rules without a terminal: run modes, remembered answers, refusal without a prompter,
 * editing, and interrupts. The prompter is a scripted list of answers.
 */
import { describe, expect, it } from "vitest";
import {
  type ApprovalPrompter,
  declinedRememberedText,
  declinedText,
  type PendingCall,
  type PromptAnswer,
  refusedText,
  TurnApprovals,
} from "../../src/query/approval.js";

function scripted(
  answers: PromptAnswer[],
  edits: (Record<string, unknown> | undefined)[] = [],
): ApprovalPrompter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    ask: async (call) => {
      asked.push(call.name);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("asked more often than scripted");
      return answer;
    },
    editArguments: async () => edits.shift(),
  };
}

const call = (name = "tool", argumentsObject: Record<string, unknown> = { a: 1 }): PendingCall => ({
  name,
  source: "local",
  arguments: argumentsObject,
});

describe("TurnApprovals", () => {
  it("runs unattended calls and skips skip calls without asking", async () => {
    const prompter = scripted([]);
    const approvals = new TurnApprovals(prompter);
    expect(await approvals.decide(call(), "unattended")).toEqual({ kind: "run", arguments: { a: 1 } });
    expect(await approvals.decide(call("x"), "skip")).toEqual({
      kind: "decline",
      content: "Tool call skipped: conversation.tools.x.run is set to skip.",
      isError: false,
      byUser: false,
    });
    expect(prompter.asked).toEqual([]);
  });

  it("refuses ask and edit calls when there is no terminal, naming the setting", async () => {
    const approvals = new TurnApprovals(undefined);
    for (const mode of ["ask", "edit"] as const) {
      const decision = await approvals.decide(call("word_count"), mode);
      expect(decision).toEqual({
        kind: "decline",
        content: refusedText("word_count", mode),
        isError: true,
        byUser: false,
      });
    }
    expect(refusedText("word_count", "ask")).toContain("conversation.tools.word_count.run");
  });

  it("y and n answer one call each; a declined call is an error result the model can act on", async () => {
    const approvals = new TurnApprovals(scripted(["y", "n"]));
    expect(await approvals.decide(call(), "ask")).toMatchObject({ kind: "run" });
    expect(await approvals.decide(call(), "ask")).toEqual({
      kind: "decline",
      content: declinedText("tool"),
      isError: true,
      byUser: true,
    });
    expect(declinedText("tool")).toMatch(
      /^The user declined this call of tool: it did not run\. .*ask the user/,
    );
  });

  it("Y and N are remembered per tool for the rest of the turn", async () => {
    const prompter = scripted(["Y", "N"]);
    const approvals = new TurnApprovals(prompter);
    await approvals.decide(call("a"), "ask");
    await approvals.decide(call("b"), "ask");
    expect(await approvals.decide(call("a"), "ask")).toMatchObject({ kind: "run" });
    expect(await approvals.decide(call("b"), "ask")).toEqual({
      kind: "decline",
      content: declinedRememberedText("b"),
      isError: true,
      byUser: true,
    });
    expect(prompter.asked).toEqual(["a", "b"]);
    // A new turn forgets.
    expect(await new TurnApprovals(scripted(["n"])).decide(call("a"), "ask")).toMatchObject({
      kind: "decline",
    });
  });

  it("e runs the edited arguments; a cancelled edit asks again", async () => {
    const approvals = new TurnApprovals(scripted(["e", "e"], [undefined, { a: 2 }]));
    expect(await approvals.decide(call(), "ask")).toEqual({ kind: "run", arguments: { a: 2 } });
  });

  it("edit mode opens the editor first and falls back to asking when the buffer is emptied", async () => {
    expect(await new TurnApprovals(scripted([], [{ b: 1 }])).decide(call(), "edit")).toEqual({
      kind: "run",
      arguments: { b: 1 },
    });
    const prompter = scripted(["n"], [undefined]);
    expect(await new TurnApprovals(prompter).decide(call(), "edit")).toMatchObject({ kind: "decline" });
    expect(prompter.asked).toHaveLength(1);
  });

  it("an interrupt at the prompt interrupts", async () => {
    expect(await new TurnApprovals(scripted(["interrupt"])).decide(call(), "ask")).toEqual({
      kind: "interrupt",
    });
  });
});
