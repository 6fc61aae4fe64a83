/**
 * Id sources for the shell (core receives ids as parameters).
 *
 * Event ids are ULIDs from a monotonic factory: unique, and sortable in creation order even within
 * one millisecond. Conversation ids are shorter: ten Crockford base32 characters of creation time
 * (milliseconds) followed by three random ones, lowercase, e.g. `01jtq8m3vk7xw`. They sort by
 * creation time, and any unique prefix is accepted on the command line.
 *
 * `node:crypto` and ulid are loaded on the first id, not with the store: loading them costs a few
 * milliseconds, and most commands only read (ulid would also reach for Web Crypto by default; it
 * is handed node:crypto's random bytes instead).
 */
import { createRequire } from "node:module";
import type { ULIDFactory } from "ulid";
import { nodeCrypto } from "./lazy-crypto.js";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

const load = createRequire(import.meta.url);
let nextUlid: ULIDFactory | undefined;

function random(size: number): Buffer {
  return nodeCrypto().randomBytes(size);
}

/** A new event id (ULID). */
export function newEventId(now: number = Date.now()): string {
  nextUlid ??= (load("ulid") as typeof import("ulid")).monotonicFactory(() => random(1)[0]! / 256);
  return nextUlid(now);
}

/** A new conversation id: 10 time characters and 3 random ones. */
export function newConversationId(now: number = Date.now()): string {
  let time = "";
  let value = now;
  for (let position = 0; position < 10; position++) {
    time = CROCKFORD[value % 32] + time;
    value = Math.floor(value / 32);
  }
  let suffix = "";
  for (const byte of random(3)) suffix += CROCKFORD[byte % 32];
  return time + suffix;
}

/** Ids the store accepts as directory names. */
export const CONVERSATION_ID_PATTERN = /^[0-9a-z][0-9a-z_-]{2,63}$/;

/** The current time as an RFC 3339 UTC timestamp with millisecond precision. */
export function timestampNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}
