/** A parsed JSON value's one test: a plain object (not null, not an array), its fields readable by name. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
