/**
 * Where to send a browser after sign-in (`next`): only a path of this site, judged as the
 * browser will read it. Browsers drop tabs and newlines from URLs and read `\` as `/`, so
 * `/\t/evil.example/x` and `/\evil.example` are other sites; the WHATWG URL parser (what
 * browsers use) resolves `next` against this site, and anything it places on another origin,
 * or whose path would read as `//host`, falls back to `/`.
 */
const ORIGIN = "http://talentd.invalid";

/** A same-site path (with query and fragment) to return to after sign-in; `/` when `next` is anything else. */
export function safeNext(next: string | undefined | null): string {
  if (!next || next.length > 4000 || !next.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, ORIGIN);
  } catch {
    return "/";
  }
  if (url.origin !== ORIGIN || url.pathname.startsWith("//") || url.username !== "" || url.password !== "") return "/";
  return url.pathname + url.search + url.hash;
}
