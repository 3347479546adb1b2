/**
 * Service files: "a systemd unit (with the hardening options systemd offers:
 * `NoNewPrivileges`, `ProtectSystem=strict`, `ReadWritePaths=` the data folder, …) and a
 * container image definition (distroless or similar, non-root, data on a volume) in the
 * repository …; `talentd serve` handles SIGTERM/SIGHUP as those expect. A test runs the
 * container definition's build steps where the machine allows it, or checks the unit with
 * `systemd-analyze verify` (Debian)."
 *
 * This machine has Debian's systemd-analyze (.ci/run installs it) and a docker client without
 * an engine: the unit is verified and scored; the image is built and run only where `docker
 * info` answers, and otherwise its runtime stage is played on this machine (its user, its
 * environment, a data folder owned by that user, its stop signal).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, talentMd, tempDir, writeFiles } from "../helpers";
import { eventually, freePort, waitReady } from "../proc";

const { dir, cleanup } = tempDir();
afterAll(cleanup);
/** The container's volume, outside `dir` (0700, which the image's user could not enter). */
const parent = tempDir("talentd-volume-");
afterAll(parent.cleanup);

const UNIT = readFileSync(join(ROOT, "deploy", "talentd.service"), "utf8");
const DOCKERFILE = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const SYSTEMD_ANALYZE = Bun.which("systemd-analyze");

/** `Key=value` settings of the unit's [Service] section (a key may repeat). */
function serviceSettings(unit: string): [string, string][] {
  const section = unit.split(/^\[Service\]$/m)[1]!.split(/^\[/m)[0]!;
  return section
    .split("\n")
    .filter((l) => /^[A-Za-z]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as [string, string]);
}

/** The unit with ExecStart pointing at an executable that exists here (verify checks the path). */
function unitForThisMachine(): string {
  const file = join(dir, "talentd.service");
  writeFileSync(file, UNIT.replace(/^ExecStart=\/usr\/local\/bin\/talentd /m, `ExecStart=${BUN} `));
  return file;
}

describe("the systemd unit (deploy/talentd.service)", () => {
  test("`systemd-analyze verify` finds nothing to say about it (Debian's systemd; .ci/run installs it)", () => {
    expect(SYSTEMD_ANALYZE).not.toBeNull();
    const r = Bun.spawnSync([SYSTEMD_ANALYZE!, "verify", unitForThisMachine()], { stdout: "pipe", stderr: "pipe" });
    // verify exits 0 even for an unknown key or a bad value, printing a line: the output must be empty
    expect({ code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() }).toEqual({ code: 0, out: "" });
  });

  test("the hardening systemd offers: NoNewPrivileges, ProtectSystem=strict, ReadWritePaths= the data folder, no capabilities, a syscall filter…; `systemd-analyze security` rates it OK (exposure below 2.0)", () => {
    const s = serviceSettings(UNIT);
    const get = (k: string) => s.filter(([key]) => key === k).map(([, v]) => v);
    const dataDir = /^DATA_DIR=(.+)$/.exec(get("Environment")[0]!)![1]!;
    expect(dataDir).toBe("/var/lib/talentd");
    expect(get("ReadWritePaths")).toEqual([dataDir]);
    expect(get("StateDirectory")).toEqual(["talentd"]); // systemd creates /var/lib/talentd for the user
    for (const [k, v] of [
      ["NoNewPrivileges", "yes"],
      ["ProtectSystem", "strict"],
      ["ProtectHome", "yes"],
      ["PrivateTmp", "yes"],
      ["PrivateDevices", "yes"],
      ["ProtectKernelTunables", "yes"],
      ["ProtectKernelModules", "yes"],
      ["ProtectControlGroups", "yes"],
      ["RestrictNamespaces", "yes"],
      ["RestrictSUIDSGID", "yes"],
      ["LockPersonality", "yes"],
      ["CapabilityBoundingSet", ""],
      ["SystemCallArchitectures", "native"],
      ["User", "talentd"],
      ["KillSignal", "SIGTERM"],
      ["ExecReload", "/bin/kill -HUP $MAINPID"],
      ["Type", "exec"],
    ]) {
      expect({ k, v: get(k!) }).toEqual({ k, v: [v!] });
    }
    expect(get("SystemCallFilter")).toEqual(["@system-service", "~@privileged"]);
    expect(get("MemoryDenyWriteExecute")).toEqual([]); // the JIT needs writable code pages
    const r = Bun.spawnSync([SYSTEMD_ANALYZE!, "security", "--offline=true", unitForThisMachine()], { stdout: "pipe", stderr: "pipe" });
    const m = /Overall exposure level for talentd\.service: ([\d.]+) (\w+)/.exec(r.stdout.toString() + r.stderr.toString());
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(2.0);
    expect(m![2]).toBe("OK");
  });
});

/** Dockerfile instructions of the last stage (the image that runs). */
function runtimeStage(): Map<string, string[]> {
  const lines = DOCKERFILE.replace(/\\\n/g, " ")
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"));
  const last = lines.findLastIndex((l) => l.startsWith("FROM "));
  const out = new Map<string, string[]>();
  for (const l of lines.slice(last)) {
    const [op, ...rest] = l.trim().split(/\s+/);
    out.set(op!, [...(out.get(op!) ?? []), rest.join(" ")]);
  }
  return out;
}

describe("the container image (Dockerfile)", () => {
  const stage = runtimeStage();
  const env = Object.fromEntries(
    stage
      .get("ENV")![0]!
      .split(/\s+/)
      .map((kv) => kv.split("=") as [string, string]),
  );

  test("distroless, non-root, data on a volume, the binary as entrypoint, SIGTERM to stop", () => {
    expect(stage.get("FROM")).toEqual(["gcr.io/distroless/cc-debian12:nonroot"]);
    expect(stage.get("USER")).toEqual(["65532:65532"]);
    expect(env).toEqual({ DATA_DIR: "/data", HOST: "0.0.0.0", PORT: "8787" });
    expect(stage.get("VOLUME")).toEqual(['["/data"]']);
    expect(stage.get("COPY")).toContain("--from=build --chown=65532:65532 /out/data /data"); // the volume starts owned by the user
    expect(stage.get("COPY")).toContain("--from=build /out/talentd /usr/local/bin/talentd");
    expect(stage.get("ENTRYPOINT")).toEqual(['["/usr/local/bin/talentd"]']);
    expect(stage.get("CMD")).toEqual(['["serve"]']);
    expect(stage.get("STOPSIGNAL")).toEqual(["SIGTERM"]);
    expect(stage.get("EXPOSE")).toEqual([env.PORT!]);
    // the build stage builds with the project's own build (build.ts), from a clean install
    expect(DOCKERFILE).toContain("RUN npm ci\n");
    expect(DOCKERFILE).toContain("RUN npx bun run build");
    expect(readFileSync(join(ROOT, ".dockerignore"), "utf8")).toMatch(/^node_modules$/m);
  });

  const engine = Bun.which("docker") !== null && Bun.spawnSync(["docker", "info"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  test.skipIf(!engine)(
    "with a container engine: the image builds, serves /readyz as its non-root user and stops with exit 0 on `docker stop`",
    async () => {
      const tag = `talentd-test:${Date.now()}`;
      const build = Bun.spawnSync(["docker", "build", "-t", tag, ROOT], { stdout: "pipe", stderr: "pipe" });
      expect(build.exitCode).toBe(0);
      const port = await freePort();
      const run = Bun.spawnSync(["docker", "run", "-d", "-p", `127.0.0.1:${port}:8787`, tag], { stdout: "pipe" });
      const id = run.stdout.toString().trim();
      try {
        await waitReady(`http://127.0.0.1:${port}`, 60_000);
        expect(Bun.spawnSync(["docker", "exec", id, "/usr/local/bin/talentd", "doctor", "--local"]).exitCode).not.toBe(1);
      } finally {
        Bun.spawnSync(["docker", "stop", id]);
      }
      expect(Bun.spawnSync(["docker", "inspect", "-f", "{{.State.ExitCode}}", id], { stdout: "pipe" }).stdout.toString().trim()).toBe("0");
      Bun.spawnSync(["docker", "rm", id]);
      Bun.spawnSync(["docker", "rmi", tag]);
    },
    600_000,
  );

  test.skipIf(process.getuid?.() !== 0)(
    "its runtime stage played here: as uid 65532 with the image's environment and a data folder that user owns, serve starts, writes only there, and its STOPSIGNAL stops it with exit 0",
    async () => {
      chmodSync(parent.dir, 0o755); // mkdtemp makes it 0700: the user must reach its volume
      const data = join(parent.dir, "data");
      mkdirSync(data);
      chownSync(data, 65532, 65532);
      const port = await freePort();
      // the image's binary, built as the image builds it and put where that user can run it (the
      // checkout itself may sit in a folder only root can enter, as a clone under mktemp -d does)
      const build = Bun.spawnSync([BUN, "build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      expect(build.exitCode).toBe(0);
      const bin = join(parent.dir, "talentd");
      copyFileSync(join(ROOT, "dist", "talentd"), bin);
      chmodSync(bin, 0o755);
      const [uid, gid] = stage.get("USER")![0]!.split(":");
      const proc = Bun.spawn(
        ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--no-new-privs", bin, ...JSON.parse(stage.get("CMD")![0]!)],
        {
          cwd: data,
          env: { PATH: process.env.PATH ?? "", ...env, DATA_DIR: data, PORT: String(port), HOST: "127.0.0.1", HOME: data },
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      try {
        await waitReady(`http://127.0.0.1:${port}`);
      } finally {
        proc.kill(stage.get("STOPSIGNAL")![0]! as NodeJS.Signals);
      }
      expect(await proc.exited).toBe(0);
      const db = statSync(join(data, "talentd.db"));
      expect({ uid: db.uid, gid: db.gid }).toEqual({ uid: 65532, gid: 65532 });
    },
    60_000,
  );
});

describe("signals: SIGTERM stops, SIGHUP reloads the catalog (systemctl reload, docker kill -s HUP)", () => {
  test("SIGHUP reads TALENTS_DIR again: a talent added to it is served (readiness digest changes), a broken one is skipped with a logged reason, the server keeps serving; SIGTERM then exits 0", async () => {
    const talents = join(dir, "talents");
    writeFiles(talents, { "house-style/TALENT.md": talentMd("house-style") });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = Bun.spawn(
      [BUN, join(ROOT, "src", "main.ts"), "serve", "--port", String(port), "--host", "127.0.0.1", "--talents-dir", talents],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", DATA_DIR: join(dir, "hup-data"), LOG_FORMAT: "json", ACCESS_LOG: "false" },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const ready = async () => (await (await fetch(`${base}/readyz`)).json()) as { catalog: { talents: number; digest: string } };
    try {
      await waitReady(base);
      const before = await ready();
      writeFiles(talents, {
        "team-rules/TALENT.md": talentMd("team-rules"),
        "broken-one/TALENT.md": talentMd("broken-one", { budget: "99999" }),
      });
      proc.kill("SIGHUP");
      expect(await eventually(async () => (await ready()).catalog.talents === before.catalog.talents + 1)).toBe(true);
      const after = await ready();
      expect(after.catalog.digest).not.toBe(before.catalog.digest);
      const catalog = (await (await fetch(`${base}/healthz`)).json()) as { status: string };
      expect(catalog.status).toBe("ok");
      // a second SIGHUP with nothing changed: same catalog, still serving
      proc.kill("SIGHUP");
      await Bun.sleep(300);
      expect((await ready()).catalog.digest).toBe(after.catalog.digest);
      expect(proc.exitCode).toBeNull();
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const out = (await new Response(proc.stdout).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const err = (await new Response(proc.stderr).text())
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const reloads = out.filter((l) => l.msg === "catalog reloaded (SIGHUP)");
    expect(reloads).toHaveLength(2);
    expect(err.some((l) => l.msg === "talent skipped" && String(l.finding).includes("broken-one"))).toBe(true);
    expect(out.at(-1)).toMatchObject({ msg: "stopped" });
  }, 30_000);
});
