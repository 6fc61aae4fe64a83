/**
 * The files a shell command certainly reads or changes, for the range facts (range-facts.ts).
 * Pure. Only what the words of the command say for sure counts:
 *
 * - `cat`, `head`, `tail`, `less`, `more`, `wc`, `nl`, `bat`, and `sed` without `-i`, read the
 *   files they are given; `< file` reads it;
 * - `> file`, `>> file`, `tee file`, `touch file`, `rm file`, `sed -i … file`, `mv a b` (both)
 *   and `cp a b` (the target; the source is read) change them;
 * - a word with an expansion or a pattern in it (`$HOME`, `` `x` ``, `*.ts`, `{a,b}`), an
 *   interpreter's script (`python x.py` runs it, it does not read it as data), and everything
 *   after a `cd` (the directory changed) are left out;
 * - a here-document's body is data, not commands; a Codex patch (`*** Update File: …`), in an
 *   `apply_patch` command or a call's input, names the files it changes.
 *
 * Paths come out as written (the caller normalises them).
 */

/** What a command reads and changes, as written, in order, each at most once. */
export interface CommandFiles {
  readonly read: readonly string[];
  readonly modified: readonly string[];
}

const READERS = new Set(["cat", "head", "tail", "less", "more", "wc", "nl", "bat"]);
/** Options of the readers that take a value (`head -n 20`, `tail -c 100`). */
const VALUE_OPTIONS = new Set(["-n", "-c", "--lines", "--bytes"]);
const UNCERTAIN = /[$`*?[\]{}]/;
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/gm;
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g;

/** The files a Codex patch (`*** Begin Patch` … `*** End Patch`) adds, updates, deletes or moves to. */
export function patchFiles(patch: string): string[] {
  return unique([...patch.matchAll(PATCH_FILE)].map((match) => match[1]!));
}

/** The files `command` certainly reads and changes; see the module comment. */
export function commandFiles(command: string): CommandFiles {
  const read: string[] = [];
  const modified: string[] = [...patchFiles(command)];
  for (const words of simpleCommands(withoutHeredocBodies(command))) {
    if (words[0] === "cd" || words[0] === "pushd") break;
    readSimpleCommand(words, read, modified);
  }
  return { read: unique(read), modified: unique(modified) };
}

/** A Codex `shell` call's argument list as one script: `bash -lc "<script>"` is the script. */
export function commandText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value) || !value.every((word) => typeof word === "string")) return undefined;
  const words = value as string[];
  const shell = /^(?:\/\S*\/)?(?:ba|z|da)?sh$/.test(words[0] ?? "");
  if (shell && words.length === 3 && /^-\w*c$/.test(words[1]!)) return words[2];
  return words
    .map((word) => (/^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`))
    .join(" ");
}

function readSimpleCommand(words: readonly string[], read: string[], modified: string[]): void {
  const operands: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word.startsWith("<<")) {
      // A here-document or here-string: its delimiter or text is not a file.
      if (/^<<[-<]?$/.test(word)) index += 1;
      continue;
    }
    const redirect = /^(\d?)(>>?|<)(.*)$/.exec(word);
    if (redirect !== null && redirect[2] !== undefined) {
      const target = redirect[3] !== "" ? redirect[3]! : words[++index];
      if (target === undefined || target.startsWith("&") || target === "/dev/null") continue;
      if (UNCERTAIN.test(target)) continue;
      (redirect[2] === "<" ? read : modified).push(target);
      continue;
    }
    operands.push(word);
  }
  const [name, ...rest] = operands;
  if (name === undefined) return;
  const program = name.split("/").pop()!;
  const files = (skipValues: boolean): string[] => {
    const found: string[] = [];
    for (let index = 0; index < rest.length; index++) {
      const word = rest[index]!;
      if (word === "--") continue;
      if (word.startsWith("-")) {
        if (skipValues && VALUE_OPTIONS.has(word)) index += 1;
        continue;
      }
      if (!UNCERTAIN.test(word)) found.push(word);
    }
    return found;
  };
  if (READERS.has(program)) read.push(...files(true));
  else if (program === "tee" || program === "touch" || program === "rm") modified.push(...files(false));
  else if (program === "mv") modified.push(...files(false));
  else if (program === "cp") {
    const operandsOfCp = files(false);
    const target = operandsOfCp.pop();
    read.push(...operandsOfCp);
    if (target !== undefined) modified.push(target);
  } else if (program === "sed") readSed(rest, read, modified);
}

/** `sed [-n] [-i[SUFFIX]] [-e SCRIPT]… [SCRIPT] FILE…`: the files, read or (with -i) changed. */
function readSed(words: readonly string[], read: string[], modified: string[]): void {
  let inPlace = false;
  let script = false;
  const files: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === "-e" || word === "--expression") {
      script = true;
      index += 1;
    } else if (word === "-i" || word.startsWith("-i") || word === "--in-place") inPlace = true;
    else if (word.startsWith("-")) continue;
    else if (!script) script = true;
    else if (!UNCERTAIN.test(word)) files.push(word);
  }
  (inPlace ? modified : read).push(...files);
}

/** The command without the bodies of its here-documents (they are data). */
function withoutHeredocBodies(command: string): string {
  const lines = command.split("\n");
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    kept.push(line);
    const delimiters = [...line.matchAll(HEREDOC)].map((match) => match[2]!);
    for (const delimiter of delimiters) {
      while (index + 1 < lines.length && lines[index + 1]!.trim() !== delimiter) index += 1;
      index += 1;
    }
  }
  return kept.join("\n");
}

/**
 * The simple commands of a script as words: split at `;`, `&&`, `||`, `|`, `&` and newlines
 * outside quotes; quotes and backslashes removed. A word that was quoted keeps none of its
 * special meaning, but `UNCERTAIN` characters in it still make it uncertain (the caller skips it).
 */
function simpleCommands(script: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < script.length; index++) {
    const character = script[index]!;
    if (character === "'" || character === '"') {
      const close = script.indexOf(character, index + 1);
      if (close < 0) return commands; // An unclosed quote: nothing after it is certain.
      word += script.slice(index + 1, close);
      inWord = true;
      index = close;
    } else if (character === "\\" && index + 1 < script.length) {
      word += script[index + 1];
      inWord = true;
      index += 1;
    } else if (character === "#" && !inWord) {
      const newline = script.indexOf("\n", index);
      index = newline < 0 ? script.length : newline - 1;
    } else if (/[;&|\n]/.test(character)) endCommand();
    else if (/\s/.test(character)) endWord();
    else if ((character === ">" || character === "<") && inWord && !/^[\d<>]*$/.test(word)) {
      // `a>b`: the redirection starts a word of its own.
      endWord();
      word = character;
      inWord = true;
    } else {
      word += character;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
