// Is the process that writes a run still alive? A manifest says "running" from its first write until
// its last; a runner killed (SIGKILL, power loss) leaves it so forever. Read by validate, publish and --resume.
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import type { RunManifest } from "../schema/types.ts";

/** The kernel's id of this boot: a pid recorded under another boot id is not the same process. */
export function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

export function runnerIdentity(): NonNullable<RunManifest["runner"]> {
  return { pid: process.pid, host: os.hostname(), boot_id: bootId() };
}

/** Why a manifest that says "running" is not being written any more, or null when its runner may still be alive. */
export function deadRunnerReason(m: RunManifest): string | null {
  if (m.status !== "running") return null;
  const r = m.runner;
  if (!r)
    return "the run says it is running but names no runner process (written before runners recorded themselves); it cannot be alive";
  if (r.host !== os.hostname()) return null; // another machine's run: cannot tell from here
  if (r.boot_id && r.boot_id !== bootId())
    return `its runner (pid ${r.pid}) belonged to an earlier boot of this machine`;
  if (!existsSync(`/proc/${r.pid}`)) return `its runner (pid ${r.pid}) is no longer running`;
  const cmd = readFileSync(`/proc/${r.pid}/cmdline`, "utf8");
  return cmd.includes("cli.ts") || cmd.includes("samebox")
    ? null
    : `its runner's pid ${r.pid} now belongs to another program`;
}
