/**
 * Flag values as clap (jp's parser) reads them, for commander: `-k=SPEC`, `-t=omit`, `-m=ID` and
 * `-k=` carry their value after `=`, which commander keeps (`=SPEC`). No value of these flags
 * starts with `=`, so one leading `=` is the separator. Light on purpose: commands are registered
 * at start-up.
 */

/** The value without the `=` of an attached short flag. */
export function attachedValue(value: string): string {
  return value.startsWith("=") ? value.slice(1) : value;
}

/** A repeatable flag's values, each read as `attachedValue` does. */
export function collectAttached(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), attachedValue(value)];
}
