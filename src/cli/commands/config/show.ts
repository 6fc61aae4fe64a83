/**
 * `cxc config show`: the effective configuration, one leaf per line with where it came from (a
 * file path, `-c`, `env CXC_…`, or `default`). With `--format json`: `{config, leaves, files}`.
 */
import type { Command } from "commander";
import { CliContext } from "../../context.js";
import { loadConfig, userConfigPath, workspaceConfigPath } from "../../config.js";
import { listConfigLeaves, lookupConfig } from "../../../core/config.js";
import { advisorDefaultLeaves } from "../../../compaction/core/advisor/advisor.js";
import { SUMMARY_FALLBACK_KEY } from "../../../compaction/core/summary/summarizer.js";
import { describeStoreLocation } from "../../render/where.js";
import { existsSync } from "node:fs";

/** Defines the command on its entry in the registry (index.ts): flags, help and handler. */
export function define(entry: Command): void {
  entry
    .description("print the effective configuration and where each value came from")
    .action(async (_options: unknown, command: Command) => {
      const context = CliContext.from(command);
      const format = context.format();
      const effective = loadConfig({ cwd: context.cwd, env: context.env, overlays: context.options.cfg });
      for (const warning of effective.warnings) context.warn(warning);
      // Defaults that live in their readers, not in a layer; listed where nothing sets them.
      const set = (key: string) => lookupConfig(effective.values, key) !== undefined;
      const readerDefaults = [
        ...advisorDefaultLeaves(effective.values, context.env),
        { key: SUMMARY_FALLBACK_KEY, value: null, note: "abort for a model you name, else digest" },
      ];
      const leaves: { key: string; value: unknown; origin: string; note?: string }[] = [
        ...listConfigLeaves(effective),
        ...readerDefaults.filter((leaf) => !set(leaf.key)).map((leaf) => ({ ...leaf, origin: "default" })),
      ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const userFile = userConfigPath(context.env);
      const workspaceFile = workspaceConfigPath(context.cwd);
      const location = context.storeLocation;
      if (format === "json") {
        context.outJson({
          config: effective.values,
          leaves,
          files: effective.files,
          user_file: userFile,
          workspace_file: workspaceFile ?? null,
          store: { root: location.root, kind: location.kind, origin: location.origin },
        });
        return;
      }
      // Where the values come from and where conversations go, before the values.
      const fileLine = (label: string, path: string, origin?: string): string => {
        const notes = [origin, existsSync(path) ? undefined : "absent"].filter((note) => note !== undefined);
        return `# ${label}: ${path}${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`;
      };
      const header = [
        fileLine(
          "user file",
          userFile,
          context.env.XDG_CONFIG_HOME?.startsWith("/") ? "from XDG_CONFIG_HOME" : undefined,
        ),
        ...(workspaceFile === undefined ? [] : [fileLine("workspace file", workspaceFile)]),
        `# store: ${describeStoreLocation(location)}`,
      ];
      const width = Math.min(48, Math.max(0, ...leaves.map((leaf) => leaf.key.length)));
      const lines = leaves.map(
        (leaf) =>
          `${leaf.key.padEnd(width)} = ${leaf.note === undefined ? JSON.stringify(leaf.value) : `(${leaf.note})`}  # ${leaf.origin}`,
      );
      // Values come from files and the environment the user controls, but may hold anything.
      context.outUntrusted([...header, ...lines].join("\n"));
    });
}
