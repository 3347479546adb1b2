/** Reading the fields of a parsed form (or JSON) body in page routes, which take no schema. */

/** The string value of `name` in a parsed body, or undefined (absent, or not a string). */
export function formField(body: unknown, name: string): string | undefined {
  const v = (body as Record<string, unknown> | null)?.[name];
  return typeof v === "string" ? v : undefined;
}
