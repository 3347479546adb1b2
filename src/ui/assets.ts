/** Static assets embedded in the binary, served under /assets/ (no CDN: works air-gapped). */
import { Elysia } from "elysia";
import { sha256Hex } from "../lib/crypto";
import { AppError } from "../http/errors";

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
  json: "application/json",
};

/** Serves `/assets/<path>` from the map of assets (the binary's embedded ones: embedded.ts) with an ETag. */
export function assetRoutes(files: Record<string, string>) {
  const assets = new Map(Object.entries(files).map(([path, content]) => [path, { content, etag: `"${sha256Hex(content).slice(0, 16)}"` }]));
  return new Elysia({ name: "assets" }).get("/assets/*", ({ params, request }) => {
    const path = params["*"];
    const asset = assets.get(path);
    if (!asset) throw new AppError("not_found", `No asset ${path}.`);
    const ext = path.split(".").pop() ?? "";
    const headers = {
      "content-type": TYPES[ext] ?? "application/octet-stream",
      etag: asset.etag,
      "cache-control": "public, max-age=3600",
    };
    if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
    return new Response(asset.content, { headers });
  });
}
