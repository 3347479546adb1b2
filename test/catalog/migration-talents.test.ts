/**
 * The migration talents' detectors, run as `talentd check` runs them: each finds what the upgrade
 * must change (the forms the corpus's projects changed when they moved) and leaves the new forms alone.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Talent } from "../../src/catalog/format";
import { readTalentDir } from "../../src/catalog/load";
import { validateTalent } from "../../src/catalog/validate";
import { runDetectors } from "../../src/client/check";
import type { AddedFile } from "../../src/client/git";
import { designate } from "../../src/client/match";
import { servedObligationOf } from "../../src/client/served";

const TALENTS = join(import.meta.dir, "..", "..", "talents");
const talents = new Map<string, Talent>();
for (const s of readTalentDir(TALENTS).sources) {
  const t = validateTalent(s).talent;
  if (t) talents.set(t.id, t);
}

function found(id: string, path: string, text: string): string[] {
  const file: AddedFile = { path, lines: text.split("\n").map((t, i) => ({ line: i + 1, text: t })) };
  return runDetectors([servedObligationOf(talents.get(id)!)], [file], () => text).findings.map((f) => `${f.line} ${f.rule}`);
}
const lines = (...l: string[]) => l.join("\n");

describe("spring-boot-4-migration: what a Boot 3.5 codebase must change, the Boot 4 forms left alone", () => {
  test("build files: the deprecated web starter, Undertow, Flyway without its starter; webflux, web-services and the Flyway starter are fine", () => {
    const old = lines(
      "  implementation 'org.springframework.boot:spring-boot-starter-web'",
      "  implementation 'org.springframework.boot:spring-boot-starter-undertow'",
      "  implementation 'org.flywaydb:flyway-core'",
    );
    expect(found("spring-boot-4-migration", "build.gradle", old)).toEqual(["1 SB4-002", "2 SB4-009", "3 SB4-008"]);
    const boot4 = lines(
      "  implementation 'org.springframework.boot:spring-boot-starter-webmvc'",
      "  implementation 'org.springframework.boot:spring-boot-starter-webflux'",
      "  implementation 'org.springframework.boot:spring-boot-starter-web-services'",
      "  implementation 'org.springframework.boot:spring-boot-starter-flyway'",
      "  implementation 'org.flywaydb:flyway-core'",
    );
    expect(found("spring-boot-4-migration", "build.gradle", boot4)).toEqual([]);
  });

  test("tests: old slice packages, @MockBean, TestRestTemplate without its opt-in, Testcontainers 1 packages; the Boot 4 forms are fine", () => {
    const old = lines(
      "import org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest;",
      "import org.springframework.boot.test.mock.mockito.MockBean;",
      "import org.testcontainers.containers.MySQLContainer;",
      "",
      "@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)",
      "class CrashControllerIntegrationTests {",
      "    @MockBean",
      "    private OwnerRepository owners;",
      "    @Autowired",
      "    private TestRestTemplate rest;",
      "}",
    );
    expect(found("spring-boot-4-migration", "src/test/java/a/CrashControllerIntegrationTests.java", old)).toEqual([
      "1 SB4-003",
      "2 SB4-004",
      "3 SB4-011",
      "5 SB4-005",
      "7 SB4-004",
    ]);
    const boot4 = lines(
      "import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;",
      "import org.springframework.test.context.bean.override.mockito.MockitoBean;",
      "import org.testcontainers.mysql.MySQLContainer;",
      "",
      "@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)",
      "@AutoConfigureTestRestTemplate",
      "class CrashControllerIntegrationTests {",
      "    @MockitoBean",
      "    private OwnerRepository owners;",
      "    @Autowired",
      "    private TestRestTemplate rest;",
      "}",
    );
    expect(found("spring-boot-4-migration", "src/test/java/a/CrashControllerIntegrationTests.java", boot4)).toEqual([]);
  });

  test("designated by the build, the properties and the test sources the upgrade edits, not by a service class", () => {
    const t = talents.get("spring-boot-4-migration")!;
    const designable = [{ id: t.id, triggers: { files: t.triggers.files }, languages: t.languages }];
    for (const p of [
      "pom.xml",
      "api/build.gradle.kts",
      "src/main/resources/application.properties",
      "src/test/java/a/OwnerControllerTests.java",
    ])
      expect(designate(designable, [p], []).map((d) => d.id)).toEqual([t.id]);
    expect(designate(designable, ["src/main/java/a/OwnerController.java"], [])).toEqual([]);
  });
});

describe("dotnet-10-migration: what a .NET 8/9 solution must change, the .NET 10 forms left alone", () => {
  test("project and package files: a net9.0 target, a 9.x ASP.NET Core or EF Core package, System.Linq.Async; a multi-targeted library and packages on their own trains are fine", () => {
    const old = lines(
      "<TargetFramework>net9.0</TargetFramework>",
      '<PackageVersion Include="Microsoft.EntityFrameworkCore.Tools" Version="9.0.4" />',
      '<PackageVersion Include="System.Linq.Async" Version="6.0.1" />',
    );
    expect(found("dotnet-10-migration", "src/Catalog.API/Catalog.API.csproj", old)).toEqual(["1 NET10-001", "2 NET10-002", "3 NET10-003"]);
    const net10 = lines(
      "<TargetFramework>net10.0</TargetFramework>",
      "<TargetFrameworks>net8.0;net10.0</TargetFrameworks>",
      '<PackageVersion Include="Microsoft.EntityFrameworkCore.Tools" Version="10.0.1" />',
      '<PackageVersion Include="Microsoft.Extensions.Http.Resilience" Version="9.10.0" />',
      '<PackageReference Include="Microsoft.AspNetCore.Components.WebView.Maui" Version="9.0.30" />',
    );
    expect(found("dotnet-10-migration", "src/Catalog.API/Catalog.API.csproj", net10)).toEqual([]);
  });

  test("code: WebHost, WithOpenApi, OpenAPI.NET 1 namespaces, a suppression without its justification over several lines", () => {
    const old = lines(
      "using Microsoft.OpenApi.Models;",
      "var host = WebHost.CreateDefaultBuilder(args).UseStartup<Startup>().Build();",
      'group.MapGet("/", GetTodoLists).WithOpenApi();',
      '[UnconditionalSuppressMessage("Trimming",',
      '    "IL2026:RequiresUnreferencedCode")]',
    );
    expect(found("dotnet-10-migration", "src/Web/Program.cs", old)).toEqual(["1 NET10-004", "2 NET10-005", "3 NET10-006", "4 NET10-009"]);
    const net10 = lines(
      "using Microsoft.OpenApi;",
      "var builder = WebApplication.CreateBuilder(args);",
      'group.MapGet("/", GetTodoLists).WithSummary("Todo lists");',
      '[UnconditionalSuppressMessage("Trimming", "IL2026:RequiresUnreferencedCode",',
      '    Justification = "EventBusOptions is a plain options class whose public properties are preserved.")]',
    );
    expect(found("dotnet-10-migration", "src/Web/Program.cs", net10)).toEqual([]);
  });

  test("designated by project, package and SDK files and the host's Program.cs, not by a controller", () => {
    const t = talents.get("dotnet-10-migration")!;
    const designable = [{ id: t.id, triggers: { files: t.triggers.files }, languages: t.languages }];
    for (const p of ["global.json", "Directory.Packages.props", "src/Web/Web.csproj", "src/Web/Program.cs"])
      expect(designate(designable, [p], []).map((d) => d.id)).toEqual([t.id]);
    expect(designate(designable, ["src/Web/Controllers/OrdersController.cs"], [])).toEqual([]);
  });
});
