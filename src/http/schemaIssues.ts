/**
 * A route schema's failed checks in words a user understands: each issue names its field and
 * says what the field takes ("tools must be a list …", "name is required: text of 1 to 100
 * characters"), never TypeBox's default texts ("Expected union value", "Expected string",
 * "Unexpected property", "Expected required property"). A schema's own `error` text wins (a
 * union whose parts would read vaguely carries one, e.g. the key's `tools`). The received value
 * is never interpolated (a value like `{"toString":1}` must not run).
 */
import { ValueErrorType } from "@sinclair/typebox/errors";
import type { Issue } from "./errors";

type Schema = Record<string, any>;

/** One failed check of a TypeBox schema, as its validator reports it. */
export interface SchemaError {
  type?: number;
  path?: string;
  message?: string;
  value?: unknown;
  schema?: Schema;
}

const quote = (v: unknown) => (typeof v === "string" ? `"${v}"` : String(v));

/** "1 to 100", "at most 100", "at least 1", or "" for the bounds of a length or a count. */
function bounds(min: unknown, max: unknown): string {
  const lo = typeof min === "number" && min > 0 ? min : undefined;
  const hi = typeof max === "number" ? max : undefined;
  if (lo !== undefined && hi !== undefined) return `${lo} to ${hi}`;
  if (hi !== undefined) return `at most ${hi}`;
  if (lo !== undefined) return `at least ${lo}`;
  return "";
}

/** What a schema takes, as a noun phrase: "text of at most 40 characters", "true or false", "one of owner, admin". */
export function describeSchema(s: Schema | undefined, depth = 0): string {
  if (!s || depth > 4) return "a valid value";
  if ("const" in s) return quote(s.const);
  if (Array.isArray(s.anyOf)) {
    // Elysia widens a number or boolean of a body or query with a string it decodes (`format: "integer"`): not a choice of its own
    const all = s.anyOf as Schema[];
    const decoded = (p: Schema) =>
      p.type === "string" && ["integer", "numeric", "boolean", "ObjectString", "ArrayString"].includes(p.format);
    const parts = all.some((p) => !decoded(p)) ? all.filter((p) => !decoded(p)) : all;
    if (parts.length > 0 && parts.every((p) => "const" in p)) return `one of ${parts.map((p) => String(p.const)).join(", ")}`;
    return [...new Set(parts.map((p) => describeSchema(p, depth + 1)))].join(" or ");
  }
  if (Array.isArray(s.enum)) return `one of ${s.enum.join(", ")}`;
  switch (s.type) {
    case "string": {
      if (s.format === "email") return "an e-mail address";
      if (s.format === "date-time") return "a date and time such as 2030-01-31T00:00:00Z";
      if (s.format === "uri") return "a URL";
      const length = bounds(s.minLength, s.maxLength);
      return length ? `text of ${length} characters` : "text";
    }
    case "number":
    case "integer": {
      const kind = s.type === "integer" ? "a whole number" : "a number";
      const lo = s.minimum ?? s.exclusiveMinimum;
      const hi = s.maximum ?? s.exclusiveMaximum;
      if (lo !== undefined && hi !== undefined) return `${kind} from ${lo} to ${hi}`;
      if (hi !== undefined) return `${kind} of at most ${hi}`;
      if (lo !== undefined) return `${kind} of at least ${lo}`;
      return kind;
    }
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array": {
      const count = bounds(s.minItems, s.maxItems);
      return `a list${count ? ` of ${count} items` : ""}, each ${describeSchema(s.items, depth + 1)}`;
    }
    case "object": {
      const names = Object.keys(s.properties ?? {});
      return names.length ? `an object with ${names.join(", ")}` : "an object";
    }
    default:
      return "a valid value";
  }
}

/** The words for a path: `tools` → "tools", `talents/0` → "each item of talents", `oidc/issuer` → "oidc.issuer". */
function subjectOf(segments: string[]): string {
  const last = segments[segments.length - 1];
  if (last !== undefined && /^\d+$/.test(last)) {
    const parent = segments.slice(0, -1).join(".");
    return parent ? `each item of ${parent}` : "each item";
  }
  return segments.join(".");
}

/**
 * The issues of one failed check (none when an earlier issue already covers its path). `root`
 * is the route's whole schema: a body that is not an object at all is told as its required
 * fields, each missing.
 */
export function schemaIssues(x: SchemaError, root?: Schema): Issue[] {
  const segments = String(x.path ?? "")
    .split("/")
    .filter((p) => p !== "");
  const path = segments.join(".");
  const schema = x.schema;
  if (typeof schema?.error === "string") return [{ path, message: schema.error }];
  const subject = subjectOf(segments);
  switch (x.type) {
    case ValueErrorType.ObjectAdditionalProperties: {
      const parent = root && segments.length === 1 ? root : schema;
      const names = Object.keys(parent?.properties ?? {});
      return [
        {
          path,
          message: `${segments.join(".")} is not a field of this request${names.length ? ` (its fields: ${names.join(", ")})` : ""}`,
        },
      ];
    }
    case ValueErrorType.ObjectMinProperties:
    case ValueErrorType.ObjectMaxProperties: {
      const names = Object.keys(schema?.properties ?? {});
      const atLeast = x.type === ValueErrorType.ObjectMinProperties;
      const n = atLeast ? schema?.minProperties : schema?.maxProperties;
      const what = names.length
        ? `${atLeast && n === 1 ? "at least one" : `${atLeast ? "at least" : "at most"} ${n}`} of ${names.join(", ")}`
        : `${atLeast ? "at least" : "at most"} ${n} fields`;
      return [{ path, message: segments.length ? `${subject} must hold ${what}` : `send ${what}` }];
    }
  }
  if (segments.length === 0 && schema?.type === "object") {
    // the whole body is not an object (an empty form, a JSON array): its required fields are missing
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required = (schema.required ?? []) as string[];
    if (required.length > 0)
      return required.map((name) => ({
        path: name,
        message: typeof props[name]?.error === "string" ? props[name].error : `${name} is required: ${describeSchema(props[name])}`,
      }));
    return [
      { path: "", message: `send a JSON object or a form${Object.keys(props).length ? ` with ${Object.keys(props).join(", ")}` : ""}` },
    ];
  }
  if (segments.length === 0) return [{ path: "", message: `the request must be ${describeSchema(schema)}` }];
  if (x.type === ValueErrorType.ObjectRequiredProperty || x.value === undefined)
    return [{ path, message: `${subject} is required: ${describeSchema(schema)}` }];
  if (x.type === ValueErrorType.StringPattern || x.type === ValueErrorType.StringFormat || x.type === ValueErrorType.StringFormatUnknown) {
    const takes = describeSchema(schema);
    return [
      {
        path,
        message:
          takes === "text" || takes.startsWith("text ")
            ? `${subject} has a form this field does not take (${takes})`
            : `${subject} must be ${takes}`,
      },
    ];
  }
  return [{ path, message: `${subject} must be ${describeSchema(schema)}` }];
}
