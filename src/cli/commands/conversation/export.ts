/**
 * `cxc conversation export [ID] [--to jp|openai|anthropic|cxc] [--output PATH] [--model M]`:
 * writes a conversation for another tool. `jp` writes a jp conversation directory into PATH (default:
 * the current directory); the others write one document to PATH or standard output.
 */
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { escapeJsonControls } from "../../../core/sanitize.js";
import { CliContext } from "../../context.js";

interface ExportOptions {
  to: "jp" | "openai" | "anthropic" | "cxc";
  output?: string;
  model?: string;
}

export function registerExport(conversation: Command): void {
  conversation
    .command("export")
    .description("export a conversation as a jp directory, a request body, or a cxc document")
    .argument("[ID]", "conversation id or unique prefix (default: the active one)")
    .addOption(
      new Option("--to <FORMAT>", "the format to write")
        .choices(["jp", "openai", "anthropic", "cxc"])
        .default("cxc"),
    )
    .option("--output <PATH>", "where to write (jp: the parent directory; others: a file)")
    .option("--model <MODEL>", "a model name to put in an openai or anthropic request body")
    .action(async (idArgument: string | undefined, options: ExportOptions, command: Command) => {
      const context = CliContext.from(command);
      context.format();
      const { loadInterop } = await import("../../../store/index.js");
      const { renderExport, writeExportFile, writeJpExport } = await loadInterop();
      const id = context.store.resolveTarget(idArgument);
      const loaded = context.store.load(id);
      for (const warning of loaded.warnings) context.warn(warning);
      if (options.to === "jp") {
        const { directory, leftOut } = writeJpExport(loaded, resolve(context.cwd, options.output ?? "."));
        const { describeCompactionRange } = await import("../../../core/labels.js");
        const ranges = leftOut.map(describeCompactionRange);
        if (context.json) context.outJson({ id, format: "jp", path: directory, left_out: ranges });
        else context.out(`Exported ${id} to ${directory}`);
        if (ranges.length > 0) {
          const what =
            ranges.length === 1
              ? "1 compaction inside a turn was"
              : `${ranges.length} compactions inside a turn were`;
          context.warn(
            `jp has no cycles, so ${what} left out (${ranges.join("; ")}); jp shows those cycles uncompacted`,
          );
        }
        return;
      }
      const text = renderExport(loaded, options.to, options.model ? { model: options.model } : {});
      if (options.output === undefined || options.output === "-") {
        process.stdout.write(escapeJsonControls(text));
        return;
      }
      const path = resolve(context.cwd, options.output);
      writeExportFile(path, text);
      if (context.json) context.outJson({ id, format: options.to, path });
      else context.info(`Exported ${id} to ${path}`);
    });
}
