/**
 * Terminal safety for untrusted text (model output, tool output, imported data). Pure.
 *
 * Removes escape sequences (CSI, OSC, DCS and other ESC-introduced sequences), C1 controls and
 * C0 controls other than tab and newline, so text shown in a terminal can never move the cursor,
 * retitle the window, write to the clipboard or hide what it says. Carriage returns are dropped
 * unless they end a line (`\r\n` → `\n`).
 */

// ESC [ … final byte; ESC ] … BEL or ST; ESC P/X/^/_ … ST; any other two-byte ESC sequence.
const ESCAPE_SEQUENCES =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[@-Z\\-_]?/g;
// C0 controls except \t and \n, DEL, and C1 controls (including the 8-bit CSI \u009b).
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Every escape sequence starts with ESC, and \r is a C0 control: text without any of these is safe.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

export function sanitizeTerminalText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(ESCAPE_SEQUENCES, "").replace(CONTROL_CHARACTERS, "");
}
