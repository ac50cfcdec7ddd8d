import { fileURLToPath } from "node:url";
import path from "node:path";

// Every path the pipeline touches, resolved from the repository root so commands work from any cwd.
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
// Tests point these at temporary folders to exercise the runner with scripted systems.
export const benchScripts = process.env.SAMEBOX_BENCH_SCRIPTS ?? path.join(repoRoot, "bench-scripts");
export const systemsDir = path.join(benchScripts, "systems");
export const studiesDir = path.join(benchScripts, "studies");
export const profilesDir = process.env.SAMEBOX_PROFILES_DIR ?? path.join(repoRoot, "pipeline", "profiles");
export const schemaDir = path.join(repoRoot, "pipeline", "schema");

// data/ and the site's generated files can be redirected (tests use temporary folders).
export function dataDir(): string {
  return process.env.SAMEBOX_DATA_DIR ?? path.join(repoRoot, "data");
}
export function runsDir(): string {
  return path.join(dataDir(), "runs");
}
export function publishedDir(): string {
  return path.join(dataDir(), "published");
}
export function siteDir(): string {
  return process.env.SAMEBOX_SITE_DIR ?? path.join(repoRoot, "site");
}
