// Astro config for the samebox report site (sources in site/).
// Environment:
//   SAMEBOX_BASE      base path when served from a sub-folder (GitHub Pages project site), e.g. "/samebox/"
//   SAMEBOX_SITE_URL  absolute site URL (optional; only used for canonical links)
//   SAMEBOX_SITE_DIR  folder holding src/generated/*.json and public/data/* written by `samebox publish`
//                     (default: site/) — tests point it at a fixture folder
//   SAMEBOX_OUT_DIR   build output folder (default: site/dist)
import { defineConfig } from "astro/config";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createReadStream, createWriteStream, existsSync, readdirSync, statSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";

const repoRoot = path.dirname(fileURLToPath(import.meta.url));

function normaliseBase(raw) {
  const value = (raw ?? "/").trim() || "/";
  if (!/^\/[A-Za-z0-9._~\/-]*$/.test(value)) {
    throw new Error(`SAMEBOX_BASE="${raw}" is not a URL path; use e.g. "/" or "/samebox/"`);
  }
  return value.endsWith("/") ? value : `${value}/`;
}

const base = normaliseBase(process.env.SAMEBOX_BASE);
const siteDataDir = path.resolve(repoRoot, process.env.SAMEBOX_SITE_DIR ?? "site");
// The build runs in this process: pages read the resolved folder from here (site/src/lib/data.ts).
process.env.SAMEBOX_RESOLVED_SITE_DIR = siteDataDir;

// Explore's DuckDB wasm (34 MB) is also written gzip-compressed (~8 MB) next to itself: the page fetches
// the .gz and inflates it with DecompressionStream, so a host that does not compress .wasm (astro
// preview, many static hosts) still sends 8 MB, not 34. The uncompressed file stays as the fallback.
const gzipWasm = {
  name: "samebox-gzip-wasm",
  hooks: {
    "astro:build:done": async ({ dir, logger }) => {
      const assets = path.join(fileURLToPath(dir), "_astro");
      if (!existsSync(assets)) return;
      for (const f of readdirSync(assets).filter((n) => n.endsWith(".wasm"))) {
        const src = path.join(assets, f);
        await pipeline(createReadStream(src), createGzip({ level: 7 }), createWriteStream(`${src}.gz`));
        logger.info(`${f}: ${statSync(src).size} bytes, gzip ${statSync(`${src}.gz`).size}`);
      }
    },
  },
};

export default defineConfig({
  integrations: [gzipWasm],
  root: repoRoot,
  srcDir: "./site/src",
  publicDir: path.join(siteDataDir, "public"),
  outDir: path.resolve(repoRoot, process.env.SAMEBOX_OUT_DIR ?? "site/dist"),
  cacheDir: "./site/.astro",
  base,
  site: process.env.SAMEBOX_SITE_URL || undefined,
  trailingSlash: "ignore",
  build: { format: "directory", inlineStylesheets: "always" },
  devToolbar: { enabled: false },
  // Keep authored whitespace: compression dropped the spaces between text and inline elements.
  compressHTML: false,
  vite: {
    // DuckDB-WASM ships its own workers and .wasm; they are imported with ?url and must stay files.
    optimizeDeps: { exclude: ["@duckdb/duckdb-wasm"] },
    build: { assetsInlineLimit: 0, chunkSizeWarningLimit: 2000 },
  },
});
