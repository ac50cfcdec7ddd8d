// The one writer of data/runs/<run-id>/manifest.json. The runner changes the manifest object and
// calls write(); the summary and the config hash are derived here, so they can never disagree with the cells.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RunManifest } from "../schema/types.ts";
import { assertValid, validateManifest } from "../lib/schema.ts";
import { UserError } from "../lib/errors.ts";
export { deadRunnerReason, runnerIdentity } from "../lib/liveness.ts";

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

export class ManifestWriter {
  readonly file: string;
  readonly manifest: RunManifest;
  /** Per system, the config that goes into the config hash (the manifest's systems[*].config). */
  constructor(runDir: string, manifest: RunManifest) {
    this.file = path.join(runDir, "manifest.json");
    this.manifest = manifest;
  }

  static read(runDir: string): RunManifest {
    const file = path.join(runDir, "manifest.json");
    if (!existsSync(file))
      throw new UserError(`${runDir} has no manifest.json: not a run folder (runs are in data/runs/<run-id>/)`);
    const m: unknown = JSON.parse(readFileSync(file, "utf8"));
    assertValid(validateManifest, m, `manifest ${file}`);
    return m;
  }

  /** Writes atomically (a temporary file renamed over the old one), so a runner killed mid-write leaves the previous manifest, never half of one. */
  write(): void {
    const m = this.manifest;
    const summary = { ok: 0, failed: 0, skipped: 0, wrong_answer: 0, noisy: 0 };
    for (const c of m.cells) summary[c.status]++;
    m.summary = summary;
    const systemsConfig = Object.fromEntries(Object.entries(m.systems).map(([k, v]) => [k, v.config]));
    m.config_hash = createHash("sha256")
      .update(canonicalJson({ config: m.config, systems: systemsConfig }))
      .digest("hex");
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(m, null, 2) + "\n");
    renameSync(tmp, this.file);
  }

  /** The final write: checks the manifest against its schema, so a run never ends with an invalid one. */
  close(status: "complete" | "interrupted", startedAtMs: number, loadEnd: number[]): void {
    const m = this.manifest;
    const ended = new Date();
    if (m.load_average) m.load_average.end = loadEnd;
    m.status = status;
    m.ended_at = ended.toISOString();
    m.duration_s = Math.round((ended.getTime() - startedAtMs) / 100) / 10;
    this.write();
    assertValid(validateManifest, m, `manifest of ${m.run_id}`);
  }
}

/**
 * A cloud box's cost stored as the run's `cost` (samebox cost, called by terraform/scripts/finish_run.sh
 * with run_cost.py's block): only when the manifest has none, so a collected run is never re-priced.
 * Returns false when a cost was already there. The manifest and the new block are checked against the schema.
 */
export function storeCost(runDir: string, block: unknown): boolean {
  const m = ManifestWriter.read(runDir);
  if (m.cost !== undefined && m.cost !== null) return false;
  const withCost = { ...m, cost: block } as RunManifest;
  assertValid(validateManifest, withCost, `manifest ${path.join(runDir, "manifest.json")} with this cost`);
  new ManifestWriter(runDir, withCost).write();
  return true;
}
