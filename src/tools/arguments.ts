/**
 * A tool's arguments as one object: the JSON Schema the model is shown, and the check a call's
 * arguments must pass, from one source so the two cannot drift. Built-in tools derive the JSON
 * Schema from the zod schema that validates their calls (`zodArguments`); local command tools give a
 * JSON Schema in configuration, which ajv checks (`jsonSchemaArguments`, loaded on first use).
 */
import type { ValidateFunction } from "ajv";
import * as z from "zod";

/** The outcome of checking a call's arguments. */
export type ArgumentsCheck =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly problems: readonly string[];
      /** Set when the schema itself cannot be used (a local tool's, as configured). */
      readonly invalidSchema?: string;
    };

/** A tool's arguments (see the module comment). */
export interface ToolArguments {
  /** The JSON Schema of the arguments object, as sent to the model. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Checks a call's arguments: the arguments to run with (defaults filled in), or the problems. */
  check(argumentsObject: Readonly<Record<string, unknown>>): Promise<ArgumentsCheck>;
}

/** `rules[0].keep_first`, or `arguments` for the object itself. */
function describePath(path: readonly PropertyKey[]): string {
  const text = path
    .map((part, position) =>
      typeof part === "number" ? `[${part}]` : `${position === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
  return text === "" ? "arguments" : text;
}

/** The problems of a failed zod check, one line each, at most `limit`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], limit = 6): string[] {
  return issues.slice(0, limit).map((issue) => `${describePath(issue.path)}: ${issue.message}`);
}

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

/** A built-in tool's arguments, validated by `schema` (see the module comment). */
export function zodArguments(schema: z.ZodType<Record<string, unknown>>): ToolArguments {
  return {
    schema: jsonSchemaOf(schema),
    check: async (argumentsObject) => {
      const parsed = schema.safeParse(argumentsObject);
      return parsed.success
        ? { ok: true, value: parsed.data }
        : { ok: false, problems: describeIssues(parsed.error.issues) };
    },
  };
}

/** The schema of a tool that takes no arguments. */
export const NO_ARGUMENTS: ToolArguments = zodArguments(z.strictObject({}));

/**
 * A local command tool's arguments: the JSON Schema of its configuration, checked by ajv, compiled
 * on the first call (ajv is an island, loaded only then). A schema ajv cannot compile fails every
 * call with `invalidSchema`.
 */
export function jsonSchemaArguments(schema: Readonly<Record<string, unknown>>): ToolArguments {
  let validate: Promise<ValidateFunction> | undefined;
  return {
    schema,
    check: async (argumentsObject) => {
      let compiled: ValidateFunction;
      try {
        validate ??= compileSchema(schema);
        compiled = await validate;
      } catch (error) {
        validate = undefined;
        return { ok: false, problems: [], invalidSchema: (error as Error).message };
      }
      // useDefaults fills in schema defaults, so validate a copy.
      const value = structuredClone(argumentsObject) as Record<string, unknown>;
      if (compiled(value)) return { ok: true, value };
      const problems = (compiled.errors ?? []).map(
        (error) =>
          `${error.instancePath === "" ? "arguments" : error.instancePath} ${error.message ?? "invalid"}`,
      );
      return { ok: false, problems };
    },
  };
}

async function compileSchema(schema: Readonly<Record<string, unknown>>): Promise<ValidateFunction> {
  const { Ajv } = await import("ajv");
  return new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(schema);
}
