/**
 * `bun run bench precision` (docs/precision.md): the hook's precision on real history. Needs local
 * git directories of the corpus (PRECISION_REPOS: a folder holding `<owner>+<name>/repo`,
 * `<owner>+<name>` or `<name>`, bare or not); without them it says so and prints nothing else.
 * PRECISION_COMMITS (default 1000; chi: its 500) first-parent commits per repository, from the pinned head.
 * PRECISION_SAMPLE=K prints up to K unlabelled findings per rule as labels.tsv lines to fill in.
 * PRECISION_ONLY=a,b replays only the repositories whose owner/name contains one of those words.
 * PRECISION_CALIBRATE=1 adds the calibrated mode (calibrated.ts): blocked commits before and after `talentd calibrate`'s rule.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { printTable } from "../lib";
import { blockedAfter, CALIBRATE_HISTORY, calibrationBefore, relaxedBy } from "./calibrated";
import { blockedBy, gitIn, labelKey, LABELS, precision, readLabels, replay, stackTalents, tally, type ReplayFinding } from "./replay";

/** The corpus: well-kept public projects, each with the specializations a team on its stack would apply. */
export const CORPUS = [
  {
    repo: "honojs/hono",
    head: "28a9c128912de19f3fb28b00ae289c9b93f6f392",
    stack: ["typescript-service", "security-baseline", "web-security"],
  },
  {
    repo: "fastapi/fastapi",
    head: "c3f316b7e814667e8ee81e03a7330d00ee61e45c",
    stack: ["python-library", "http-api-design", "security-baseline", "web-security"],
  },
  // the stored snapshot of chi lacks objects beyond its last 500 first-parent commits
  {
    repo: "go-chi/chi",
    head: "735ae2b87f8c733d616e809ae86e0985c1bc3350",
    stack: ["go-service", "security-baseline", "web-security"],
    max: 500,
  },
  { repo: "tokio-rs/axum", head: "3d78036dcac289d6c1d54934708acb6a5bd73686", stack: ["rust-crate", "security-baseline", "web-security"] },
  {
    repo: "spring-projects/spring-petclinic",
    head: "edf4db28affcc4741c79850a3d95bc3f177b5ff9",
    stack: ["spring-boot-service", "security-baseline", "web-security"],
  },
  // the stored snapshot of jhipster-sample-app lacks objects beyond its last 432 first-parent commits
  {
    repo: "jhipster/jhipster-sample-app",
    head: "f8da577c944ecc4db46fc961a1ba022d5bbf8964",
    stack: ["spring-boot-service", "security-baseline", "web-security"],
    max: 430,
  },
  {
    repo: "spring-petclinic/spring-petclinic-kotlin",
    head: "49f13fcbd34d32c45f19b1730a4574b824b08bf2",
    stack: ["kotlin-service", "spring-boot-service", "security-baseline", "web-security"],
  },
  {
    repo: "dotnet/eShop",
    head: "5624ad564d1602a927879df32a79b94522eb6101",
    stack: ["dotnet-service", "security-baseline", "web-security"],
  },
  {
    repo: "jasontaylordev/CleanArchitecture",
    head: "10f1a45df0d86bb87b083f3a0e249d755093fbbd",
    stack: ["dotnet-service", "security-baseline", "web-security"],
  },
  // the Python web and frontend stacks (django-app, fastapi-service, vue-spa, angular-app)
  { repo: "wagtail/wagtail", head: "c2ae43b9265d085c95142cd1a1f8563ad2eb4de9", stack: ["django-app", "security-baseline", "web-security"] },
  {
    repo: "fastapi/full-stack-fastapi-template",
    head: "68adb40d37425f6f8668ec7e5a054500d045e43e",
    stack: ["fastapi-service", "security-baseline", "web-security"],
  },
  { repo: "vbenjs/vue-vben-admin", head: "e3369bd63523831abb24a604da7721ba4f8c8db6", stack: ["vue-spa"] },
  { repo: "angular/components", head: "ef620d83d55275276d313be8ffc47fb5e282068e", stack: ["angular-app"] },
  // where the later talents' stacks are used heavily: DRF, Pydantic v2 services, Vue Test Utils suites
  // the stored snapshots of paperless-ngx and polar lack objects beyond their last 96 and 319 first-parent commits
  {
    repo: "paperless-ngx/paperless-ngx",
    head: "b0e0e8a35373a5d9d588a507cb63c79e50a23403",
    stack: ["django-app", "angular-app", "security-baseline", "web-security"],
    max: 96,
  },
  {
    repo: "polarsource/polar",
    head: "c6c3645e639ee8eeaa05aa0835cf8e39e330382f",
    stack: ["fastapi-service", "security-baseline", "web-security"],
    max: 300,
  },
  { repo: "primefaces/primevue", head: "d4374cb7c1267f35eba7cee5d0a266f50ca8ec84", stack: ["vue-spa"] },
] as const;

function gitDirOf(root: string, repo: string): string | null {
  const [owner, name] = repo.split("/") as [string, string];
  for (const d of [join(root, `${owner}+${name}`, "repo"), join(root, `${owner}+${name}`), join(root, name)]) {
    if (!existsSync(d)) continue;
    return existsSync(join(d, ".git")) ? join(d, ".git") : d;
  }
  return null;
}

export async function benchPrecision(): Promise<void> {
  const root = process.env.PRECISION_REPOS;
  if (!root) {
    console.log("\nprecision: set PRECISION_REPOS to a folder of local clones of the corpus (bench/precision/index.ts); skipped");
    return;
  }
  const commits = Number(process.env.PRECISION_COMMITS ?? 1000);
  const sample = Number(process.env.PRECISION_SAMPLE ?? 0);
  const talentsDir = join(import.meta.dir, "..", "..", "talents");
  const labels = readLabels(LABELS);
  const all: ReplayFinding[] = [];
  const perRepo: (string | number)[][] = [];
  let totalCommits = 0;
  let totalBlocked = 0;
  const ran = new Map<string, number>();
  const only = (process.env.PRECISION_ONLY ?? "").split(",").filter(Boolean);
  // calibrated mode: the window leaves room for the calibration history where the snapshot is short
  const calibrated = process.env.PRECISION_CALIBRATE === "1";
  const calibration: (string | number)[][] = [];
  for (const c of CORPUS) {
    if (only.length > 0 && !only.some((w) => c.repo.toLowerCase().includes(w.toLowerCase()))) continue;
    const gitDir = gitDirOf(root, c.repo);
    if (!gitDir) {
      console.log(`precision: no clone of ${c.repo} under ${root}; skipped`);
      continue;
    }
    const started = performance.now();
    const available = "max" in c ? c.max : Number.POSITIVE_INFINITY;
    // a short snapshot calibrates on its older half
    const history = Math.min(CALIBRATE_HISTORY, Math.floor(available / 2));
    const n = Math.min(commits, calibrated ? available - history : available);
    const talents = stackTalents(talentsDir, c.stack);
    const r = replay(c.repo, gitDir, talents, n, c.head);
    if (calibrated) {
      const before = calibrationBefore(c.repo, gitDir, talents, c.head, n, history);
      const relaxed = before ? relaxedBy(before, talents) : [];
      const after = blockedAfter(r, relaxed);
      calibration.push([
        c.repo,
        before ? before.commits : "none",
        r.commits,
        r.blocked,
        `${((100 * r.blocked) / Math.max(1, r.commits)).toFixed(1)}%`,
        after.blocked,
        `${((100 * after.blocked) / Math.max(1, r.commits)).toFixed(1)}%`,
        relaxed.join(" ") || "-",
        r.findings.length,
      ]);
    }
    const oldest = gitIn(gitDir, ["rev-list", "--first-parent", "--skip", String(n - 1), "-n", "1", c.head]).trim();
    perRepo.push([
      c.repo,
      c.stack.join("+"),
      `${oldest.slice(0, 10)}..${c.head.slice(0, 10)}`,
      r.commits,
      r.findings.length,
      r.blocked,
      `${((100 * r.blocked) / Math.max(1, r.commits)).toFixed(1)}%`,
      blockedBy(r.findings),
      Math.round(performance.now() - started),
    ]);
    totalCommits += r.commits;
    totalBlocked += r.blocked;
    all.push(...r.findings);
    for (const [rule, n] of r.ran) ran.set(rule, (ran.get(rule) ?? 0) + n);
  }
  perRepo.push([
    "all",
    "",
    "",
    totalCommits,
    all.length,
    totalBlocked,
    `${((100 * totalBlocked) / Math.max(1, totalCommits)).toFixed(1)}%`,
    blockedBy(all),
    "",
  ]);
  printTable(
    "precision: `talentd check --base C^` over real history",
    ["repository", "stack", "commits", "replayed", "findings", "blocked", "blocked %", "blocked by (commits)", "ms"],
    perRepo,
  );
  if (calibrated) {
    const sum = (i: number) => calibration.reduce((n, row) => n + Number(row[i] ?? 0), 0);
    calibration.push([
      "all",
      "",
      sum(2),
      sum(3),
      `${((100 * sum(3)) / Math.max(1, sum(2))).toFixed(1)}%`,
      sum(5),
      `${((100 * sum(5)) / Math.max(1, sum(2))).toFixed(1)}%`,
      "",
      sum(8),
    ]);
    printTable(
      `precision, calibrated: talentd calibrate's rule on the ${CALIBRATE_HISTORY} commits before each window, then the window replayed`,
      [
        "repository",
        "calibrated on",
        "replayed",
        "blocked",
        "blocked %",
        "after calibration",
        "after %",
        "rules made advise",
        "findings (all still reported)",
      ],
      calibration,
    );
  }
  const rows = tally(all, labels, ran);
  printTable(
    "precision per rule (labels: bench/precision/labels.tsv; precision = true / labelled)",
    ["rule", "severity", "ran on", "findings", "commits", "true", "false", "debatable", "precision"],
    rows.map((r) => {
      const p = precision(r);
      return [
        r.rule,
        r.severity,
        r.ran,
        r.findings,
        r.commits,
        r.labelled.true,
        r.labelled.false,
        r.labelled.debatable,
        p === null ? "-" : `${Math.round(100 * p)}%`,
      ];
    }),
  );
  if (sample > 0) printSample(all, labels, sample);
}

/** Up to `k` unlabelled findings per rule, spread over the replay, as labels.tsv lines with the label to fill in. */
function printSample(all: readonly ReplayFinding[], labels: ReadonlyMap<string, string>, k: number): void {
  console.log("\n# unlabelled sample: repo commit path line rule label why | text");
  const byRule = new Map<string, ReplayFinding[]>();
  for (const f of all)
    if (!labels.has(labelKey(f.repo, f.commit, f.file, f.line, f.rule))) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
  for (const list of byRule.values()) {
    const step = Math.max(1, Math.floor(list.length / k));
    for (let i = 0; i < list.length && i / step < k; i += step) {
      const f = list[i]!;
      console.log(`${labelKey(f.repo, f.commit, f.file, f.line, f.rule)}\t?\t\t| ${f.text.trim().slice(0, 160)}`);
    }
  }
}
