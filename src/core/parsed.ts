/**
 * The result type of the core's parsers and converters (the readers and writers of other agents'
 * formats too): a value, or one user-facing message saying what is wrong (and where).
 */

/** A success value or a user-facing error message. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
