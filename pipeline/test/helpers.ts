import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const testDir = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(testDir, "..", "..");
export const fixtures = path.join(testDir, "fixtures");
export const nodeBin = process.execPath;

export function tempDir(prefix = "samebox-test-"): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Runs the real CLI in a child process, the way a user does.
export function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000) {
  const r = spawnSync(
    nodeBin,
    ["--disable-warning=ExperimentalWarning", path.join(repoRoot, "pipeline", "cli.ts"), ...args],
    {
      encoding: "utf8",
      env: { ...process.env, CI: "1", ...env },
      timeout: timeoutMs,
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A private data folder and state folder for the runner's scripted toy study and systems
 * (fixtures/fake-bench, fake-profiles); `extra` sets the toy verbs' knobs (TOY_TPS_<SYSTEM>, TOY_NOISE, ...).
 */
export function toyEnv(extra: Record<string, string> = {}) {
  const data = tempDir();
  return {
    data,
    env: {
      SAMEBOX_BENCH_SCRIPTS: path.join(fixtures, "fake-bench"),
      SAMEBOX_PROFILES_DIR: path.join(fixtures, "fake-profiles"),
      SAMEBOX_DATA_DIR: data,
      SAMEBOX_STATE: tempDir("samebox-state-"),
      TOY_FIXTURE: path.join(fixtures, "raw", "oltp", "postgresql", "oltp_read_write", "stdout.txt"),
      ...extra,
    },
  };
}
