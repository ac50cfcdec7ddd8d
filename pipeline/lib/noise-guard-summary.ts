// One sentence for what a run's noise guard saw (manifest noise_guard), shared by `samebox report` and the
// run page so both say the same thing.
import type { RunManifest } from "../schema/types.ts";

export function noiseGuardSummary(guard: RunManifest["noise_guard"]): string {
  if (!guard) return "not recorded (this run has no noise guard record)";
  const before = guard.before_run;
  const ref = before?.host_reference;
  const rtt = before?.wakeup_rtt_us;
  return [
    `${guard.mode}: ${guard.flagged} cell attempt(s) disturbed, ${guard.reruns} re-run, ${guard.noisy} left noisy`,
    before &&
      `before the run ${before.outside_cpu_pct ?? "?"} % of a core used outside${before.busy ? ` (busy: ${before.reason})` : ""}`,
    before?.host_probe_ms !== undefined &&
      `host probe ${before.host_probe_ms} ms${ref ? ` (run ${ref.run_id}: ${ref.host_probe_ms} ms${before.host_slower ? ", more than 10 % faster" : ""})` : ""}`,
    rtt && `pipe round trip ${rtt.same_cpu} µs on one vCPU, ${rtt.cross_cpu} µs across two`,
    before?.page_fault_us !== undefined && `a fresh page's first touch ${before.page_fault_us} µs`,
  ]
    .filter(Boolean)
    .join("; ");
}
