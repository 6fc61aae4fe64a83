// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax, not a JavaScript template
/**
 * The `command` of a local command tool, checked and prepared once. Pure.
 *
 * A tool's values never become shell text. In a command line, each `{{name}}` placeholder is
 * replaced by a quoted reference to an environment variable, `"${CXC_ARG_name}"`, that holds the
 * value; the shell expands it as exactly one word and never parses it (no substitution, no word
 * splitting, no globbing). In the array form, a value becomes (part of) one argument of the
 * program, and no shell runs at all.
 *
 * Placeholders are accepted only where that reference means "this value, as one word": a whole
 * word (or the value of `key=`) outside quotes. A placeholder inside quotes, backticks, `${…}`,
 * arithmetic (`$((…))`, `((…))`), `[[ … ]]` or a here-document is refused with a sentence saying
 * how to write it instead, because there the shell would treat the expansion differently from what
 * the command's author expects (bash evaluates arithmetic text as code). See docs/query.md.
 */

/** The environment variable holding the value of placeholder `name`. */
export function placeholderVariable(name: string): string {
  return `CXC_ARG_${name}`;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/y;
const PLACEHOLDER_ANYWHERE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** A checked command: the shell script (placeholders replaced) or the argument templates. */
export type PreparedCommand =
  | { readonly kind: "shell"; readonly script: string; readonly placeholders: readonly string[] }
  | { readonly kind: "argv"; readonly argv: readonly string[]; readonly placeholders: readonly string[] };

/** A refused command: what is wrong and how to write it instead. */
export interface CommandProblem {
  readonly problem: string;
  readonly hint: string;
}

export type PrepareResult = { ok: true; command: PreparedCommand } | ({ ok: false } & CommandProblem);

/** Checks and prepares a `command` (a shell command line, or `[program, ...args]`). */
export function prepareCommand(command: string | readonly string[]): PrepareResult {
  return typeof command === "string" ? prepareShellCommand(command) : prepareArgvCommand(command);
}

/** The array form: the program must be fixed; every other element may hold placeholders. */
function prepareArgvCommand(argv: readonly string[]): PrepareResult {
  const program = argv[0] ?? "";
  PLACEHOLDER_ANYWHERE.lastIndex = 0;
  if (PLACEHOLDER_ANYWHERE.test(program)) {
    return refused(
      "the program (the first element) cannot be a placeholder",
      'name the program itself, e.g. command = ["grep", "--", "{{pattern}}"]',
    );
  }
  const names = new Set<string>();
  for (const part of argv.slice(1))
    for (const match of part.matchAll(PLACEHOLDER_ANYWHERE)) names.add(match[1]!);
  return { ok: true, command: { kind: "argv", argv, placeholders: [...names] } };
}

/** Fills the placeholders of one array element with the values (no quoting: no shell runs). */
export function fillArgument(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER_ANYWHERE, (_match, name: string) => values[name] ?? "");
}

// ---------------------------------------------------------------------------------------------
// The shell form

/** Where the scanner is: each frame is one nested quoting or expansion context. */
type Frame =
  | { kind: "top" | "command-substitution"; parens: number; testBrackets: boolean }
  | { kind: "double-quote" | "single-quote" | "ansi-quote" | "backtick" | "parameter" }
  | { kind: "arithmetic"; parens: number };

const WHERE: Record<Exclude<Frame["kind"], "top" | "command-substitution">, string> = {
  "double-quote": "inside double quotes",
  "single-quote": "inside single quotes",
  "ansi-quote": "inside $'…' quotes",
  backtick: "inside backticks",
  parameter: "inside a ${…} expansion",
  arithmetic: "inside shell arithmetic",
};

const WORD_BEFORE = /[\s;&|()<>=]/;
const WORD_AFTER = /[\s;&|()<>]/;

/**
 * Scans a shell command line: every placeholder must stand as a whole word in an unquoted
 * context; each is replaced by `"${CXC_ARG_name}"`. The scanner follows POSIX quoting, command
 * substitution, parameter expansion, arithmetic, `[[ … ]]`, comments and here-documents. Values
 * never enter the script whatever it decides, so a mistake here can refuse a good command or
 * accept a placeholder in an odd place, but never lets a value be parsed as shell syntax.
 */
function prepareShellCommand(text: string): PrepareResult {
  const stack: Frame[] = [{ kind: "top", parens: 0, testBrackets: false }];
  const names = new Set<string>();
  const pendingHeredocs: { delimiter: string; stripTabs: boolean }[] = [];
  let script = "";
  let index = 0;
  const copy = (count: number): void => {
    script += text.slice(index, index + count);
    index += count;
  };
  while (index < text.length) {
    PLACEHOLDER.lastIndex = index;
    const placeholder = PLACEHOLDER.exec(text);
    if (placeholder) {
      const [written, name] = [placeholder[0], placeholder[1]!];
      const problem = placeholderProblem(stack, text, index, index + written.length);
      if (problem !== undefined) return refusedPlaceholder(written, name, problem);
      names.add(name);
      script += `"\${${placeholderVariable(name)}}"`;
      index += written.length;
      continue;
    }
    PLACEHOLDER.lastIndex = index + 1;
    if (text[index] === "$" && PLACEHOLDER.test(text)) {
      // `${{name}}` is the placeholder glued to a `$`, not a `${…}` expansion.
      copy(1);
      continue;
    }
    const frame = stack[stack.length - 1]!;
    if (frame.kind === "top" || frame.kind === "command-substitution") {
      const heredoc = pendingHeredocs.length > 0 && text[index] === "\n";
      if (heredoc) {
        copy(1);
        for (const { delimiter, stripTabs } of pendingHeredocs.splice(0)) {
          const body = heredocLength(text, index, delimiter, stripTabs);
          const inside = [...text.slice(index, index + body).matchAll(PLACEHOLDER_ANYWHERE)][0];
          if (inside) return refusedPlaceholder(inside[0], inside[1]!, "inside a here-document");
          copy(body);
        }
        continue;
      }
      const operator = readHeredocOperator(text, index);
      if (operator !== undefined) pendingHeredocs.push(operator.heredoc);
      copy(operator?.length ?? scanUnquoted(text, index, frame, stack));
    } else {
      copy(scanQuoted(text, index, frame, stack));
    }
  }
  if (stack.length > 1 || pendingHeredocs.length > 0) {
    // The shell would refuse it too, but only when the tool runs, and less clearly.
    return refused(
      `the command line has an unterminated ${describeFrame(stack[stack.length - 1]!)}`,
      "close the quote or expansion (the shell could not run this command)",
    );
  }
  return { ok: true, command: { kind: "shell", script, placeholders: [...names] } };
}

/** One step at the top level or inside `$(…)`: updates the stack, returns how much to copy. */
function scanUnquoted(
  text: string,
  index: number,
  frame: Extract<Frame, { testBrackets: boolean }>,
  stack: Frame[],
): number {
  const character = text[index]!;
  const atWordStart = index === 0 || WORD_BEFORE.test(text[index - 1]!);
  if (character === "\\") return 2;
  if (character === "#" && atWordStart) {
    const end = text.indexOf("\n", index);
    return (end === -1 ? text.length : end) - index;
  }
  if (character === "(" && text[index + 1] === "(" && atWordStart) {
    stack.push({ kind: "arithmetic", parens: 2 });
    return 2;
  }
  if (startsWord(text, index, "[[") || startsWord(text, index, "]]")) {
    frame.testBrackets = character === "[";
    return 2;
  }
  if (frame.kind === "command-substitution" && character === ")") {
    if (frame.parens === 0) stack.pop();
    else frame.parens--;
    return 1;
  }
  if (frame.kind === "command-substitution" && character === "(") frame.parens++;
  return openQuote(text, index, stack) ?? openExpansion(text, index, stack) ?? 1;
}

/** One step inside quotes or an expansion: updates the stack, returns how much to copy. */
function scanQuoted(text: string, index: number, frame: Frame, stack: Frame[]): number {
  const character = text[index]!;
  switch (frame.kind) {
    case "single-quote":
      if (character === "'") stack.pop();
      return 1;
    case "ansi-quote":
    case "backtick": {
      if (character === "\\") return 2;
      if (character === (frame.kind === "backtick" ? "`" : "'")) stack.pop();
      return 1;
    }
    case "double-quote":
      if (character === "\\") return 2;
      if (character === '"') {
        stack.pop();
        return 1;
      }
      return openExpansion(text, index, stack) ?? 1;
    case "parameter":
      if (character === "\\") return 2;
      if (character === "}") {
        stack.pop();
        return 1;
      }
      return openQuote(text, index, stack) ?? openExpansion(text, index, stack) ?? 1;
    case "arithmetic":
      if (character === "(") frame.parens++;
      if (character === ")" && --frame.parens === 0) stack.pop();
      return openQuote(text, index, stack) ?? openExpansion(text, index, stack) ?? 1;
    default:
      return 1;
  }
}

function describeFrame(frame: Frame): string {
  switch (frame.kind) {
    case "double-quote":
      return 'double quote (")';
    case "single-quote":
    case "ansi-quote":
      return "single quote (')";
    case "backtick":
      return "backtick (`)";
    case "parameter":
      return "${…} expansion";
    case "arithmetic":
      return "$((…)) expression";
    case "command-substitution":
      return "$(…) substitution";
    default:
      return "here-document";
  }
}

/** Why a placeholder at [start, end) cannot stand there, or undefined when it can. */
function placeholderProblem(
  stack: readonly Frame[],
  text: string,
  start: number,
  end: number,
): string | undefined {
  const innermost = stack[stack.length - 1]!;
  if (innermost.kind !== "top" && innermost.kind !== "command-substitution") return WHERE[innermost.kind];
  if (innermost.testBrackets) return "inside [[ … ]]";
  // Double quotes around an enclosing $(…) do not matter ("$(cat {{file}})" is fine); arithmetic,
  // ${…} or backticks around it would read its output again.
  for (const frame of stack) {
    if (frame.kind === "arithmetic" || frame.kind === "parameter" || frame.kind === "backtick") {
      return WHERE[frame.kind];
    }
  }
  const before = start === 0 ? " " : text[start - 1]!;
  const after = end >= text.length ? " " : text[end]!;
  if (!WORD_BEFORE.test(before) || !WORD_AFTER.test(after)) return "part of a larger word";
  return undefined;
}

/** Pushes a quote frame when one opens at `index`; returns the opener's length. */
function openQuote(text: string, index: number, stack: Frame[]): number | undefined {
  const character = text[index];
  if (character === "'") stack.push({ kind: "single-quote" });
  else if (character === '"') stack.push({ kind: "double-quote" });
  else if (character === "$" && text[index + 1] === "'") {
    stack.push({ kind: "ansi-quote" });
    return 2;
  } else return undefined;
  return 1;
}

/** Pushes an expansion frame when `$((`, `$(`, `${` or a backtick starts at `index`; returns its length. */
function openExpansion(text: string, index: number, stack: Frame[]): number | undefined {
  if (text[index] === "`") {
    stack.push({ kind: "backtick" });
    return 1;
  }
  if (text.startsWith("$((", index)) {
    stack.push({ kind: "arithmetic", parens: 2 });
    return 3;
  }
  if (text.startsWith("$(", index)) {
    stack.push({ kind: "command-substitution", parens: 0, testBrackets: false });
    return 2;
  }
  if (text.startsWith("${", index)) {
    stack.push({ kind: "parameter" });
    return 2;
  }
  return undefined;
}

function startsWord(text: string, index: number, word: string): boolean {
  if (!text.startsWith(word, index)) return false;
  const before = index === 0 ? " " : text[index - 1]!;
  const after = text[index + word.length] ?? " ";
  return /[\s;&|(]/.test(before) && /[\s;&|)]/.test(after);
}

/** A `<<WORD` or `<<-WORD` operator at `index` (not `<<<`): its delimiter and length. */
function readHeredocOperator(
  text: string,
  index: number,
): { heredoc: { delimiter: string; stripTabs: boolean }; length: number } | undefined {
  if (!text.startsWith("<<", index) || text[index + 2] === "<") return undefined;
  const match = /^<<(-?)[ \t]*((?:'[^']*'|"[^"]*"|\\.|[^\s;&|()<>])+)/.exec(text.slice(index));
  if (!match) return undefined;
  const delimiter = match[2]!.replace(/'([^']*)'|"([^"]*)"|\\(.)/g, (_all, a, b, c) => a ?? b ?? c ?? "");
  return { heredoc: { delimiter, stripTabs: match[1] === "-" }, length: match[0].length };
}

/** The length of a here-document's body starting at `index`, through its delimiter line. */
function heredocLength(text: string, index: number, delimiter: string, stripTabs: boolean): number {
  let position = index;
  while (position < text.length) {
    const end = text.indexOf("\n", position);
    const line = text.slice(position, end === -1 ? text.length : end);
    position = end === -1 ? text.length : end + 1;
    if ((stripTabs ? line.replace(/^\t+/, "") : line) === delimiter) break;
  }
  return position - index;
}

function refusedPlaceholder(written: string, name: string, where: string): { ok: false } & CommandProblem {
  const variable = placeholderVariable(name);
  const hint =
    where === "part of a larger word"
      ? `write ${written} as a word of its own, or use its variable in the word: "\${${variable}}"`
      : where === "inside a here-document"
        ? `read the value from the ${variable} environment variable, or from the JSON on stdin`
        : `write ${written} bare, outside quotes: cxc passes it as exactly one word (or use "\${${variable}}")`;
  return refused(`the placeholder ${written} is ${where}`, hint);
}

function refused(problem: string, hint: string): { ok: false } & CommandProblem {
  return { ok: false, problem, hint };
}
