/**
 * Rules of the shipped security and framework talents held to what each stack's own guidance says:
 * the shipped detectors run as `talentd check` runs them (the client's engine over added files read
 * in context) find the violation and leave the endorsed practice alone; the rules' texts say what the
 * frameworks do today (PyTorch 2.6's `weights_only` default, Vitest's `allowOnly` in CI, Angular's
 * sanitized `[innerHTML]`, EF Core's foreign-key indexes, Microsoft's long-lived `HttpClient`).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Talent } from "../../src/catalog/format";
import { readTalentDir } from "../../src/catalog/load";
import { validateTalent } from "../../src/catalog/validate";
import { runDetectors, type ServedObligation } from "../../src/client/check";
import { servedObligationOf } from "../../src/client/served";
import type { AddedFile } from "../../src/client/git";

const TALENTS = join(import.meta.dir, "..", "..", "talents");
const talents = new Map<string, Talent>();
for (const s of readTalentDir(TALENTS).sources) {
  const t = validateTalent(s).talent;
  if (t) talents.set(t.id, t);
}

/** A talent served as the playbook serves it with `include=detectors`. */
const served = (id: string): ServedObligation => servedObligationOf(talents.get(id)!);

/** The findings (`line rule`) of talent `id` on a new file at `path` whose every line is added. */
function found(id: string, path: string, text: string): string[] {
  const file: AddedFile = { path, lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) };
  return runDetectors([served(id)], [file], () => text).findings.map((f) => `${f.line} ${f.rule}${f.also ? `+${f.also.join("+")}` : ""}`);
}

const rule = (talent: string, id: string) => talents.get(talent)!.rules.find((r) => r.id === id)!;
const samples = (talent: string, id: string) =>
  talents
    .get(talent)!
    .tests.filter((t) => t.rule === id)
    .flatMap((t) => [t.pass, t.fail])
    .join("\n");

describe("SSRF-002: resolved addresses are checked by allow-list (is_global), never by a blocklist of private ranges", () => {
  test("a blocklist of is_private / is_loopback / is_link_local is found; is_global (with the blocklist's names beside it) is left alone", () => {
    expect(
      found("ssrf", "app/webhooks.py", "if any(ip.is_private or ip.is_loopback or ip.is_link_local for ip in ips):\n    raise Forbidden"),
    ).toEqual(["1 SSRF-002"]);
    const allow = [
      "ip = ipaddress.ip_address(addr)",
      "if not ip.is_global or ip.is_multicast:",
      '    log.info("refused", private=ip.is_private)',
      "    raise Forbidden",
    ].join("\n");
    expect(found("ssrf", "app/webhooks.py", allow)).toEqual([]);
  });
  test("the samples and the reference connect to the checked address; the reference's scheme set is ALLOWED_SCHEMES and Go's Control refuses 100.64/10", () => {
    const text = samples("ssrf", "SSRF-002");
    expect(text).toContain("is_global");
    expect(text).toContain("sni_hostname");
    expect(rule("ssrf", "SSRF-002").check).toContain("100.64");
    const reference = readFileSync(join(TALENTS, "ssrf", "references", "guarded-fetch.md"), "utf8");
    expect(reference).toContain("ALLOWED_SCHEMES = {");
    expect(reference).not.toContain("BLOCKED_SCHEMES");
    expect(reference).toContain('netip.MustParsePrefix("100.64.0.0/10")');
  });
});

describe("HDR-001: 'unsafe-inline' in script-src is a violation only without a nonce or hash; style-src is not this rule's concern", () => {
  const at = "src/middleware/security.ts";
  test("the strict-CSP fallback ('nonce-…' 'strict-dynamic' 'unsafe-inline' https:) is left alone, as is style-src 'unsafe-inline'", () => {
    const fallback = `res.setHeader("Content-Security-Policy", "script-src 'nonce-\${nonce}' 'strict-dynamic' 'unsafe-inline' https:; object-src 'none'; base-uri 'none'");`;
    expect(found("security-headers-csrf", at, fallback)).toEqual([]);
    expect(
      found(
        "security-headers-csrf",
        at,
        `const csp = "default-src 'self'; script-src 'self' 'nonce-\${n}'; style-src 'self' 'unsafe-inline'";`,
      ),
    ).toEqual([]);
    expect(found("security-headers-csrf", "shop/settings.py", '    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],')).toEqual([]);
    expect(
      found(
        "security-headers-csrf",
        at,
        `helmet({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'"], styleSrc: ["'self'", "'unsafe-inline'"] } } });`,
      ),
    ).toEqual([]);
  });
  test("'unsafe-inline' without a nonce or hash, and 'unsafe-eval' even beside a nonce, are found (header strings and Django 6 SECURE_CSP)", () => {
    expect(found("security-headers-csrf", at, `res.setHeader("Content-Security-Policy", "script-src 'self' 'unsafe-inline'");`)).toEqual([
      "1 HDR-001",
    ]);
    expect(found("security-headers-csrf", at, `const csp = "script-src 'nonce-\${n}' 'unsafe-eval'";`)).toEqual(["1 HDR-001"]);
    expect(found("security-headers-csrf", "shop/settings.py", '    "script-src": [CSP.SELF, CSP.UNSAFE_INLINE],')).toEqual(["1 HDR-001"]);
    expect(found("security-headers-csrf", "shop/settings.py", '    "script-src": [CSP.SELF, CSP.NONCE, CSP.UNSAFE_EVAL],')).toEqual([
      "1 HDR-001",
    ]);
  });
});

describe("RX-003: takeUntil is followed only by what rxjs/no-unsafe-takeuntil allows (share, shareReplay, finalize, toArray…)", () => {
  test("takeUntil then shareReplay({refCount: true}) or share() is left alone; takeUntil then switchMap is found", () => {
    expect(
      found(
        "rxjs",
        "src/app/prices.service.ts",
        "prices$ = this.socket.prices$.pipe(takeUntil(this.destroy$), shareReplay({ bufferSize: 1, refCount: true }));",
      ),
    ).toEqual([]);
    expect(found("rxjs", "src/app/prices.service.ts", "events$ = this.ws.events$.pipe(takeUntil(this.destroy$), share());")).toEqual([]);
    expect(
      found("rxjs", "src/app/search.component.ts", "query$.pipe(takeUntil(this.destroyed$), switchMap((q) => this.search(q)))"),
    ).toEqual(["1 RX-003"]);
  });
});

describe("DESER-001: torch.load with weights_only=False, joblib.load and np.load(allow_pickle=True) unpickle; PyTorch ≥ 2.6 defaults are safe", () => {
  test("each unpickling call is found; torch.load with the default and np.load without allow_pickle are left alone", () => {
    expect(found("insecure-deserialization", "ml/serve.py", "model = torch.load(upload_path, weights_only=False)")).toEqual([
      "1 DESER-001",
    ]);
    expect(found("insecure-deserialization", "ml/serve.py", "model = joblib.load(request.FILES['model'])")).toEqual(["1 DESER-001"]);
    expect(found("insecure-deserialization", "ml/serve.py", "arr = np.load(uploaded, allow_pickle=True)")).toEqual(["1 DESER-001"]);
    expect(
      found("insecure-deserialization", "ml/serve.py", 'state = torch.load(path, map_location="cpu")\nemb = np.load("embeddings.npy")'),
    ).toEqual([]);
    expect(rule("insecure-deserialization", "DESER-001").check).toContain("weights_only=False");
  });
});

describe("DJ-001 and SQLA-001: formatted SQL in cursor.execute and op.execute is found; Streamlit's st.text is not SQL", () => {
  test('DJ-001: cursor.execute(f…) and ("…" % x) are found; a %s placeholder with parameters is left alone', () => {
    expect(found("django", "shop/views.py", 'cursor.execute(f"SELECT * FROM shop_book WHERE author_id = {author_id}")')).toEqual([
      "1 DJ-001",
    ]);
    expect(found("django", "shop/views.py", "cursor.execute(\"SELECT * FROM shop_book WHERE title = '%s'\" % title)")).toEqual([
      "1 DJ-001",
    ]);
    expect(found("django", "shop/views.py", 'cursor.execute("SELECT * FROM shop_book WHERE author_id = %s", [author_id])')).toEqual([]);
  });
  test("SQLA-001: op.execute(f…) and sa.text(f…) are found; st.text(f…) is left alone", () => {
    expect(found("sqlalchemy-alembic", "alembic/versions/0007_backfill.py", "op.execute(f\"UPDATE users SET plan = '{plan}'\")")).toEqual([
      "1 SQLA-001",
    ]);
    expect(
      found("sqlalchemy-alembic", "app/crud.py", "rows = conn.execute(sa.text(f\"SELECT * FROM users WHERE email = '{email}'\"))"),
    ).toEqual(["1 SQLA-001"]);
    expect(found("sqlalchemy-alembic", "app/crud.py", 'st.text(f"{count} users imported")')).toEqual([]);
  });
  test("SQLA-001: a bare text(f…) is SQL only where the file imports text from sqlalchemy (an HTML builder's text is not)", () => {
    const builder = 'from tagflow import tag, text\nwith tag.p():\n    text(f"Step {position} of {total}")';
    expect(found("sqlalchemy-alembic", "server/backoffice/views.py", builder)).toEqual([]);
    const sql =
      "from sqlalchemy import (\n    select,\n    text,\n)\nrows = conn.execute(text(f\"SELECT * FROM users WHERE plan = '{plan}'\"))";
    expect(found("sqlalchemy-alembic", "app/crud.py", sql)).toEqual(["5 SQLA-001"]);
  });
});

describe("ASPNET-002: a long-lived HttpClient over SocketsHttpHandler is endorsed; a client made per call is not", () => {
  test("a static client with PooledConnectionLifetime is left alone; new HttpClient() and a using-scoped client are found", () => {
    const singleton =
      "private static readonly HttpClient Client = new HttpClient(new SocketsHttpHandler { PooledConnectionLifetime = TimeSpan.FromMinutes(2) });";
    expect(found("aspnet-core", "src/Api/Geo.cs", singleton)).toEqual([]);
    expect(found("aspnet-core", "src/Api/Geo.cs", "using var client = new HttpClient();")).toEqual(["1 ASPNET-002"]);
    expect(found("aspnet-core", "src/Api/Geo.cs", "using var client = new HttpClient(new HttpClientHandler());")).toEqual(["1 ASPNET-002"]);
    expect(rule("aspnet-core", "ASPNET-002").title).toContain("PooledConnectionLifetime");
  });
});

describe("NG-004 and XSS-001 agree: Angular sanitizes [innerHTML]; bypassSecurityTrust* on data is the danger", () => {
  test("an [innerHTML] binding and a bypass of a constant are left alone; a bypass of data is one finding under both rules", () => {
    const both = [served("angular"), served("xss-output-encoding")];
    const check = (path: string, text: string) =>
      runDetectors(both, [{ path, lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) }], () => text).findings.map(
        (f) => `${f.line} ${[f.rule, ...(f.also ?? [])].sort().join("+")}`,
      );
    expect(check("src/app/bio.component.ts", 'template: `<div [innerHTML]="bio()"></div>`,')).toEqual([]);
    expect(
      check("src/app/logo.component.ts", "readonly logo = this.sanitizer.bypassSecurityTrustHtml('<svg viewBox=\"0 0 8 8\"></svg>');"),
    ).toEqual([]);
    expect(check("src/app/bio.component.ts", "this.bioHtml = this.sanitizer.bypassSecurityTrustHtml(user.bio);")).toEqual([
      "1 NG-004+XSS-001",
    ]);
    expect(rule("angular", "NG-004").title).not.toContain("sanitize before `[innerHTML]`");
  });
});

describe("rules that contradicted endorsed practice say what the frameworks do", () => {
  test("EF-007 no longer asks for foreign-key indexes EF Core creates by convention", () => {
    expect(rule("ef-core", "EF-007").check).not.toContain("foreign keys without an index");
    expect(rule("ef-core", "EF-007").check).toContain("by convention");
  });
  test("PYD-004 forbids extra fields on request and input models at trust boundaries, not on messages that must tolerate new fields", () => {
    expect(rule("pydantic-v2", "PYD-004").check).not.toContain("Request or message models");
    expect(samples("pydantic-v2", "PYD-004")).toContain('extra="ignore"');
  });
  test("VTEST-001: .only fails a Vitest run in CI (allowOnly is false there); it silences the rest of the suite locally", () => {
    expect(rule("vue-testing", "VTEST-001").check).not.toContain("silences the rest of the suite in CI");
    expect(rule("vue-testing", "VTEST-001").check).toContain("allowOnly");
  });
});
