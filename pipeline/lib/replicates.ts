// A claim judged from all its replicates. Each finished run that measured both sides of a claim with at least
// minRepetitions paired repetitions under the same measurement settings is one replicate: its mean log ratio
// y_i and that mean's standard error s_i = sd_i / √n_i (the within-run error its own interval is built on).
// Runs differ by more than that (another host, another day), so they are combined with a random-effects model:
// - between-run variance τ² by DerSimonian & Laird (Controlled Clinical Trials 7, 1986), weights 1/(s_i² + τ²);
// - the interval of the combined mean by Hartung & Knapp (Statistics in Medicine 20, 2001) / Sidik & Jonkman
//   (2002): the weighted residual variance with a Student t on k − 1 degrees of freedom, which keeps its level
//   with few replicates where the normal DL interval is too narrow (IntHout et al., BMC Med Res Meth 14, 2014);
// - the prediction interval for a new run by Higgins, Thompson & Spiegelhalter (JRSS A 172, 2009):
//   μ ± t_{k−2} √(τ² + SE(μ)²), from three replicates on.
// One replicate: its own Student-t interval (the single-run rule) and no prediction interval.
// Which runs are one experiment is fixed here, before any combined verdict was read: the study's profile env
// without the keys that only steer the warm-up, the logs or the bookkeeping (WARMUP*, STEADY_*, REPORT_INTERVAL,
// PGBENCH_LOG_*, MCPDB_KEEP_DATA, MCPDB_DIRECT_TIMING), and the concurrency the claim's cells ran at.
import { tQuantile } from "./stats.ts";
import type { Claim } from "../schema/types.ts";
import type { PairedSample } from "./paired-samples.ts";

const STEERING = /^(WARMUP|STEADY_|REPORT_INTERVAL$|PGBENCH_LOG_|MCPDB_KEEP_DATA$|MCPDB_DIRECT_TIMING$)/;

/** The measurement settings of a run's study env: what makes two runs one experiment (sorted key=value). */
export function settingsKey(env: Record<string, unknown> | undefined, concurrency: number[]): string {
  const kept = Object.entries(env ?? {})
    .filter(([k]) => !STEERING.test(k))
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort();
  return [...kept, `concurrency=${[...new Set(concurrency)].sort((a, b) => a - b).join(",")}`].join(" ");
}

/**
 * A run's host type: the CPU model name every run recorded and the kernel build the VM booted ("AMD EPYC,
 * kernel 6.18.44-fc-v595"). Two hosts with one CPU model (EPYC hosts ~20 % apart have been seen) boot
 * different builds here, and older runs recorded nothing finer.
 */
export function hostType(machine: { cpu_model?: string; kernel?: string }): string {
  return [machine.cpu_model || "unknown CPU", machine.kernel ? `kernel ${machine.kernel}` : ""]
    .filter(Boolean)
    .join(", ");
}

export interface RunEstimate {
  run_id: string;
  host: string;
  /** mean log ratio over the run's paired repetitions (oriented: > 0 means a is better) */
  y: number;
  /** its standard error */
  se: number;
  n: number;
}

/** One run's estimate from its paired samples, oriented by the claim; undefined below two valid repetitions. */
export function runEstimate(
  claim: Claim,
  samples: PairedSample[],
  run_id: string,
  host: string,
): RunEstimate | undefined {
  const d = samples
    .filter((s) => s.a > 0 && s.b > 0 && Number.isFinite(s.a) && Number.isFinite(s.b))
    .map((s) => (claim.better === "higher" ? Math.log(s.a / s.b) : Math.log(s.b / s.a)));
  const n = d.length;
  if (n < 2) return undefined;
  const y = d.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(d.reduce((a, x) => a + (x - y) ** 2, 0) / (n - 1));
  return { run_id, host, y, se: sd / Math.sqrt(n), n };
}

export interface Combined {
  k: number;
  hosts: string[];
  /** combined mean log ratio, and the half-width of its interval at `level` */
  m: number;
  h: number;
  level: number;
  /** between-run variance of the log ratio (DerSimonian–Laird); 0 with one replicate */
  tau2: number;
  /** the prediction interval's half-width for a new run's true ratio (from 3 replicates on) */
  predH?: number;
  /** τ² + SE(μ)²: the prediction's variance, before a new run's own within-run error is added */
  predVar?: number;
}

/** The replicates combined (k ≥ 1) at two-sided level `level` (default 0.05). */
export function combine(ests: RunEstimate[], level = 0.05): Combined {
  const k = ests.length;
  const hosts = [...new Set(ests.map((e) => e.host))].sort();
  if (k === 1) {
    const e = ests[0];
    return { k, hosts, m: e.y, h: tQuantile(1 - level / 2, e.n - 1) * e.se, level, tau2: 0 };
  }
  const w0 = ests.map((e) => 1 / e.se ** 2);
  const sw0 = w0.reduce((a, b) => a + b, 0);
  const m0 = ests.reduce((a, e, i) => a + w0[i] * e.y, 0) / sw0;
  const q = ests.reduce((a, e, i) => a + w0[i] * (e.y - m0) ** 2, 0);
  const c = sw0 - w0.reduce((a, w) => a + w * w, 0) / sw0;
  const tau2 = Math.max(0, (q - (k - 1)) / c);
  const w = ests.map((e) => 1 / (e.se ** 2 + tau2));
  const sw = w.reduce((a, b) => a + b, 0);
  const m = ests.reduce((a, e, i) => a + w[i] * e.y, 0) / sw;
  const hk = ests.reduce((a, e, i) => a + w[i] * (e.y - m) ** 2, 0) / ((k - 1) * sw);
  // Hartung–Knapp's variance, never below the DL one (the "modified" HK of Röver, Knapp & Friede, 2015).
  const se = Math.sqrt(Math.max(hk, 1 / sw));
  const h = tQuantile(1 - level / 2, k - 1) * se;
  if (k < 3) return { k, hosts, m, h, level, tau2 };
  const predVar = tau2 + 1 / sw;
  return { k, hosts, m, h, level, tau2, predVar, predH: tQuantile(1 - level / 2, k - 2) * Math.sqrt(predVar) };
}

/**
 * Leave one run out: for every replicate of a claim with at least 4 (so that the other 3 give a prediction
 * interval), whether its estimate falls in the others' prediction interval widened by its own within-run error
 * (an observed estimate, not a true ratio, is predicted). Counts over the claims given.
 */
export function leaveOneOut(
  byClaim: RunEstimate[][],
  opts: { level?: number; withinOnly?: boolean } = {},
): { inside: number; cases: number } {
  const level = opts.level ?? 0.05;
  let inside = 0;
  let cases = 0;
  for (const ests of byClaim) {
    if (ests.length < 4) continue;
    for (let i = 0; i < ests.length; i++) {
      const others = ests.filter((_, j) => j !== i);
      cases++;
      if (
        Math.abs(ests[i].y - predictionCentre(others, opts.withinOnly)) <=
        predictionHalfWidth(others, ests[i].se, level, opts.withinOnly)
      )
        inside++;
    }
  }
  return { inside, cases };
}

/** The combined mean of the others: random-effects, or (withinOnly) weighted by their within-run errors alone. */
function predictionCentre(others: RunEstimate[], withinOnly = false): number {
  if (!withinOnly) return combine(others).m;
  const w = others.map((e) => 1 / e.se ** 2);
  return others.reduce((a, e, i) => a + w[i] * e.y, 0) / w.reduce((a, b) => a + b, 0);
}

/**
 * The half-width for a new run's estimate with within-run error `se`: random-effects (τ² + SE(μ)² + se²,
 * t on k − 2), or, withinOnly, as if runs differed by their within-run errors alone (SE(μ)² + se², normal):
 * what the single-run intervals assume.
 */
function predictionHalfWidth(others: RunEstimate[], se: number, level: number, withinOnly = false): number {
  if (withinOnly) {
    const sw = others.reduce((a, e) => a + 1 / e.se ** 2, 0);
    return tQuantile(1 - level / 2, 1e6) * Math.sqrt(1 / sw + se ** 2);
  }
  const c = combine(others, level);
  return tQuantile(1 - level / 2, c.k - 2) * Math.sqrt(c.predVar! + se ** 2);
}

type RunLike = {
  run_id: string;
  status: string;
  machine: { cpu_identity?: string | null; cpu_model?: string };
  config?: unknown;
};

export interface ClaimReplicates {
  /** the measurement settings of this experiment (settingsKey) */
  settings: string;
  runs: RunEstimate[];
  /** absent without a replicate */
  combined?: Combined;
  /** per host type, when the replicates span several: that host type's own combination */
  byHost: Array<{ host: string; combined: Combined }>;
  /** the claim's other experiments with a replicate, newest first */
  others: OtherExperiment[];
}

/** One experiment of a claim other than a given one: its settings that differ, and its replicates combined. */
export interface OtherExperiment {
  settings: string;
  /** "KEY value" for each setting (concurrency included) whose value differs from the given experiment's */
  differs: Array<{ key: string; here: string; there: string }>;
  runs: RunEstimate[];
  combined: Combined;
}

/**
 * A claim's replicates in the experiment of run `anchor` (the same settingsKey): every finished run that measured
 * both sides at least `minRepetitions` times, from the counted records (claim-run.ts countedRecords). `others`:
 * the claim's other experiments with a replicate, newest first (their settings differ from the anchor's).
 */
export function claimReplicates<R extends RunLike>(
  claim: Claim,
  study: string,
  anchor: R,
  runs: R[],
  counted: Array<{ run_id: string; study: string; workload: string; system: string; concurrency: number }>,
  samplesOf: (run: R) => PairedSample[],
  minRepetitions: number,
): ClaimReplicates | undefined {
  // a claim about each of several workloads has no one ratio per run to combine
  if (claim.each_of) return undefined;
  const key = (m: R) => runSettings(claim, study, m, counted);
  const settings = key(anchor);
  const byKey = new Map<string, RunEstimate[]>();
  for (const m of runs) {
    if (m.status === "running") continue;
    const samples = samplesOf(m);
    if (samples.length < minRepetitions) continue;
    const e = runEstimate(claim, samples, m.run_id, hostType(m.machine));
    if (!e) continue;
    const k = key(m);
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  const ests = byKey.get(settings) ?? [];
  const hosts = [...new Set(ests.map((e) => e.host))].sort();
  const others = [...byKey.entries()]
    .filter(([k]) => k !== settings)
    .map(([k, rs]) => ({ settings: k, differs: settingsDiff(settings, k), runs: rs, combined: combine(rs) }));
  return {
    settings,
    runs: ests,
    ...(ests.length ? { combined: combine(ests) } : {}),
    byHost:
      hosts.length > 1 ? hosts.map((host) => ({ host, combined: combine(ests.filter((e) => e.host === host)) })) : [],
    others,
  };
}

/** A run's settingsKey for a claim: its study env, and the concurrency of the claim's counted records in it. */
function runSettings<R extends RunLike>(
  claim: Claim,
  study: string,
  m: R,
  counted: Array<{ run_id: string; study: string; workload: string; system: string; concurrency: number }>,
): string {
  const ws = claim.workload === "*" ? undefined : [claim.workload];
  const env = (m.config as { studies?: Record<string, { env?: Record<string, unknown> }> } | undefined)?.studies?.[
    study
  ]?.env;
  const cs = counted
    .filter(
      (r) =>
        r.run_id === m.run_id &&
        r.study === study &&
        [claim.a.system, claim.b.system].includes(r.system) &&
        (!ws || ws.includes(r.workload)),
    )
    .map((r) => r.concurrency);
  return settingsKey(env, cs);
}

/** The settings whose values differ between two settingsKeys (a key absent on one side reads "unset"). */
export function settingsDiff(here: string, there: string): Array<{ key: string; here: string; there: string }> {
  const parse = (s: string) =>
    new Map(s.split(" ").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  const a = parse(here);
  const b = parse(there);
  return [...new Set([...a.keys(), ...b.keys()])]
    .sort()
    .filter((k) => a.get(k) !== b.get(k))
    .map((k) => ({ key: k, here: a.get(k) ?? "unset", there: b.get(k) ?? "unset" }));
}

/**
 * Whether two experiments' combined log ratios differ beyond their uncertainty: |m1 − m2| > √(h1² + h2²), with
 * h the half-widths of their 95 % intervals (a difference's interval from the two, each already allowing for its
 * between-run spread). Fixed before any two experiments of a claim were compared.
 */
export function experimentsDisagree(x: Combined, y: Combined): boolean {
  return Math.abs(x.m - y.m) > Math.sqrt(x.h ** 2 + y.h ** 2);
}
