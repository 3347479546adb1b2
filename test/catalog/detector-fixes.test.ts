/**
 * Shipped detectors that now see what their rules say: constructs laid out over several lines
 * (`scan: [file]`), the exceptions their rules allow left alone, the precision-0 detectors narrowed
 * to what their rules mean, and triggers that designate a talent only where its construct lives.
 * Each detector runs as `talentd check` runs it (the client's engine over added files read in context).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Talent } from "../../src/catalog/format";
import { readTalentDir } from "../../src/catalog/load";
import { validateTalent } from "../../src/catalog/validate";
import { runDetectors, type ServedObligation } from "../../src/client/check";
import type { AddedFile } from "../../src/client/git";
import { designate } from "../../src/client/match";
import { servedObligationOf } from "../../src/client/served";

const TALENTS = join(import.meta.dir, "..", "..", "talents");
const talents = new Map<string, Talent>();
for (const s of readTalentDir(TALENTS).sources) {
  const t = validateTalent(s).talent;
  if (t) talents.set(t.id, t);
}

const served = (id: string): ServedObligation => servedObligationOf(talents.get(id)!);

/** The findings (`line rule`) of talent `id` on a file at `path`: every line added, or only the `added` ones. */
function found(id: string, path: string, text: string, added?: number[]): string[] {
  const lines = text.split("\n").map((t, i) => ({ line: i + 1, text: t }));
  const file: AddedFile = { path, lines: added ? lines.filter((l) => added.includes(l.line)) : lines };
  return runDetectors([served(id)], [file], () => text).findings.map((f) => `${f.line} ${f.rule}`);
}

const lines = (...l: string[]) => l.join("\n");

describe("scan: [file] — a construct laid out over several lines is found, reported at the line it starts on", () => {
  test("CS-006: an empty catch whose braces sit on their own lines; a catch that wraps is left alone", () => {
    const empty = lines("try", "{", "    Send();", "}", "catch (Exception)", "{", "}");
    expect(found("csharp-base", "src/Orders/Sender.cs", empty)).toEqual(["5 CS-006"]);
    const wraps = lines("catch (HttpRequestException e)", "{", '    throw new CatalogUnavailableException("down", e);', "}");
    expect(found("csharp-base", "src/Orders/Sender.cs", wraps)).toEqual([]);
    // a comment alone in the block is still an empty catch
    expect(found("csharp-base", "src/Orders/Sender.cs", lines("catch (IOException)", "{", "    // ignored", "}"))).toEqual(["1 CS-006"]);
  });

  test("JAVA-001: `} catch (IOException e) {` then `}` on the next line; a rethrow with the cause is left alone", () => {
    const empty = lines("try {", "    config = load(path);", "} catch (IOException e) {", "}");
    expect(found("java-base", "src/main/java/a/Config.java", empty)).toEqual(["3 JAVA-001"]);
    const wraps = lines(
      "try {",
      "    return read(path);",
      "} catch (IOException e) {",
      '    throw new UncheckedIOException("reading", e);',
      "}",
    );
    expect(found("java-base", "src/main/java/a/Config.java", wraps)).toEqual([]);
  });

  test("RX-001: a subscribe inside a subscribe's block body over several lines; a switchMap pipeline is left alone", () => {
    const nested = lines(
      "this.route.paramMap.subscribe((p: ParamMap) => {",
      "  this.api.user(p.get('id')!).subscribe((u) => {",
      "    this.user = u;",
      "  });",
      "});",
    );
    expect(found("rxjs", "src/app/user.component.ts", nested)).toEqual(["1 RX-001"]);
    const composed = lines(
      "this.route.paramMap",
      "  .pipe(switchMap((p) => this.api.user(p.get('id')!)))",
      "  .subscribe((u) => {",
      "    this.user = u;",
      "  });",
      "this.other$.subscribe((x) => (this.x = x));",
    );
    expect(found("rxjs", "src/app/user.component.ts", composed)).toEqual([]);
  });

  test("KT-005: a data class with one property per line and a `var` among them; all `val` is left alone", () => {
    const mutable = lines("data class Money(", "    val amount: BigDecimal,", "    var currency: Currency,", ")");
    expect(found("kotlin-base", "src/main/kotlin/a/Money.kt", mutable)).toEqual(["1 KT-005"]);
    const immutable = lines(
      "data class Money(",
      "    val amount: BigDecimal,",
      "    val currency: Currency,",
      ")",
      "",
      "class Cart(var items: Int)",
    );
    expect(found("kotlin-base", "src/main/kotlin/a/Money.kt", immutable)).toEqual([]);
  });

  test("DJ-011: null=True on a CharField over several lines (a translated label's parentheses inside); unique optional fields excepted", () => {
    const nullable = lines("nickname = models.CharField(", '    _("nickname"),', "    max_length=40,", "    null=True,", ")");
    expect(found("django", "app/models.py", nullable)).toEqual(["1 DJ-011"]);
    const unique = lines("handle = models.CharField(", '    _("handle"),', "    null=True,", "    unique=True,", ")");
    expect(found("django", "app/models.py", unique)).toEqual([]);
    // the next field's null=True is not read as this call's
    const next = lines("name = models.CharField(max_length=40)", "parent = models.ForeignKey(Node, null=True, on_delete=models.CASCADE)");
    expect(found("django", "app/models.py", next)).toEqual([]);
  });

  test("talentd-ignore on the comment line above a construct's first line silences it, with its reason", () => {
    const text = lines(
      "try { Close(); }",
      "// talentd-ignore CS-006 closing twice is harmless here",
      "catch (ObjectDisposedException)",
      "{",
      "}",
    );
    const file: AddedFile = { path: "src/A.cs", lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) };
    const r = runDetectors([served("csharp-base")], [file], () => text);
    expect(r.findings.map((f) => f.rule)).toEqual([]);
    expect(r.ignored).toEqual([{ file: "src/A.cs", line: 3, rule: "CS-006", reason: "closing twice is harmless here" }]);
  });

  test("a construct is reported when any of its lines is added, and not when none is", () => {
    const text = lines("class A {", "  void f() {", "    try { g(); } catch (IOException e) {", "    }", "  }", "}");
    expect(found("java-base", "src/main/java/a/A.java", text, [4])).toEqual(["3 JAVA-001"]);
    expect(found("java-base", "src/main/java/a/A.java", text, [1, 5])).toEqual([]);
  });
});

describe("the exceptions the rules allow are left alone", () => {
  test("DRF-003: AllowAny with a comment on its line or the line above is justified; a bare one is found", () => {
    const justified = lines(
      "class HealthView(APIView):",
      "    # public: the load balancer probes it without credentials",
      "    permission_classes = [AllowAny]",
      "",
      "class SignupView(CreateAPIView):",
      "    permission_classes = [permissions.AllowAny]  # public: creating an account needs no login",
    );
    expect(found("django-rest-framework", "app/views.py", justified)).toEqual([]);
    const bare = lines("class ExportView(APIView):", "    queryset = Order.objects.all()", "    permission_classes = [AllowAny]");
    expect(found("django-rest-framework", "app/views.py", bare)).toEqual(["3 DRF-003"]);
    // a commented-out line is not code
    expect(found("django-rest-framework", "app/views.py", "    # permission_classes = [AllowAny]")).toEqual([]);
  });

  test("REDIR-001: `return Redirect(returnUrl)` guarded by Url.IsLocalUrl(returnUrl) is left alone; unguarded it is found", () => {
    const guarded = lines(
      "if (Url.IsLocalUrl(returnUrl))",
      "{",
      "    return Redirect(returnUrl);",
      "}",
      'return RedirectToAction("Index");',
    );
    expect(found("open-redirect", "src/Web/Controllers/AccountController.cs", guarded)).toEqual([]);
    const open = lines("if (!string.IsNullOrEmpty(returnUrl))", "{", "    return Redirect(returnUrl);", "}");
    expect(found("open-redirect", "src/Web/Controllers/AccountController.cs", open)).toEqual(["3 REDIR-001"]);
    // the guard must name the redirected variable
    const other = lines("if (Url.IsLocalUrl(next)) { }", "return Redirect(returnUrl);");
    expect(found("open-redirect", "src/Web/Controllers/AccountController.cs", other)).toEqual(["2 REDIR-001"]);
  });

  test("SSRF-008: the metadata address in a deny-list (one line or several) is left alone; a call to it is found", () => {
    const denyList = lines("DENIED_HOSTS = frozenset({", '    "169.254.169.254",', '    "metadata.google.internal",', "})");
    expect(found("ssrf", "app/webhooks.py", denyList)).toEqual([]);
    expect(found("ssrf", "app/webhooks.py", 'BLOCKED_HOSTS: set[str] = {"169.254.169.254", "fd00:ec2::254"}')).toEqual([]);
    const call = 'creds = requests.get("http://169.254.169.254/latest/meta-data/").text';
    expect(found("ssrf", "app/webhooks.py", call)).toEqual(["1 SSRF-008"]);
    // a later statement after a deny-list is read on its own
    expect(found("ssrf", "app/webhooks.py", lines('BLOCKED = {"10.0.0.1"}', 'URL = "http://169.254.169.254/"'))).toEqual(["2 SSRF-008"]);
  });

  test("FAPI-006: allow_origins=['*'] is found only in a CORSMiddleware call that also allows credentials, over one line or several", () => {
    const both = lines(
      "app.add_middleware(",
      "    CORSMiddleware,",
      '    allow_origins=["*"],',
      "    allow_methods=get_methods(),",
      "    allow_credentials=True,",
      ")",
    );
    expect(found("fastapi", "app/main.py", both)).toEqual(["2 FAPI-006"]);
    expect(found("fastapi", "app/main.py", 'app.add_middleware(CORSMiddleware, allow_credentials=True, allow_origins=["*"])')).toEqual([
      "1 FAPI-006",
    ]);
    const publicApi = lines("app.add_middleware(", "    CORSMiddleware,", '    allow_origins=["*"],', '    allow_methods=["GET"],', ")");
    expect(found("fastapi", "app/main.py", publicApi)).toEqual([]);
    // another call's credentials do not count
    const apart = lines(
      'app.add_middleware(CORSMiddleware, allow_origins=["*"])',
      "app.add_middleware(SessionMiddleware, allow_credentials=True)",
    );
    expect(found("fastapi", "app/main.py", apart)).toEqual([]);
  });
});

describe("the detectors measured at precision 0, narrowed to what their rules mean", () => {
  test("DJ-002: mark_safe with a justified `# noqa: S308 - why` is left alone; unjustified or bare it is found", () => {
    expect(
      found(
        "django",
        "app/images/models.py",
        'return mark_safe(f"<img{flatatt(attrs)}>")  # noqa: S308 - flatatt-rendered attributes are escaped',
      ),
    ).toEqual([]);
    expect(found("django", "app/images/models.py", 'return mark_safe(f"<b>{user.name}</b>")  # noqa: S308')).toEqual(["1 DJ-002"]);
    expect(found("django", "app/images/models.py", 'return mark_safe(f"<b>{user.name}</b>")')).toEqual(["1 DJ-002"]);
    expect(found("django", "app/images/models.py", '# return mark_safe(f"<b>{user.name}</b>")')).toEqual([]);
  });

  test("DESER-002: a repository script loading its own YAML is not read; a SafeLoader on a later line of the call is seen", () => {
    const own = "    return yaml.unsafe_load(en_config_path.read_text(encoding='utf-8'))";
    expect(found("insecure-deserialization", "scripts/docs.py", own)).toEqual([]);
    expect(found("insecure-deserialization", "app/yaml_import.py", own)).toEqual(["1 DESER-002"]);
    const safe = lines("data = yaml.load(", "    open(path, encoding='utf-8'),", "    Loader=yaml.CSafeLoader,", ")");
    expect(found("insecure-deserialization", "app/yaml_import.py", safe)).toEqual([]);
    const unsafe = lines("data = yaml.load(", "    open(path, encoding='utf-8'),", ")");
    expect(found("insecure-deserialization", "app/yaml_import.py", unsafe)).toEqual(["1 DESER-002"]);
  });

  test("RX-005: shareReplay(1) is found over a long-lived source the expression shows; over an HTTP call or an unknown stream it is left alone", () => {
    const clock = lines("readonly clock$ = interval(1000).pipe(", "  map(() => new Date()),", "  shareReplay(1),", ");");
    expect(found("rxjs", "src/app/clock.service.ts", clock)).toEqual(["1 RX-005"]);
    expect(found("rxjs", "src/app/prices.service.ts", "readonly prices$ = webSocket<Price>(this.url).pipe(shareReplay(1));")).toEqual([
      "1 RX-005",
    ]);
    expect(
      found("rxjs", "src/app/config.service.ts", "readonly config$ = this.http.get<Config>('/api/config').pipe(shareReplay(1));"),
    ).toEqual([]);
    expect(found("rxjs", "src/cdk/table/table.ts", "this._data = this._source.pipe(shareReplay(1));")).toEqual([]);
  });

  test("VUE-003: v-html of DOMPurify output or under the project's eslint-disable vue/no-v-html is left alone; a bare v-html over several lines is found", () => {
    const disabled = lines(
      "<template>",
      "  <!-- eslint-disable vue/no-v-html -->",
      "  <div",
      '    :class="previewClass"',
      '    v-html="content"',
      "  ></div>",
      "</template>",
    );
    expect(found("vue", "src/tiptap/preview.vue", disabled)).toEqual([]);
    const bare = lines("<template>", "  <div", '    :class="previewClass"', '    v-html="content"', "  ></div>", "</template>");
    expect(found("vue", "src/tiptap/preview.vue", bare)).toEqual(["4 VUE-003"]);
    const sanitized = lines(
      '<script setup lang="ts">',
      "const safeHtml = computed(() => DOMPurify.sanitize(props.html));",
      "</script>",
      '<template><div v-html="safeHtml"></div></template>',
    );
    expect(found("vue", "src/Preview.vue", sanitized)).toEqual([]);
  });

  test("VUE-008: a query of the whole document is left alone; reaching an element of the component is found", () => {
    expect(found("vue", "src/ui/login-expired-modal.vue", "  const elements = document.querySelectorAll('*');")).toEqual([]);
    expect(found("vue", "src/ui/Search.vue", "const input = document.querySelector('#search') as HTMLInputElement")).toEqual(["1 VUE-008"]);
    expect(found("vue", "src/ui/Search.vue", "const input = document.getElementById('search')")).toEqual(["1 VUE-008"]);
  });
});

describe("triggers designate a talent where its construct lives, not on every source file", () => {
  const designable = ["insecure-deserialization", "open-redirect", "pytest"].map((id) => {
    const t = talents.get(id)!;
    return { id, triggers: { files: t.triggers.files }, languages: t.languages };
  });
  /** The talents designated by a glob of their triggers (pytest's `languages: [python]` designates it on any .py file besides). */
  const designated = (...paths: string[]) =>
    designate(designable, paths, [])
      .filter((d) => typeof d.because === "object" && "glob" in d.because)
      .map((d) => d.id);

  test("an unrelated source file, or a dependency bump in pyproject.toml, designates none of them", () => {
    expect(designated("src/utils/strings.ts", "app/models.py", "internal/math/add.go", "src/Orders/Order.cs")).toEqual([]);
    expect(designate(designable, ["pyproject.toml", "uv.lock"], [])).toEqual([]);
  });

  test("each is designated where its construct is written", () => {
    expect(designated("app/cache/store.py")).toEqual(["insecure-deserialization"]);
    expect(designated("src/messaging/OrderConsumer.java")).toEqual(["insecure-deserialization"]);
    expect(designated("src/Identity.API/Quickstart/Account/ExternalController.cs")).toEqual(["open-redirect"]);
    expect(designated("app/auth/login.py")).toEqual(["open-redirect"]);
    expect(designated("tests/test_orders.py")).toEqual(["pytest"]);
    expect(designated("backend/pytest.ini")).toEqual(["pytest"]);
  });
});
