/**
 * The result type of the core's parsers: a value, or one user-facing message saying what is wrong.
 */

/** A success value or a user-facing error message. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
