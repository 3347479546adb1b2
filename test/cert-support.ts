/** A self-signed certificate for SAML tests, made by openssl (no IdP library loaded). */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A self-signed RSA key and certificate (openssl), PEM; `san` (e.g. `IP:127.0.0.1`) makes it a TLS server's. */
export function selfSignedCert(cn = "test-idp", san?: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "talentd-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-days",
        "30",
        "-subj",
        `/CN=${cn}`,
        ...(san ? ["-addext", `subjectAltName=${san}`] : []),
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
