/**
 * The event schemas' verdicts by shape (src/core/conversation/events.ts, `checkKnownEvent`): for
 * the kinds judged by shape, any two records of one shape get the same verdict from the schema and
 * the same output, so the verdict the schema gave the first is the verdict for every later one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkKnownEvent,
  eventParseOptions,
  eventSchemasByKind,
  forgetEventShapes,
  isCanonicalEvent,
  type KnownEventType,
  parseEvent,
  SHAPE_DECIDED_KINDS,
} from "../../src/core/conversation/events.js";

const kinds = [...SHAPE_DECIDED_KINDS] as KnownEventType[];

interface Def {
  type: string;
  innerType?: { _zod: { def: Def } };
  keyType?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
  catchall?: { _zod: { def: Def } };
  shape?: Record<string, { _zod: { def: Def } }>;
  checks?: { _zod: { def: { check: string; minimum?: number } } }[];
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Why a field's schema may judge a value by more than its class (empty or not, a plain record…). */
function notByClass(def: Def): string | undefined {
  if (def.type === "optional") return notByClass(def.innerType!._zod.def);
  const checks = def.checks ?? [];
  switch (def.type) {
    case "boolean":
    case "unknown":
      return checks.length === 0 ? undefined : "checked";
    case "string":
      return checks.every(
        (check) => check._zod.def.check === "min_length" && (check._zod.def.minimum ?? 0) <= 1,
      )
        ? undefined
        : "a string with checks beyond not empty";
    case "record":
      return defOf(def.keyType).type === "string" &&
        (defOf(def.keyType).checks ?? []).length === 0 &&
        defOf(def.valueType).type === "unknown"
        ? undefined
        : "a record of more than anything";
    case "array":
      // Arrays are never shapes: the schema judges each (`requires`).
      return undefined;
    default:
      return def.type;
  }
}

describe("the kinds judged by shape", () => {
  it("have only fields whose schema judges a value by its class", () => {
    for (const kind of kinds) {
      const def = defOf(eventSchemasByKind()[kind]);
      expect(def.type, kind).toBe("object");
      expect(defOf(def.catchall).type, `${kind} keeps unknown fields`).toBe("unknown");
      for (const [key, field] of Object.entries(def.shape!)) {
        if (key === "type") continue;
        expect(notByClass(field._zod.def), `${kind}.${key}`).toBeUndefined();
      }
      // A check across fields: only chat_response's "exactly one of message, reasoning or data",
      // which asks which are there (the property below checks it).
      expect(def.checks ?? [], kind).toHaveLength(kind === "chat_response" ? 1 : 0);
    }
  });
});

/** A value's class, as a shape names it. */
type ValueClass = "empty" | "string" | "boolean" | "undefined" | "null" | "record" | "other";

const valuesOf = (valueClass: ValueClass): fc.Arbitrary<unknown> => {
  switch (valueClass) {
    case "empty":
      return fc.constant("");
    case "string":
      return fc.string({ minLength: 1, maxLength: 6 });
    case "boolean":
      return fc.boolean();
    case "undefined":
      return fc.constant(undefined);
    case "null":
      return fc.constant(null);
    case "record":
      return fc.oneof(
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        fc.constant(JSON.parse('{"constructor": "x", "a": 1}') as unknown),
      );
    case "other":
      return fc.oneof(
        fc.integer(),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
        fc.constant(["native-summary"]),
        fc.constant(JSON.parse('{"__proto__": {"a": 1}}') as unknown),
        fc.constant(Object.create(null) as unknown),
        fc.constant(new Date(0)),
      );
  }
};

const CLASSES: ValueClass[] = ["empty", "string", "boolean", "undefined", "null", "record", "other"];

/** Any value of any class, the classes a valid event has more often. */
const anyValue = fc.oneof(
  ...CLASSES.map((valueClass) => ({
    arbitrary: valuesOf(valueClass),
    weight: valueClass === "string" ? 6 : valueClass === "record" || valueClass === "boolean" ? 3 : 1,
  })),
);

/**
 * Records of one kind with the same fields in the same order (some of the kind's own, a few others,
 * `type` anywhere), each value of any class: many share a shape, the first of a shape teaches it and
 * the others are judged by it.
 */
const records = fc.constantFrom(...kinds).chain((kind) => {
  const own = Object.keys(defOf(eventSchemasByKind()[kind]).shape!).filter(
    (key) => !["type", "id", "ts"].includes(key),
  );
  const names = [...own, "extra", "constructor", "__proto__"];
  return fc
    .tuple(fc.shuffledSubarray(names, { maxLength: 4 }), fc.nat(), fc.nat(), fc.nat())
    .chain(([others, typeAt, idAt, tsAt]) => {
      // `id` and `ts` nearly always (a record without them is refused whatever else it holds).
      const keys = [...others];
      keys.splice(idAt % (keys.length + 1), 0, "id");
      keys.splice(tsAt % (keys.length + 1), 0, "ts");
      const order = [...keys];
      order.splice(typeAt % (order.length + 1), 0, "type");
      const record = fc.tuple(...keys.map(() => anyValue)).map((values) => {
        const built: Record<string, unknown> = {};
        for (const key of order) {
          // Each a field of its own, `__proto__` too (as JSON.parse makes it).
          const value = key === "type" ? kind : values[keys.indexOf(key)];
          Object.defineProperty(built, key, { value, enumerable: true, writable: true, configurable: true });
        }
        return built;
      });
      return fc.tuple(fc.constant(kind), fc.array(record, { minLength: 1, maxLength: 16 }));
    });
});

const bySchema = (kind: KnownEventType, record: Record<string, unknown>) =>
  eventSchemasByKind()[kind].safeParse(record, eventParseOptions());

describe("checkKnownEvent", () => {
  it("gives every record the schema's own verdict and output", () => {
    fc.assert(
      fc.property(records, ([kind, list]) => {
        forgetEventShapes();
        for (const record of list) {
          const expected = bySchema(kind, record);
          const checked = checkKnownEvent(record, kind);
          expect(checked.ok).toBe(expected.success);
          if (!checked.ok || !expected.success) continue;
          expect(Object.keys(checked.event)).toEqual(Object.keys(expected.data as object));
          expect(JSON.stringify(checked.event)).toBe(JSON.stringify(expected.data));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("tells apart every two values of one field the schema may tell apart", () => {
    // One value of each kind a field may hold; any two in one field of a valid event, the first
    // taught, the second judged.
    const values: unknown[] = [
      "",
      "x",
      true,
      undefined,
      null,
      0,
      [],
      ["native-summary"],
      {},
      { a: [1] },
      JSON.parse('{"__proto__": {"a": 1}}'),
      JSON.parse('{"constructor": "x"}'),
      { constructor: function named() {} },
      Object.create(null),
      new Date(0),
    ];
    const valid: Record<string, Record<string, unknown>> = {
      turn_start: {},
      chat_request: { content: "hi" },
      chat_response: { message: "hello" },
      tool_call_request: { call_id: "c", name: "bash", arguments: {} },
      tool_call_response: { call_id: "c", content: "ok", is_error: false },
      inquiry_request: { inquiry_id: "q", source: "user", question: "?" },
      inquiry_response: { inquiry_id: "q", answer: "yes" },
      config_delta: { delta: {} },
      usage: { event: "01e", usage: {} },
    };
    for (const kind of kinds) {
      const base = { id: "01a", ts: "2026-01-01T00:00:00.000Z", type: kind, ...valid[kind] };
      expect(bySchema(kind, base).success, kind).toBe(true);
      const fields = [...Object.keys(defOf(eventSchemasByKind()[kind]).shape!), "extra", "__proto__"];
      for (const field of fields.filter((name) => name !== "type")) {
        for (const [first, taught] of values.entries()) {
          for (const [second, judged] of values.entries()) {
            forgetEventShapes();
            const withValue = (value: unknown): Record<string, unknown> => {
              const record: Record<string, unknown> = { ...base };
              Object.defineProperty(record, field, {
                value,
                enumerable: true,
                writable: true,
                configurable: true,
              });
              return record;
            };
            checkKnownEvent(withValue(taught), kind);
            const record = withValue(judged);
            const expected = bySchema(kind, record);
            const checked = checkKnownEvent(record, kind);
            const what = `${kind}.${field}: value ${first} taught, value ${second} judged`;
            expect(checked.ok, what).toBe(expected.success);
            if (checked.ok && expected.success) {
              expect(JSON.stringify(checked.event), what).toBe(JSON.stringify(expected.data));
            }
          }
        }
      }
    }
  });

  it("says a record is canonical only when it is exactly the schema's output", () => {
    fc.assert(
      fc.property(records, ([kind, list]) => {
        forgetEventShapes();
        for (const record of list) {
          checkKnownEvent(record, kind);
          if (!isCanonicalEvent(record as never)) continue;
          const expected = bySchema(kind, record);
          expect(expected.success).toBe(true);
          expect(Object.keys(record)).toEqual(Object.keys(expected.data as object));
          expect(JSON.stringify(record)).toBe(JSON.stringify(expected.data));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("knows what it returned for an importer's draft as the schema's own output", () => {
    // As the importers build them (agent-session.ts, `EventFinisher`): the id first, then the draft.
    const drafts = [
      { type: "turn_start", ts: "2026-01-01T00:00:00.000Z" },
      { type: "chat_request", ts: "2026-01-01T00:00:00.000Z", content: "list the files" },
      {
        type: "tool_call_request",
        ts: "2026-01-01T00:00:01.000Z",
        call_id: "toolu_1",
        name: "bash",
        arguments: { command: "ls" },
      },
      {
        type: "chat_response",
        ts: "2026-01-01T00:00:02.000Z",
        message: "done",
        metadata: { usage: { input_tokens: 3, output_tokens: 1 } },
      },
    ];
    for (const [index, draft] of drafts.entries()) {
      const record: Record<string, unknown> = { id: `01e${index}`, ...draft };
      const checked = checkKnownEvent(record, draft.type as KnownEventType);
      expect(checked.ok).toBe(true);
      if (!checked.ok) continue;
      // The schema's order (id, ts, metadata, type, …), not the draft's.
      expect(Object.keys(checked.event)[1]).toBe("ts");
      expect(isCanonicalEvent(checked.event)).toBe(true);
      expect(isCanonicalEvent(record as never)).toBe(false);
    }
  });

  it("names the field at fault, as the schema does, for a shape it took before", () => {
    const good = { id: "01a", ts: "2026-01-01T00:00:00.000Z", type: "chat_request", content: "hi" };
    expect(parseEvent(good).ok).toBe(true);
    expect(parseEvent({ ...good, ts: "" })).toEqual({
      ok: false,
      error: 'invalid chat_request event: "ts" must not be empty',
    });
    expect(parseEvent({ ...good, content: 3 })).toEqual({
      ok: false,
      error: 'invalid chat_request event: "content" must be a string, not a number',
    });
    const both = {
      id: "01b",
      ts: "2026-01-01T00:00:00.000Z",
      type: "chat_response",
      message: "a",
      reasoning: "b",
    };
    expect(parseEvent({ ...both, reasoning: undefined }).ok).toBe(true);
    // Two lists of fields that would read alike if a shape named its fields by their text, joined.
    const glued = { id: "01c", ts: "2026-01-01T00:00:00.000Z", type: "chat_request", "contents,author": "x" };
    expect(parseEvent({ ...good, author: "x" }).ok).toBe(true);
    expect(parseEvent(glued).ok).toBe(false);
    expect(parseEvent(both)).toEqual({
      ok: false,
      error: "invalid chat_response event: chat_response needs exactly one of message, reasoning or data",
    });
  });
});
