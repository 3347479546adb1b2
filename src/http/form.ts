/** Reading the fields of a parsed form (or JSON) body in page routes, which take no schema. */

/** The string value of `name` in a parsed body, or undefined (absent, or not a string). */
export function formField(body: unknown, name: string): string | undefined {
  const v = (body as Record<string, unknown> | null)?.[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * The values of `name` posted as a list (a group of check boxes: every checked one, or one value alone),
 * strings only; undefined when the body has no such field or is not an object (JSON null, a string).
 */
export function formList(body: unknown, name: string): string[] | undefined {
  const v = body !== null && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
}
