/**
 * cxc's plugin file in opencode's plugin folder, for `cxc hooks install|uninstall|status --agent
 * opencode` (docs/inside-agents.md). opencode loads every `*.js` of `plugins/` in its config
 * folders (`$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`; a project's `.opencode/`), so
 * cxc's entry is one file of its own, `cxc.js`, never an edit of the user's `opencode.json`:
 *
 *     // cxc's plugin for opencode: written by `cxc hooks install --agent opencode`, removed by …
 *     import { CxcPlugin as cxc } from "file:///…/cxc/dist/opencode/plugin.js";
 *     export const CxcPlugin = (input) => cxc(input, { node: "/…/node", cxc: "/…/cxc/bin/cxc.cjs" });
 *
 * It names this Node and this cxc by absolute paths, as the hook commands do. A file of that exact
 * form is cxc's (installing again after moving cxc rewrites it); any other `cxc.js` is the user's
 * and is refused, never overwritten or removed. Written through settings-file.ts (whole or not at
 * all, beside the file, renamed over it).
 */
import { existsSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { SettingsEdit } from "../../core/interop/agent-hooks.js";

/** Which folder: the user's, or a project's (as `agent-settings.ts`'s `HookScope`). */
type PluginScope =
  | { readonly kind: "user" }
  | { readonly kind: "project" | "local"; readonly directory: string };

type Environment = Readonly<Record<string, string | undefined>>;

/** The first line of cxc's plugin file. */
const MARK =
  "// cxc's plugin for opencode: written by `cxc hooks install --agent opencode`, removed by `cxc hooks uninstall --agent opencode`.";

/** The exact form of cxc's file: the plugin module, the Node, the bin. */
const FORM = new RegExp(
  `^${MARK.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n` +
    'import \\{ CxcPlugin as cxc \\} from ("(?:[^"\\\\\\n]|\\\\.)*");\\n' +
    'export const CxcPlugin = \\(input\\) => cxc\\(input, \\{ node: ("(?:[^"\\\\\\n]|\\\\.)*"), cxc: ("(?:[^"\\\\\\n]|\\\\.)*") \\}\\);\\n$',
);

/** opencode's global config folder. */
function configDirectory(env: Environment): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(
    xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), ".config"),
    "opencode",
  );
}

/** Where cxc's plugin file goes for `scope`. */
export function opencodePluginPath(scope: PluginScope, env: Environment, cwd: string): string {
  if (scope.kind === "user") return join(configDirectory(env), "plugins", "cxc.js");
  return join(resolve(cwd, scope.directory), ".opencode", "plugins", "cxc.js");
}

/** cxc's plugin file for this Node and this cxc's bin (`…/bin/cxc.cjs`). */
export function opencodePluginText(node: string, bin: string): string {
  const module = pathToFileURL(resolve(dirname(bin), "..", "dist", "opencode", "plugin.js")).href;
  return [
    MARK,
    `import { CxcPlugin as cxc } from ${JSON.stringify(module)};`,
    `export const CxcPlugin = (input) => cxc(input, { node: ${JSON.stringify(node)}, cxc: ${JSON.stringify(bin)} });`,
    "",
  ].join("\n");
}

/** The paths cxc's plugin file names (the module, the Node, the bin), or undefined for a file of the user's. */
export function opencodePluginPaths(text: string): string[] | undefined {
  const match = FORM.exec(text);
  if (match === null) return undefined;
  try {
    const [module, node, bin] = [match[1]!, match[2]!, match[3]!].map(
      (literal) => JSON.parse(literal) as string,
    );
    return [new URL(module!).pathname, node!, bin!].filter((path) => isAbsolute(path));
  } catch {
    return undefined;
  }
}

/** The install as an edit of the file's text (undefined: no file). */
export function installPluginEdit(text: string | undefined, wanted: string, label: string): SettingsEdit {
  if (text === wanted) return { ok: true, text, changed: false, events: [] };
  if (text !== undefined && opencodePluginPaths(text) === undefined) {
    return {
      ok: false,
      error: `${label} is not cxc's plugin file (it holds something else, yours)`,
    };
  }
  return { ok: true, text: wanted, changed: true, events: ["plugin"] };
}

/**
 * Removes cxc's plugin file, and the `plugins/` folder (and a project's `.opencode/`) it leaves
 * empty. True when there was one; a file of the user's there is an error.
 */
export function removePluginFile(
  path: string,
  text: string | undefined,
): { removed: boolean; error?: string } {
  if (text === undefined) return { removed: false };
  if (opencodePluginPaths(text) === undefined) {
    return { removed: false, error: `${path} is not cxc's plugin file (it holds something else, yours)` };
  }
  unlinkSync(path);
  for (const directory of [dirname(path), dirname(dirname(path))]) {
    if (!directory.endsWith("plugins") && !directory.endsWith(".opencode")) break;
    try {
      if (existsSync(directory) && readdirSync(directory).length === 0) rmdirSync(directory);
      else break;
    } catch {
      break;
    }
  }
  return { removed: true };
}
