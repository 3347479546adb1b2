/**
 * The generated CI validation (docs/api.md "CI validation"):
 * a GitHub Actions workflow, a GitLab CI job or a plain shell script that runs `talentd ci
 * verify` (docs/design.md "The binary and its client") with the automation key taken from the CI's secrets under the name
 * TALENTD_KEY. No key is created or shown here: POST /web/projects/:id/token makes the key.
 *
 * The CI job gets its talentd from this server (`GET /download/talentd`: the running binary), so
 * the client always speaks the server's version and nothing outside the installation is needed.
 */
import { Elysia } from "elysia";
import type { CoreDeps } from "../../deps";
import type { Guards } from "../../auth/guards";
import { notFound } from "../../http/errors";
import { oneOf } from "../../http/query";
import { getProject, type Project } from "../service";
import { routeGuard, routePattern } from "../../http/route";
import { PROJECT } from "../describe";

export const VALIDATOR_TARGETS = ["github", "gitlab", "script"] as const;
export type ValidatorTarget = (typeof VALIDATOR_TARGETS)[number];

/** The secret (or CI variable) the generated files read the automation key from. */
export const KEY_SECRET = "TALENTD_KEY";
/** actions/checkout v4.2.2, pinned to its commit (ci-pipelines CI-001). */
const CHECKOUT = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2";
/** A Debian image with curl and CA certificates (the binary needs glibc). */
const GITLAB_IMAGE = "buildpack-deps:bookworm-curl";

/** Text for a comment line: no line breaks or control characters (a project name cannot add YAML). */
const commentText = (s: string): string => s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
/** A URL for a double-quoted shell word. */
const shellUrl = (s: string): string => s.replace(/["$`\\]/g, "");

/** The GitHub Actions workflow. */
function githubWorkflow(about: string[], url: string): string {
  return [
    ...about,
    `# Needs the repository secret ${KEY_SECRET}: the project's automation key (scope doctor).`,
    "# Pull requests from forks get no secrets, so the job is skipped for them.",
    "name: talentd",
    "on:",
    "  push:",
    "  pull_request:",
    "permissions:",
    "  contents: read",
    "jobs:",
    "  talentd-verify:",
    "    if: github.event_name != 'pull_request' || github.event.pull_request.head.repo.full_name == github.repository",
    "    runs-on: ubuntu-latest",
    "    timeout-minutes: 5",
    "    env:",
    `      TALENTD_URL: ${JSON.stringify(url)}`,
    `      ${KEY_SECRET}: \${{ secrets.${KEY_SECRET} }}`,
    "    steps:",
    `      - uses: ${CHECKOUT}`,
    "      - name: Install talentd from the server",
    "        run: |",
    '          curl -fsSL --retry 3 -o "$RUNNER_TEMP/talentd" "$TALENTD_URL/download/talentd"',
    '          chmod +x "$RUNNER_TEMP/talentd"',
    "      - name: talentd ci verify",
    "        run: |",
    '          "$RUNNER_TEMP/talentd" ci verify',
    "",
  ].join("\n");
}

/** The GitLab CI job. */
function gitlabJob(about: string[], url: string): string {
  return [
    ...about,
    `# Needs the CI/CD variable ${KEY_SECRET} (masked): the project's automation key (scope doctor).`,
    "# Include this file from .gitlab-ci.yml:",
    "#   include:",
    "#     - local: .gitlab/ci/talentd.yml",
    "talentd-verify:",
    "  stage: test",
    `  image: ${GITLAB_IMAGE}`,
    "  timeout: 5 minutes",
    "  variables:",
    `    TALENTD_URL: ${JSON.stringify(url)}`,
    "  script:",
    '    - curl -fsSL --retry 3 -o /tmp/talentd "$TALENTD_URL/download/talentd"',
    "    - chmod +x /tmp/talentd",
    "    - /tmp/talentd ci verify",
    "",
  ].join("\n");
}

/** The plain shell script. */
function shellScript(about: string[], url: string): string {
  return [
    "#!/bin/sh",
    ...about,
    `# Runs with sh and curl on any CI: give it ${KEY_SECRET} (the project's automation key) from the`,
    "# CI's secrets. Uses the talentd on PATH, else downloads this server's.",
    "# Exit codes: 0 ok, 1 problems (one line each), 2 configuration or connection errors.",
    "set -eu",
    `TALENTD_URL="\${TALENTD_URL:-${shellUrl(url)}}"`,
    "export TALENTD_URL",
    `if [ -z "\${${KEY_SECRET}:-}" ]; then`,
    `  echo "talentd-verify: ${KEY_SECRET} is not set: give it the project's automation key from the CI's secrets" >&2`,
    "  exit 2",
    "fi",
    "if command -v talentd >/dev/null 2>&1; then",
    "  talentd=talentd",
    "else",
    '  talentd="${TMPDIR:-/tmp}/talentd-$$"',
    "  trap 'rm -f \"$talentd\"' EXIT",
    '  curl -fsSL --retry 3 -o "$talentd" "$TALENTD_URL/download/talentd"',
    '  chmod +x "$talentd"',
    "fi",
    '"$talentd" ci verify',
    "",
  ].join("\n");
}

/** The generated CI validation file for a target (GitHub, GitLab, a shell script), with a header naming the project. */
export function validatorConfig(
  target: ValidatorTarget,
  ctx: { baseUrl: string; project: Pick<Project, "id" | "name"> },
): { target: ValidatorTarget; file: string; content: string } {
  const who = `project "${commentText(ctx.project.name)}" (${ctx.project.id})`;
  const url = ctx.baseUrl;
  const about = [
    `# talentd ci verify for ${who}, generated by ${commentText(url)}.`,
    "# Fails when the project's selection has a missing prerequisite or a conflict, or when",
    "# .talentd/lock.json (written by `talentd lock`, committed) no longer matches the project.",
  ];
  switch (target) {
    case "github":
      return { target, file: ".github/workflows/talentd.yml", content: githubWorkflow(about, url) };
    case "gitlab":
      return { target, file: ".gitlab/ci/talentd.yml", content: gitlabJob(about, url) };
    case "script":
      return { target, file: "talentd-verify.sh", content: shellScript(about, url) };
  }
}

/** True when this process is the built talentd binary (not bun running the sources). */
const isCompiled = (): boolean => import.meta.url.includes("/$bunfs/");

export function validatorConfigRoutes(deps: CoreDeps, guards: Guards) {
  return (
    new Elysia()
      .use(guards)
      .get(
        routePattern(PROJECT.validatorConfig),
        async ({ org, params, query }) => {
          const project = await getProject(deps.database, org.id, params.id);
          const target = oneOf(query, "target", VALIDATOR_TARGETS) ?? "github";
          return validatorConfig(target, { baseUrl: deps.config.baseUrl, project });
        },
        routeGuard(PROJECT.validatorConfig),
      )
      // the client for CI jobs: this very binary (it embeds only the public catalog and assets)
      .get("/download/talentd", () => {
        if (!isCompiled())
          throw notFound(
            "This server runs from its sources, not from the built binary: build it (npm run build) to serve dist/talentd here, " +
              "or put talentd on the CI runner's PATH.",
          );
        return new Response(Bun.file(process.execPath), {
          headers: {
            "content-type": "application/octet-stream",
            "content-disposition": 'attachment; filename="talentd"',
            "cache-control": "no-cache",
          },
        });
      })
  );
}
