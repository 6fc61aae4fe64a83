/**
 * Writing a stored conversation in another tool's format.
 *
 * - `jp`: a jp conversation directory (`<deciseconds>-<slug>/` with `metadata.json`,
 *   `base_config.json` when the conversation has one, `events.json`), each file written atomically;
 *   an existing directory of that name is never overwritten.
 * - `openai` / `anthropic`: a request body holding the raw events (no projection).
 * - `cxc`: a JSON document with the conversation's metadata and every event, which
 *   `cxc conversation import` reads back with the same ids.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Compaction, serializeEvent } from "../core/conversation/events.js";
import { exportAnthropicMessages } from "../core/interop/anthropic-messages.js";
import { exportJpConversation, renderJpJson } from "../core/interop/jp-export.js";
import { exportOpenAiMessages } from "../core/interop/openai-messages.js";
import { CxcError } from "../errors.js";
import { writeFileAtomic } from "./files.js";
import { CXC_EXPORT_MARKER } from "./import.js";
import type { LoadedConversation } from "./port.js";

/** The formats `cxc conversation export --to` writes. */
export const EXPORT_FORMATS = ["jp", "openai", "anthropic", "cxc"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The text of a single-document export (every format but jp). */
export function renderExport(
  conversation: LoadedConversation,
  format: Exclude<ExportFormat, "jp">,
  options: { model?: string } = {},
): string {
  const requestOptions = options.model ? { model: options.model } : {};
  switch (format) {
    case "openai":
      return `${JSON.stringify(exportOpenAiMessages(conversation.events, requestOptions), null, 2)}\n`;
    case "anthropic":
      return `${JSON.stringify(exportAnthropicMessages(conversation.events, requestOptions), null, 2)}\n`;
    case "cxc": {
      const document = {
        cxc: CXC_EXPORT_MARKER,
        version: 1,
        archived: conversation.archived,
        conversation: conversation.meta,
        events: conversation.events.map(serializeEvent),
      };
      return `${JSON.stringify(document, null, 2)}\n`;
    }
  }
}

/** What a jp export wrote: its directory, and the compactions jp cannot hold (left out). */
export interface JpExport {
  readonly directory: string;
  readonly leftOut: readonly Compaction[];
}

/** Writes a jp conversation directory under `parent`. */
export function writeJpExport(conversation: LoadedConversation, parent: string): JpExport {
  const result = exportJpConversation({
    createdAt: conversation.meta.created_at,
    meta: conversation.meta,
    events: conversation.events,
  });
  if (!result.ok) throw new CxcError("internal", `conversation ${conversation.meta.id}: ${result.message}`);
  const files = result.value;
  const directory = join(parent, files.directoryName);
  if (existsSync(directory)) {
    throw new CxcError("usage", `${directory} already exists`, {
      hint: "export into another directory with --output, or move the existing one away",
    });
  }
  try {
    mkdirSync(directory, { recursive: true });
    // jp writes the files in this order, so a reader never sees events without their metadata.
    writeFileAtomic(join(directory, "metadata.json"), renderJpJson(files.metadata));
    if (files.baseConfig !== undefined) {
      writeFileAtomic(join(directory, "base_config.json"), renderJpJson(files.baseConfig));
    }
    writeFileAtomic(join(directory, "events.json"), renderJpJson(files.events));
  } catch (error) {
    throw new CxcError("store-unreadable", `cannot write ${directory}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { directory, leftOut: files.leftOut };
}

/** Writes a text export to a file, atomically. */
export function writeExportFile(path: string, text: string): void {
  try {
    writeFileAtomic(path, text);
  } catch (error) {
    throw new CxcError("store-unreadable", `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
