/**
 * Terminal safety for untrusted text (model output, tool output, imported data). Pure.
 *
 * Removes escape sequences (CSI, OSC, DCS and other ESC-introduced sequences), C1 controls and
 * C0 controls other than tab and newline, so text shown in a terminal can never move the cursor,
 * retitle the window, write to the clipboard or hide what it says. Carriage returns are dropped
 * unless they end a line (`\r\n` → `\n`). The bidirectional embedding, override and isolate
 * controls (U+202A–U+202E, U+2066–U+2069) go too: they make a line display in another order than
 * it reads (a quoted command that shows as something else).
 */

// ESC [ … final byte; ESC ] … BEL or ST; ESC P/X/^/_ … ST; any other two-byte ESC sequence; and
// the same in their 8-bit forms (CSI U+009B, OSC U+009D, DCS/SOS/PM/APC U+0090/98/9E/9F, ST U+009C),
// so a stripped introducer leaves no parameters behind (`31m`).
const ESCAPE_SEQUENCES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u009c|\u001b\\)?|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u009c|\u001b\\)?/g;
// C0 controls except \t and \n, DEL, C1 controls (including the 8-bit CSI \u009b), and the
// bidirectional embedding, override and isolate controls.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

// Every escape sequence starts with ESC, and \r is a C0 control: text without any of these is safe.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export function sanitizeTerminalText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(ESCAPE_SEQUENCES, "").replace(CONTROL_CHARACTERS, "");
}

/** Untrusted text as one terminal-safe line (error messages): sanitized, line breaks folded. */
export function sanitizeLine(text: string): string {
  return sanitizeTerminalText(text)
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

const JSON_UNSAFE = /[\u007f-\u009f]/g;

/**
 * JSON text that is safe to print: `JSON.stringify` escapes C0 controls (ESC among them) but
 * leaves DEL and the C1 controls (U+0080–U+009F, which include the one-byte CSI U+009B and OSC
 * U+009D) raw, and a terminal may act on those. They are written as `\u00XX` escapes instead; the
 * parsed value is the same.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  return escapeJsonControls(JSON.stringify(value, null, indent));
}

/** The same escaping for JSON text already written (such characters only occur inside strings). */
export function escapeJsonControls(json: string): string {
  return json.replace(
    JSON_UNSAFE,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
