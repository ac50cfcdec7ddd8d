// One run at a time per state folder. Systems keep their servers and data under SAMEBOX_STATE (default
// /var/lib/samebox, bench-scripts/lib/common.sh), so a second run beside the first stops its servers or
// deletes its data (seen 2026-11-24: a dev run of mcp-db lost SQLite's prepared data to another run's
// cleanup, 19 cells failed) and disturbs its measurements. The lock is a file created exclusively; a lock
// whose runner is dead (pipeline/lib/liveness.ts) is taken over, never one whose runner lives.
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import path from "node:path";
import { UserError } from "../lib/errors.ts";
import { deadRunnerReason, runnerIdentity } from "../lib/liveness.ts";
import type { RunManifest } from "../schema/types.ts";

export function stateDir(): string {
  return process.env.SAMEBOX_STATE || "/var/lib/samebox";
}

interface LockBody {
  run_id: string;
  started_at: string;
  runner: NonNullable<RunManifest["runner"]>;
}

function readLock(file: string): LockBody | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockBody;
  } catch {
    return undefined; // half-written or gone: treated as stale
  }
}

function tryCreate(file: string, body: LockBody): boolean {
  try {
    const fd = openSync(file, "wx");
    writeSync(fd, JSON.stringify(body));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}

/** Takes the state folder's run lock for runId, or throws a UserError naming the run that holds it; returns the release. */
export function acquireRunLock(runId: string): () => void {
  const dir = stateDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "runner.lock");
  const body: LockBody = { run_id: runId, started_at: new Date().toISOString(), runner: runnerIdentity() };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(file, body)) return () => releaseRunLock(file, body);
    const held = readLock(file);
    const dead = held ? deadRunnerReason({ status: "running", runner: held.runner } as RunManifest) : "unreadable";
    if (held && held.runner.pid === process.pid) return () => releaseRunLock(file, body); // a resume inside this process
    if (!dead)
      throw new UserError(
        `another samebox run (${held!.run_id}, pid ${held!.runner.pid}, since ${held!.started_at}) is using SAMEBOX_STATE=${dir}; runs there share the systems' servers and data: wait for it to end, or give this run its own SAMEBOX_STATE`,
      );
    rmSync(file, { force: true }); // its runner is dead: take the lock over
  }
  throw new UserError(`could not take the run lock ${file}: another run took it at the same moment; try again`);
}

function releaseRunLock(file: string, body: LockBody): void {
  const held = readLock(file);
  if (held && held.run_id === body.run_id && held.runner.pid === body.runner.pid) rmSync(file, { force: true });
}
