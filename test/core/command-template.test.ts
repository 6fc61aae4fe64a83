// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax, not a JavaScript template
/**
 * Local command templates (src/core/command-template.ts): where a placeholder may stand in a
 * command line, what the shell script becomes, and the array form's rules.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fillArgument, prepareCommand } from "../../src/core/command-template.js";

function script(command: string): string {
  const prepared = prepareCommand(command);
  if (!prepared.ok) throw new Error(`refused: ${prepared.problem}`);
  if (prepared.command.kind !== "shell") throw new Error("not a shell command");
  return prepared.command.script;
}

function problem(command: string | string[]): string {
  const prepared = prepareCommand(command);
  if (prepared.ok) throw new Error(`accepted: ${JSON.stringify(prepared.command)}`);
  return prepared.problem;
}

describe("prepareCommand: command lines", () => {
  it("turns each bare placeholder into a quoted variable reference", () => {
    expect(script("printf '%s' {{text}} | wc -w")).toBe(`printf '%s' "\${CXC_ARG_text}" | wc -w`);
    expect(script("grep -n {{ pattern }} {{file}}")).toBe(`grep -n "\${CXC_ARG_pattern}" "\${CXC_ARG_file}"`);
    expect(script('out=$(cat {{file}}); echo "$out"')).toBe(`out=$(cat "\${CXC_ARG_file}"); echo "$out"`);
    expect(script('echo "$(cat {{file}})"')).toBe(`echo "$(cat "\${CXC_ARG_file}")"`);
    expect(script("sort --key={{key}} <{{file}}")).toBe(`sort --key="\${CXC_ARG_key}" <"\${CXC_ARG_file}"`);
    expect(script("(cd {{dir}} && ls)")).toBe(`(cd "\${CXC_ARG_dir}" && ls)`);
    expect(script("if [ -f {{path}} ]; then cat {{path}}; fi")).toBe(
      `if [ -f "\${CXC_ARG_path}" ]; then cat "\${CXC_ARG_path}"; fi`,
    );
  });

  it("lists the placeholders once each", () => {
    const prepared = prepareCommand("cp {{a}} {{b}}; ls {{a}}");
    expect(prepared.ok && prepared.command.placeholders).toEqual(["a", "b"]);
  });

  it("leaves comments, escaped text and quoted text without placeholders alone", () => {
    expect(script("echo '{x}' \\{{a}} # {{b}}")).toBe("echo '{x}' \\{{a}} # {{b}}");
    expect(script("cat <<'EOF'\nno placeholders here\nEOF\necho {{a}}")).toBe(
      `cat <<'EOF'\nno placeholders here\nEOF\necho "\${CXC_ARG_a}"`,
    );
    expect(script("echo $((1 + 2)) {{a}}")).toBe(`echo $((1 + 2)) "\${CXC_ARG_a}"`);
  });

  it.each([
    ["echo '{{text}}'", "the placeholder {{text}} is inside single quotes"],
    ['echo "{{text}}"', "the placeholder {{text}} is inside double quotes"],
    ['echo "x $(cat "{{f}}")"', "the placeholder {{f}} is inside double quotes"],
    ["echo $'{{text}}'", "the placeholder {{text}} is inside $'…' quotes"],
    ["echo `cat {{f}}`", "the placeholder {{f}} is inside backticks"],
    ["echo ${x:-{{text}}}", "the placeholder {{text}} is inside a ${…} expansion"],
    ["echo $(( {{n}} + 1 ))", "the placeholder {{n}} is inside shell arithmetic"],
    ["(( {{n}} > 1 )) && echo big", "the placeholder {{n}} is inside shell arithmetic"],
    ["echo $(( $(echo {{n}}) ))", "the placeholder {{n}} is inside shell arithmetic"],
    ["[[ {{n}} -eq 1 ]] && echo one", "the placeholder {{n}} is inside [[ … ]]"],
    ["cat <<EOF\n{{text}}\nEOF", "the placeholder {{text}} is inside a here-document"],
    ["echo x{{text}}", "the placeholder {{text}} is part of a larger word"],
    ["cat {{dir}}/file", "the placeholder {{dir}} is part of a larger word"],
    ["echo ${{text}}", "the placeholder {{text}} is part of a larger word"],
    ["echo {{a}}{{b}}", "the placeholder {{a}} is part of a larger word"],
    ["echo 'unterminated {{a}}", "the placeholder {{a}} is inside single quotes"],
    ["echo 'unterminated", "the command line has an unterminated single quote (')"],
    ['echo "$(date', "the command line has an unterminated $(…) substitution"],
  ])("refuses %j", (command, expected) => {
    expect(problem(command)).toBe(expected);
  });

  it("says how to write a refused placeholder", () => {
    const prepared = prepareCommand("echo '{{text}}'");
    expect(prepared).toMatchObject({
      ok: false,
      hint: 'write {{text}} bare, outside quotes: cxc passes it as exactly one word (or use "${CXC_ARG_text}")',
    });
    expect(prepareCommand("cat {{dir}}/file")).toMatchObject({
      hint: 'write {{dir}} as a word of its own, or use its variable in the word: "${CXC_ARG_dir}"',
    });
  });

  it("never throws, and replaces every placeholder it accepts by its variable", () => {
    const shellish = fc
      .array(
        fc.constantFrom(
          "'",
          '"',
          "$(",
          ")",
          "(",
          "`",
          "${",
          "}",
          "$((",
          "((",
          "))",
          " ",
          "x",
          "\\",
          "#",
          "\n",
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(shellish, shellish, (before, after) => {
        const prepared = prepareCommand(`${before} {{v}} ${after}`);
        if (!prepared.ok || prepared.command.kind !== "shell") return;
        if (prepared.command.placeholders.includes("v")) {
          expect(prepared.command.script).toContain('"${CXC_ARG_v}"');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("prepareCommand: the array form", () => {
  it("keeps the elements; placeholders fill whole or part of one argument", () => {
    const prepared = prepareCommand(["grep", "--", "{{pattern}}", "--label={{label}}"]);
    expect(prepared).toMatchObject({
      ok: true,
      command: { kind: "argv", placeholders: ["pattern", "label"] },
    });
    expect(fillArgument("--label={{label}}", { label: "a b; $(c)" })).toBe("--label=a b; $(c)");
    expect(fillArgument("{{ missing }}", {})).toBe("");
  });

  it("refuses a placeholder as the program", () => {
    expect(problem(["{{program}}", "x"])).toBe("the program (the first element) cannot be a placeholder");
  });
});
