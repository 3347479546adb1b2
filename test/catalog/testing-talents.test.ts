/**
 * The backend testing talents (spring-boot-testing, pytest-django-testing, fastapi-testing,
 * aspnetcore-integration-testing): each detector, run as `talentd check` runs it (the client's engine
 * over added files read in context), finds its violation in a test file and leaves the endorsed
 * practice and its exception alone; product code of the same stack is neither designated nor scanned.
 * The last block runs `talentd check --staged` in a scratch repository against a live local server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Talent } from "../../src/catalog/format";
import { readTalentDir } from "../../src/catalog/load";
import { validateTalent } from "../../src/catalog/validate";
import { runDetectors } from "../../src/client/check";
import type { AddedFile } from "../../src/client/git";
import { servedObligationOf } from "../../src/client/served";
import { clientProject, gitRepo, removeRepos, stage, talentd } from "../client-support";
import { ROOT } from "../helpers";
import { liveEnv, type LiveEnv } from "../mcp-support";
import { join } from "node:path";

const talents = new Map<string, Talent>();
for (const s of readTalentDir(join(ROOT, "talents")).sources) {
  const t = validateTalent(s).talent;
  if (t) talents.set(t.id, t);
}

/** The findings (`line rule`) of talent `id` on a new file at `path` whose every line is added. */
function found(id: string, path: string, text: string): string[] {
  const file: AddedFile = { path, lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) };
  return runDetectors([servedObligationOf(talents.get(id)!)], [file], () => text).findings.map((f) => `${f.line} ${f.rule}`);
}

/** The findings (`line rule+also`) of several talents served together on one new file. */
function foundTogether(ids: string[], path: string, text: string): string[] {
  const file: AddedFile = { path, lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) };
  const served = ids.map((id) => servedObligationOf(talents.get(id)!));
  return runDetectors(served, [file], () => text).findings.map((f) => `${f.line} ${f.rule}${f.also ? `+${f.also.join("+")}` : ""}`);
}

describe("a construct two talents cover is one finding: the testing talent beside its language's testing talent", () => {
  test("Thread.sleep in a Spring test is JTEST-002 with SBT-004 in also; UseInMemoryDatabase in a C# test is DNT-004 with ASPIT-003", () => {
    expect(
      foundTogether(["java-testing", "spring-boot-testing"], "src/test/java/com/shop/OutboxIT.java", "    Thread.sleep(500);"),
    ).toEqual(["1 JTEST-002+SBT-004"]);
    expect(
      foundTogether(
        ["dotnet-testing", "aspnetcore-integration-testing"],
        "tests/Orders.Api.Tests/ApiFactory.cs",
        'services.AddDbContext<AppDbContext>(o => o.UseInMemoryDatabase("orders"));',
      ),
    ).toEqual(["1 DNT-004+ASPIT-003"]);
  });
});

const SBT = "spring-boot-testing";
const JAVA_TEST = "src/test/java/com/shop/orders/OrderControllerTest.java";

describe("spring-boot-testing: detectors in Spring Boot test sources", () => {
  test("SBT-001: @MockBean, @SpyBean and their package are found; @MockitoBean / @MockitoSpyBean are left alone", () => {
    const old = [
      "import org.springframework.boot.test.mock.mockito.MockBean;",
      "class OrderControllerTest {",
      "  @MockBean",
      "  OrderService orders;",
      "  @SpyBean Clock clock;",
      "}",
    ].join("\n");
    expect(found(SBT, JAVA_TEST, old)).toEqual(["1 SBT-001", "3 SBT-001", "5 SBT-001"]);
    const current = [
      "import org.springframework.test.context.bean.override.mockito.MockitoBean;",
      "import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;",
      "class OrderControllerTest {",
      "  @MockitoBean OrderService orders;",
      "  @MockitoSpyBean Clock clock;",
      "}",
    ].join("\n");
    expect(found(SBT, JAVA_TEST, current)).toEqual([]);
  });

  test("SBT-003: H2 URLs and hand-registered datasource properties are found; @ServiceConnection and other dynamic properties are left alone", () => {
    expect(found(SBT, "src/test/resources/application-test.yml", "spring:\n  datasource:\n    url: jdbc:h2:mem:orders\n")).toEqual([
      "3 SBT-003",
    ]);
    expect(found(SBT, "src/test/resources/application.properties", "spring.datasource.url=jdbc:h2:mem:orders;MODE=PostgreSQL")).toEqual([
      "1 SBT-003",
    ]);
    const wired = [
      "@DynamicPropertySource",
      "static void props(DynamicPropertyRegistry registry) {",
      '  registry.add("spring.datasource.url", postgres::getJdbcUrl);',
      '  registry.add("spring.kafka.bootstrap-servers", kafka::getBootstrapServers);',
      '  registry.add("shop.pricing.base-url", wiremock::baseUrl);',
      "}",
    ].join("\n");
    expect(found(SBT, JAVA_TEST, wired)).toEqual(["3 SBT-003", "4 SBT-003"]);
    const connected = [
      "@Container",
      "@ServiceConnection",
      'static PostgreSQLContainer<?> postgres = new PostgreSQLContainer<>("postgres:17-alpine");',
    ].join("\n");
    expect(found(SBT, JAVA_TEST, connected)).toEqual([]);
  });

  test("SBT-004, SBT-005, SBT-007: sleeps, @DirtiesContext and fixed localhost ports are found; Awaitility, @Sql cleanup and @LocalServerPort are left alone", () => {
    const bad = [
      "@DirtiesContext",
      "class OutboxIT {",
      "  void sends() throws Exception {",
      "    Thread.sleep(500);",
      "    TimeUnit.SECONDS.sleep(1);",
      '    var client = RestClient.create("http://localhost:8080");',
      "  }",
      "}",
    ].join("\n");
    expect(found(SBT, "src/test/java/com/shop/OutboxIT.java", bad)).toEqual(["1 SBT-005", "4 SBT-004", "5 SBT-004", "6 SBT-007"]);
    const good = [
      '@Sql(scripts = "/cleanup.sql", executionPhase = AFTER_TEST_METHOD)',
      "class OutboxIT {",
      "  @LocalServerPort int port;",
      "  void sends() {",
      '    var client = RestClient.create("http://localhost:" + port);',
      "    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(outbox.sent()).hasSize(1));",
      "  }",
      "}",
    ].join("\n");
    expect(found(SBT, "src/test/java/com/shop/OutboxIT.java", good)).toEqual([]);
  });

  test("SBT-007: a Gatling simulation's default base URL (a load test aimed at a deployed server) is not a finding", () => {
    const gatling = 'String baseURL = Optional.ofNullable(System.getProperty("baseURL")).orElse("http://localhost:8080");';
    expect(found(SBT, "src/test/java/gatling/simulations/OrderGatlingTest.java", gatling)).toEqual([]);
    expect(found(SBT, "src/test/java/com/shop/OrderApiTest.java", gatling)).toEqual(["1 SBT-007"]);
  });

  test("a line with talentd-ignore SBT-005 and its reason keeps a deliberate @DirtiesContext", () => {
    expect(
      found(SBT, JAVA_TEST, "// talentd-ignore SBT-005 the embedded broker cannot be reset\n@DirtiesContext\nclass BrokerTest {}"),
    ).toEqual([]);
  });
});

const PDJ = "pytest-django-testing";
const PY_TEST = "orders/tests/test_views.py";

describe("pytest-django-testing: detectors in Django test modules", () => {
  test("PDJ-002: loaddata and fixture files on a TestCase are found; factories and a list of names that is not a fixtures attribute are left alone", () => {
    const bad = [
      "class OrderViewTests(TestCase):",
      '    fixtures = ["users.json", "orders.json"]',
      "",
      "def test_loads(db):",
      '    call_command("loaddata", "orders.yaml")',
    ].join("\n");
    expect(found(PDJ, PY_TEST, bad)).toEqual(["2 PDJ-002", "5 PDJ-002"]);
    const good = ['CASES = ["a.json", "b.json"]', "", "def test_paid(db):", '    order = OrderFactory(status="paid")'].join("\n");
    expect(found(PDJ, PY_TEST, good)).toEqual([]);
  });

  test("PDJ-003: Client(), AsyncClient() and RequestFactory() built by hand are found; the fixtures, configured clients and DRF's APIClient are left alone", () => {
    const bad = ["def test_home():", "    c = Client()", "    ac = AsyncClient()", '    request = RequestFactory().get("/")'].join("\n");
    expect(found(PDJ, PY_TEST, bad)).toEqual(["2 PDJ-003", "3 PDJ-003", "4 PDJ-003"]);
    const good = [
      "@pytest.fixture",
      "def api_client():",
      "    return APIClient()",
      "",
      "@pytest.fixture",
      "def strict_client():",
      "    return Client(enforce_csrf_checks=True)",
      "",
      "def test_home(client, rf, django_user_model):",
      '    user = django_user_model.objects.create_user(username="ann")',
      "    client.force_login(user)",
    ].join("\n");
    expect(found(PDJ, "orders/conftest.py", good)).toEqual([]);
  });

  test("PDJ-003: RequestFactory() in a module of Django TestCase classes (no pytest fixtures there) is left alone", () => {
    const testCase = ["class RichTextTests(TestCase):", "    def setUp(self):", "        self.rf = RequestFactory()"].join("\n");
    expect(found(PDJ, PY_TEST, testCase)).toEqual([]);
    expect(found(PDJ, PY_TEST, "def test_rich_text():\n    rf = RequestFactory()")).toEqual(["2 PDJ-003"]);
  });

  test("PDJ-005: assigning to the imported django.conf settings is found; the settings fixture (same assignment, no import) is left alone", () => {
    const body = ["", "def test_backend(settings):", '    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"'].join(
      "\n",
    );
    expect(found(PDJ, PY_TEST, body)).toEqual([]);
    expect(found(PDJ, PY_TEST, `from django.conf import settings${body.replace("(settings)", "()")}`)).toEqual(["3 PDJ-005"]);
    expect(found(PDJ, PY_TEST, `from django.conf import global_settings, settings${body}`)).toEqual(["3 PDJ-005"]);
    // a comparison is not an assignment
    expect(found(PDJ, PY_TEST, "from django.conf import settings\nassert settings.DEBUG == False")).toEqual([]);
  });

  test("PDJ-006: ordering and depends markers are found; a plain dependency name and django_db marks are left alone", () => {
    const bad = [
      "@pytest.mark.order(2)",
      "def test_refund(): ...",
      "@pytest.mark.dependency(depends=['test_pay'])",
      "def test_ship(): ...",
    ].join("\n");
    expect(found(PDJ, PY_TEST, bad)).toEqual(["1 PDJ-006", "3 PDJ-006"]);
    expect(found(PDJ, PY_TEST, "@pytest.mark.django_db(transaction=True)\n@pytest.mark.dependency()\ndef test_pay(): ...")).toEqual([]);
  });

  test("product code is not scanned: the same text in a view module is no finding", () => {
    expect(found(PDJ, "orders/views.py", "from django.conf import settings\nsettings.DEBUG = True\nc = Client()")).toEqual([]);
  });
});

const FAPIT = "fastapi-testing";
const FAPI_TEST = "tests/test_items.py";

describe("fastapi-testing: detectors in FastAPI test modules", () => {
  test("FAPIT-001: an override never cleared is found; a fixture that clears, pops or resets the overrides is left alone", () => {
    expect(found(FAPIT, FAPI_TEST, "app.dependency_overrides[get_session] = override_get_session\nclient = TestClient(app)")).toEqual([
      "1 FAPIT-001",
      "2 FAPIT-002",
    ]);
    for (const cleanup of [
      "app.dependency_overrides.clear()",
      "app.dependency_overrides.pop(get_session)",
      "app.dependency_overrides = {}",
    ]) {
      const fixture = [
        "@pytest.fixture",
        "def client(session):",
        "    app.dependency_overrides[get_session] = lambda: session",
        "    with TestClient(app) as c:",
        "        yield c",
        `    ${cleanup}`,
      ].join("\n");
      expect(found(FAPIT, "tests/conftest.py", fixture)).toEqual([]);
    }
  });

  test("FAPIT-002: a TestClient never entered and AsyncClient(app=) are found; `with TestClient(app)`, a client entered later and ASGITransport are left alone", () => {
    expect(found(FAPIT, FAPI_TEST, "api = TestClient(app, raise_server_exceptions=False)\nr = api.get('/health')")).toEqual([
      "1 FAPIT-002",
    ]);
    expect(found(FAPIT, FAPI_TEST, "client = TestClient(app)\nwith client:\n    assert client.get('/health').status_code == 200")).toEqual(
      [],
    );
    expect(found(FAPIT, FAPI_TEST, "with TestClient(app) as client:\n    yield client")).toEqual([]);
    expect(found(FAPIT, FAPI_TEST, 'async with AsyncClient(app=app, base_url="http://test") as ac:')).toEqual(["1 FAPIT-002"]);
    expect(found(FAPIT, FAPI_TEST, 'async with AsyncClient(transport=ASGITransport(app=app), base_url="http://test") as ac:')).toEqual([]);
  });

  test("FAPIT-001, FAPIT-002: an override on, and a client of, an app the test function builds itself are left alone; the shared app's are found", () => {
    const local = [
      "def test_versioned_routes():",
      "    app = FastAPI()",
      "    app.include_router(router)",
      '    app.dependency_overrides[get_tenant] = lambda: "acme"',
      "    client = TestClient(app)",
    ].join("\n");
    expect(found(FAPIT, FAPI_TEST, local)).toEqual([]);
    const shared = [
      "from app.main import app as main_app",
      "def test_versioned_routes():",
      '    main_app.dependency_overrides[get_tenant] = lambda: "acme"',
      "    client = TestClient(main_app)",
    ].join("\n");
    expect(found(FAPIT, FAPI_TEST, shared)).toEqual(["3 FAPIT-001", "4 FAPIT-002"]);
    // clearing another app's overrides does not excuse this one's
    expect(found(FAPIT, FAPI_TEST, `${shared}\n    other.dependency_overrides.clear()`)).toEqual(["3 FAPIT-001", "4 FAPIT-002"]);
  });

  test("FAPIT-003, FAPIT-004, FAPIT-005: a running server on :8000, module reloads and hand-driven loops are found; MockTransport, overrides and anyio are left alone", () => {
    const bad = [
      'r = httpx.get("http://localhost:8000/items/1")',
      "importlib.reload(config)",
      "result = asyncio.get_event_loop().run_until_complete(fetch())",
      "asyncio.run(main())",
    ].join("\n");
    expect(found(FAPIT, FAPI_TEST, bad)).toEqual(["1 FAPIT-003", "2 FAPIT-004", "3 FAPIT-005", "4 FAPIT-005"]);
    const good = [
      "transport = httpx.MockTransport(lambda request: httpx.Response(200, json={}))",
      "app.dependency_overrides[get_settings] = lambda: Settings(signup_open=False)",
      "get_settings.cache_clear()",
      "app.dependency_overrides.clear()",
      "@pytest.mark.anyio",
      "async def test_read(async_client):",
      '    response = await async_client.get("/items/1")',
    ].join("\n");
    expect(found(FAPIT, FAPI_TEST, good)).toEqual([]);
  });
});

const ASPIT = "aspnetcore-integration-testing";
const CS_TEST = "tests/Orders.Api.Tests/OrdersApiTests.cs";

describe("aspnetcore-integration-testing: detectors in C# test projects", () => {
  test("ASPIT-001, ASPIT-003: a TestServer over WebHostBuilder and the EF in-memory provider are found; WebApplicationFactory and Npgsql are left alone", () => {
    const bad = [
      "var server = new TestServer(new WebHostBuilder().UseStartup<TestStartup>());",
      'services.AddDbContext<AppDbContext>(o => o.UseInMemoryDatabase("orders"));',
    ].join("\n");
    expect(found(ASPIT, CS_TEST, bad)).toEqual(["1 ASPIT-001", "2 ASPIT-003"]);
    const good = [
      "public sealed class ApiFactory : WebApplicationFactory<Program>",
      "{",
      '    protected override void ConfigureWebHost(IWebHostBuilder builder) => builder.UseEnvironment("Testing");',
      "}",
      "services.AddDbContext<AppDbContext>(o => o.UseNpgsql(postgres.GetConnectionString()));",
    ].join("\n");
    expect(found(ASPIT, "tests/Orders.Api.Tests/ApiFactory.cs", good)).toEqual([]);
  });

  test("ASPIT-004, ASPIT-005: new HttpClient(), localhost ports and static mutable factories are found; CreateClient, handler-built clients and static readonly options are left alone", () => {
    const bad = [
      "public class OrdersApiTests",
      "{",
      "    private static ApiFactory _factory;",
      "    private static HttpClient? _client = null;",
      "    static AppDbContext Db;",
      "    private readonly HttpClient _plain = new HttpClient();",
      '    private readonly Uri _base = new Uri("http://localhost:5000");',
      "}",
    ].join("\n");
    expect(found(ASPIT, CS_TEST, bad)).toEqual(["3 ASPIT-005", "4 ASPIT-005", "5 ASPIT-005", "6 ASPIT-004", "7 ASPIT-004"]);
    const good = [
      "public sealed class OrdersApiTests(ApiFactory factory) : IClassFixture<ApiFactory>",
      "{",
      "    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);",
      "    private readonly HttpClient _client = factory.CreateClient();",
      "    private readonly HttpClient _stubbed = new HttpClient(new StubHandler());",
      "}",
    ].join("\n");
    expect(found(ASPIT, CS_TEST, good)).toEqual([]);
  });

  test("ASPIT-004, ASPIT-005: browser acceptance projects and an NUnit [SetUpFixture]'s statics are left alone; a scope factory is not an app factory", () => {
    const url = 'private const string RootUrl = "https://localhost:44447/";';
    expect(found(ASPIT, "tests/WebUI.AcceptanceTests/LoginTests.cs", url)).toEqual([]);
    expect(found(ASPIT, "tests/WebUI.IntegrationTests/LoginTests.cs", url)).toEqual(["1 ASPIT-004"]);
    const setUp = [
      "[SetUpFixture]",
      "public partial class Testing",
      "{",
      "    private static CustomWebApplicationFactory _factory = null!;",
      "}",
    ].join("\n");
    expect(found(ASPIT, "tests/Application.IntegrationTests/Testing.cs", setUp)).toEqual([]);
    expect(found(ASPIT, "tests/Application.IntegrationTests/Testing.cs", setUp.replace("[SetUpFixture]\n", ""))).toEqual(["3 ASPIT-005"]);
    expect(found(ASPIT, CS_TEST, "    private static IServiceScopeFactory _scopeFactory = null!;")).toEqual([]);
  });

  test("ASPIT-006, ASPIT-007: AllowAnonymousFilter and process environment variables are found; a test auth scheme and UseSetting are left alone", () => {
    const bad = [
      "services.AddMvc(o => o.Filters.Add(new AllowAnonymousFilter()));",
      'Environment.SetEnvironmentVariable("ConnectionStrings__Orders", cs);',
    ].join("\n");
    expect(found(ASPIT, CS_TEST, bad)).toEqual(["1 ASPIT-006", "2 ASPIT-007"]);
    const good = [
      "services.AddAuthentication(TestAuthHandler.Scheme)",
      "    .AddScheme<AuthenticationSchemeOptions, TestAuthHandler>(TestAuthHandler.Scheme, _ => { });",
      'builder.UseSetting("ConnectionStrings:Orders", cs);',
      'var value = Environment.GetEnvironmentVariable("CI");',
    ].join("\n");
    expect(found(ASPIT, CS_TEST, good)).toEqual([]);
  });

  test("product code is not scanned: Program.cs with the in-memory provider for a demo is no finding of this talent", () => {
    expect(
      found(ASPIT, "src/Orders.Api/Program.cs", 'builder.Services.AddDbContext<AppDbContext>(o => o.UseInMemoryDatabase("demo"));'),
    ).toEqual([]);
  });
});

describe("talentd check --staged in a scratch repository against a live local server", () => {
  let live: LiveEnv;
  beforeAll(async () => {
    live = await liveEnv();
  });
  afterAll(async () => {
    await live.close();
    removeRepos();
  });

  const json = (s: string): any => JSON.parse(s);

  test("the four talents are designated by their test-file globs, report their detectors' findings as advisory (exit 0), and leave the conforming files alone", async () => {
    const p = await clientProject(live, [
      "java-base",
      "java-testing",
      "spring-boot",
      SBT,
      "python-base",
      "pytest",
      "django",
      PDJ,
      "fastapi",
      FAPIT,
      "csharp-base",
      "unit-testing",
      "dotnet-testing",
      "aspnet-core",
      ASPIT,
    ]);
    const repo = gitRepo();
    stage(repo, {
      "src/main/java/com/shop/OrderService.java": "class OrderService {}\n",
      "src/test/java/com/shop/OrderControllerTest.java": "class OrderControllerTest {\n  @MockBean OrderService orders;\n}\n",
      "shop/orders/tests/test_views.py": 'def test_home():\n    c = Client()\n    assert c.get("/").status_code == 200\n',
      "tests/test_items.py":
        'async def test_read():\n    async with AsyncClient(app=app, base_url="http://test") as ac:\n        await ac.get("/items/1")\n',
      "tests/Orders.Api.Tests/OrdersApiTests.cs": "public class OrdersApiTests\n{\n    private static HttpClient _client;\n}\n",
    });
    const prep = await talentd(["prepare", "--staged", "--json"], repo, p.env);
    expect(prep.code).toBe(0);
    const designated = json(prep.stdout).designated as { id: string; because: { path: string } }[];
    for (const id of [SBT, PDJ, FAPIT, ASPIT]) expect(designated.map((d) => d.id)).toContain(id);
    // the Spring testing talent is designated by the test source, never by the service class
    expect(designated.find((d) => d.id === SBT)!.because.path).toBe("src/test/java/com/shop/OrderControllerTest.java");

    const check = await talentd(["check", "--staged", "--json"], repo, p.env);
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    const out = json(check.stdout);
    const mine = out.findings
      .filter((f: any) => [SBT, PDJ, FAPIT, ASPIT].includes(f.talent))
      .map((f: any) => `${f.file}:${f.line} ${f.rule} ${f.severity}`)
      .sort();
    expect(mine).toEqual([
      "shop/orders/tests/test_views.py:2 PDJ-003 advisory",
      "src/test/java/com/shop/OrderControllerTest.java:2 SBT-001 advisory",
      "tests/Orders.Api.Tests/OrdersApiTests.cs:3 ASPIT-005 advisory",
      "tests/test_items.py:2 FAPIT-002 advisory",
    ]);
    expect(out.blocking).toBe(0);

    const clean = gitRepo();
    stage(clean, {
      "src/test/java/com/shop/OrderControllerTest.java": "class OrderControllerTest {\n  @MockitoBean OrderService orders;\n}\n",
      "tests/test_items.py":
        'async def test_read():\n    async with AsyncClient(transport=ASGITransport(app=app), base_url="http://test") as ac:\n        await ac.get("/items/1")\n',
    });
    const ok = await talentd(["check", "--staged", "--json"], clean, p.env);
    expect(ok.code).toBe(0);
    expect(json(ok.stdout).findings.filter((f: any) => [SBT, FAPIT].includes(f.talent))).toEqual([]);

    // product code: the testing talents' triggers.files name test files only (a language designates every talent of it, as for
    // java-testing or pytest), and their detectors read test files only, so the same constructs in product code are no finding
    const product = gitRepo();
    stage(product, {
      "src/main/java/com/shop/OrderController.java": "class OrderController {\n  void poll() throws Exception { Thread.sleep(100); }\n}\n",
      "shop/orders/views.py": "from django.conf import settings\nsettings.DEBUG = True\n",
      "app/main.py": "client = TestClient(app)\n",
      "src/Orders.Api/Program.cs": 'builder.Services.AddDbContext<AppDbContext>(o => o.UseInMemoryDatabase("demo"));\n',
    });
    const prod = await talentd(["prepare", "--staged", "--json"], product, p.env);
    expect(prod.code).toBe(0);
    const reasons = (json(prod.stdout).designated as { id: string; because: { glob?: string; language?: string } }[]).filter((d) =>
      [SBT, PDJ, FAPIT, ASPIT].includes(d.id),
    );
    expect(reasons.filter((d) => d.because.glob !== undefined)).toEqual([]);
    const prodCheck = await talentd(["check", "--staged", "--json"], product, p.env);
    expect(prodCheck.code).toBe(0);
    expect(json(prodCheck.stdout).findings.filter((f: any) => [SBT, PDJ, FAPIT, ASPIT].includes(f.talent))).toEqual([]);
  }, 60_000);
});
