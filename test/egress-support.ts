/** For the egress tests: listeners on 127.0.0.1 that count the TCP connections they accepted, and a certificate for a name. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CountingListener {
  port: number;
  /** TCP connections accepted so far (an internal service must see none). */
  connections: number;
  /** The request heads received (first line and headers). */
  heads: string[];
  stop(): Promise<void>;
}

/**
 * A plain TCP listener that answers every HTTP request with `answer(head)` (a whole HTTP/1.1
 * response, or a promise of one, or null for no answer); by default 200 "ok". Counting at the TCP level catches any attempt (TLS, HTTP).
 */
export async function countingListener(
  answer: (head: string) => string | null | Promise<string | null> = () =>
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
): Promise<CountingListener> {
  const sockets = new Set<Socket>();
  const l: CountingListener = { port: 0, connections: 0, heads: [], stop: async () => {} };
  const server = createServer((socket) => {
    l.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (d) => {
      buffered += d.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffered.slice(0, end);
      buffered = "";
      l.heads.push(head);
      void Promise.resolve(answer(head)).then((out) => out !== null && !socket.destroyed && socket.end(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  l.port = (server.address() as { port: number }).port;
  l.stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return l;
}

/** An HTTP/1.1 response with a status, headers and a body. */
export function httpAnswer(status: number, headers: Record<string, string> = {}, body = ""): string {
  const lines = Object.entries({ "content-length": String(Buffer.byteLength(body)), connection: "close", ...headers }).map(
    ([k, v]) => `${k}: ${v}`,
  );
  return `HTTP/1.1 ${status} X\r\n${lines.join("\r\n")}\r\n\r\n${body}`;
}

/** A self-signed certificate for `name` (subjectAltName DNS:name), by openssl. */
export function certFor(name: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "talentd-egress-cert-"));
  try {
    const args = [
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
      "2",
    ];
    execFileSync("openssl", [...args, "-subj", `/CN=${name}`, "-addext", `subjectAltName=DNS:${name}`], { stdio: "ignore" });
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
