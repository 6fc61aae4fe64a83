/**
 * Opening `$VISUAL` / `$EDITOR` on a temporary file and reading back what the user saved.
 *
 * The editor gets the terminal (stdio inherited). The command is run through the shell so values
 * like `code --wait` or `vim -u NONE` work, with the file path passed as a separate, quoted argument.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadExeca } from "./island-loaders.js";

/** The editor command from the environment, if one is set. */
export function editorCommand(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.VISUAL || env.EDITOR;
  return value && value.trim().length > 0 ? value : undefined;
}

/**
 * Lets the user edit `initial` in their editor; resolves with the saved text, or undefined when the
 * editor failed (non-zero exit).
 */
export async function editText(
  initial: string,
  options: { env: NodeJS.ProcessEnv; fileName: string },
): Promise<string | undefined> {
  const command = editorCommand(options.env);
  if (command === undefined) return undefined;
  const directory = mkdtempSync(join(tmpdir(), "cxc-edit-"));
  const path = join(directory, options.fileName);
  try {
    writeFileSync(path, initial);
    const { execa } = await loadExeca();
    const result = await execa(`${command} '${path.replace(/'/g, `'\\''`)}'`, {
      shell: true,
      stdio: "inherit",
      reject: false,
    });
    if (result.exitCode !== 0) return undefined;
    return readFileSync(path, "utf8");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
