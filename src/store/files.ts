/**
 * Small file primitives the store is built on: atomic replace and durable append.
 *
 * Atomic replace writes a temporary file beside the target, fsyncs it, renames it over the target
 * and fsyncs the directory, so a reader sees the old bytes or the new bytes, never a mixture.
 * Append writes all its bytes with one `write` and fsyncs before returning, so an event reported
 * as written survives a crash of the process.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let temporaryCounter = 0;

/** Replaces `path` with `content` (text is written as UTF-8; bytes are written exactly). */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  temporaryCounter += 1;
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${temporaryCounter}.tmp`);
  const descriptor = openSync(temporary, "w", 0o644);
  try {
    writeAll(descriptor, typeof content === "string" ? Buffer.from(content, "utf8") : content);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // The temporary file is already gone; the original error is the one to report.
    }
    throw error;
  }
  syncDirectory(dirname(path));
}

export function appendDurably(path: string, content: string): void {
  const descriptor = openSync(path, "a", 0o644);
  try {
    writeAll(descriptor, Buffer.from(content, "utf8"));
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

export function syncDirectory(path: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    fsyncSync(descriptor);
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

function writeAll(descriptor: number, buffer: Uint8Array): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(descriptor, buffer, offset, buffer.length - offset);
}
