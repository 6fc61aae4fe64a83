/**
 * One zod schema as the two things a tool's arguments need (docs/architecture.md, "Tool
 * arguments"): the JSON Schema a provider is shown, and the check of a call. Pure. Every built-in
 * tool (src/tools/arguments.ts) and the advisor's forced tools (compaction/core/advisor) derive
 * both from their one zod definition here.
 */
import * as z from "zod";

/** The JSON Schema of a zod schema as a provider takes it: no dialect line, no safe-integer caps. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: "input",
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  }) as Record<string, unknown>;
  return json;
}

/** `rules[0].keep_first`, or `arguments` for the object itself. */
export function describeIssuePath(path: readonly PropertyKey[]): string {
  const text = path
    .map((part, position) =>
      typeof part === "number" ? `[${part}]` : `${position === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
  return text === "" ? "arguments" : text;
}

/** The problems of a failed check, one line each, at most `limit`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], limit = 6): string[] {
  return issues.slice(0, limit).map((issue) => `${describeIssuePath(issue.path)}: ${issue.message}`);
}

/** A value checked by a schema: the typed value, or the schema's issues. */
export type SchemaCheck<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly z.core.$ZodIssue[] };

/** Checks `value` with `schema`. */
export function checkWith<T>(schema: z.ZodType<T>, value: unknown): SchemaCheck<T> {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: parsed.error.issues };
}

/**
 * A value built the first time it is asked for, then kept: a zod schema that only some runs check
 * against, so that loading its module (on every `q` turn, say) builds nothing.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

/** A tool a model is asked (or forced) to call, with its arguments' one definition. */
export interface ZodTool<T> {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema of the arguments, derived from `schema`. */
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly schema: z.ZodType<T>;
  /** A call's arguments checked by `schema`. */
  check(value: unknown): SchemaCheck<T>;
}

/**
 * A tool definition whose parameters and check come from the schema `build` makes, built (and its
 * JSON Schema derived) the first time either is needed: most runs never send the tool.
 */
export function zodTool<T>(name: string, description: string, build: () => z.ZodType<T>): ZodTool<T> {
  const schema = onFirstUse(build);
  const parameters = onFirstUse(() => jsonSchemaOf(schema()));
  return {
    name,
    description,
    get parameters() {
      return parameters();
    },
    get schema() {
      return schema();
    },
    check: (value) => checkWith(schema(), value),
  };
}
