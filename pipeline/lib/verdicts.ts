// Verdicts of the seeds' claims (bench-scripts/studies/<study>/claims.json, bench-scripts/studies/CLAIMS.md):
// pure functions, no file system and no site imports. The site judges each claim from one run with them,
// and the runner calls judgeClaim in its sequential loop (a look after the 5th repetition and after each
// added one, up to `looks` looks) to stop once every claim is decided.
//
// Method. In each repetition r the claim's two cells give a_r and b_r; d_r = ln(a_r / b_r), oriented by
// `better` (ln(b_r / a_r) when lower is better), is the log of "how many times better a is than b" in that
// repetition. Pairing by repetition cancels what a repetition shares (machine state, the order's drift).
// The Student-t interval of the mean of d_r, exponentiated, is the interval of the geometric-mean ratio:
// Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013 (ratios of execution times,
// repetitions as the unit of replication); Georges, Buytaert & Eeckhout, "Statistically rigorous Java
// performance evaluation", OOPSLA 2007 (Student t over few independent runs). On the log scale the
// interval is symmetric and its exponential never reaches 0 (the division of opposite interval ends it
// replaces went to 0×–∞ whenever a low end reached 0).
//
// Repeated looks. A sequential loop that looks after every repetition and stops at the first decision
// would, at a fixed 5 % per look, be wrong more often than 5 %. Runs made before 2026-11-24 afternoon used
// Bonferroni over every possible look (`looks`, each at alpha / looks). The runner now looks twice
// (twoLookPlan): after the base repetitions and once more after the added ones, spending alpha with the
// Pocock-type function of Lan & DeMets, "Discrete sequential boundaries for clinical trials", Biometrika
// 70(3), 1983: alpha(t) = alpha·ln(1 + (e − 1)·t) at information fraction t = repetitions / maximum. Look 1
// is judged at alpha(t1); look 2 spends the rest, alpha2 = alpha − alpha(t1), at the nominal level of the
// exact two-look boundary, which counts the correlation of the two looks (group-sequential.ts: 2.4 % for
// 7 → 9 repetitions where alpha2 is 0.76 %). Runs made before 2026-11-25 judged look 2 at alpha2 itself (the
// union bound, conservative); their manifests lack `exact` and are judged as they were.
import type { Claim } from "../schema/types.ts";
import { lookTwoNominalLevel } from "./group-sequential.ts";
import { memberClaim, pairedRepetitions, type PairedSample } from "./paired-samples.ts";
import { tQuantile } from "./stats.ts";

export {
  cellMatchesSide,
  claimHasWorkload,
  claimSides,
  memberClaim,
  pairedRepetitions,
  pairedSamples,
  sideHasWorkload,
  workloadText,
  type PairedSample,
  type SideSelector,
} from "./paired-samples.ts";

const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;

export type Verdict = "reproduces" | "does not reproduce" | "tie" | "undecided" | "not measured";
/** Every verdict, in the order pages list them. */
export const VERDICTS: readonly Verdict[] = ["reproduces", "does not reproduce", "tie", "undecided", "not measured"];

export interface ClaimJudgement {
  verdict: Verdict;
  /** One readable sentence. */
  why: string;
  /** Paired repetitions judged. */
  n: number;
  /** Geometric mean of the oriented per-repetition ratios (how many times better a is than b). */
  ratio?: number;
  /** The ratio's interval at the level of one look (shown only from minRepetitions on). */
  lo?: number;
  hi?: number;
  /** hi / ratio - 1 (= ratio / lo - 1): the interval's relative half-width. */
  relHalfWidth?: number;
  /** The two-sided error level the interval was drawn at (0.05, or a sequential look's alpha). */
  level?: number;
  /** Undecided: about how many more paired repetitions would decide (n·(hw/needed)² − n, rounded up). */
  moreRepetitions?: number;
  /** Undecided with an interval: the log-scale half-width that would decide, and the log ratios' standard deviation. */
  decisiveLogHalfWidth?: number;
  sdLog?: number;
  /** A claim about each of several workloads: every workload's own judgement (at the claim's level). */
  members?: MemberJudgement[];
}

export type MemberJudgement = Omit<ClaimJudgement, "members"> & { workload: string };

export interface JudgeOptions {
  /** Family-wise error over all looks, two-sided; default 0.05. */
  alpha?: number;
  /** Looks the runner may take (Bonferroni: each look at alpha / looks); default 1. */
  looks?: number;
  /** The two-sided level of this one look, overriding alpha / looks (a look of a LookPlan). */
  level?: number;
  /** Below this many paired repetitions no interval is shown and the claim is undecided; default 5. */
  minRepetitions?: number;
  /** Ordering claims: an interval within [1/(1+m), 1+m] is a tie; default 0.05. */
  tieMargin?: number;
}

export const DEFAULT_JUDGE_OPTIONS: Required<Omit<JudgeOptions, "level">> = {
  alpha: 0.05,
  looks: 1,
  minRepetitions: 5,
  tieMargin: 0.05,
};

/** A two-look sequential plan: look 1 after `base` repetitions at alpha1, look 2 after more (up to `max`) at alpha2. */
export interface LookPlan {
  base: number;
  max: number;
  alpha1: number;
  alpha2: number;
  /** Look 2 at the exact boundary's nominal level (lookTwoLevel); absent in runs judged by the union bound. */
  exact?: boolean;
}

/** Lan & DeMets (1983) Pocock-type spending function: the alpha spent by information fraction t in [0, 1]. */
export function pocockSpent(alpha: number, t: number): number {
  return alpha * Math.log(1 + (Math.E - 1) * Math.min(1, Math.max(0, t)));
}

/** The runner's plan: look 1 at t = base / max, look 2 spends the rest (max = base: one look at alpha). */
export function twoLookPlan(base: number, max: number, alpha = DEFAULT_JUDGE_OPTIONS.alpha): LookPlan {
  const alpha1 = max > base ? pocockSpent(alpha, base / max) : alpha;
  return { base, max, alpha1, alpha2: alpha - alpha1, exact: true };
}

/** The two-sided level look 2 is judged at, with n1 repetitions at look 1 and n2 at look 2. */
export function lookTwoLevel(plan: LookPlan, n1: number, n2: number): number {
  if (!plan.exact || plan.alpha2 <= 0 || n2 <= n1) return plan.alpha2;
  return lookTwoNominalLevel(plan.alpha1, plan.alpha2, n1 / n2);
}

export type SequentialJudgement = ClaimJudgement & { look: 1 | 2 };

/**
 * A claim judged as the two-look plan decides it: at look 1 on the repetitions up to `base` (level alpha1);
 * a claim decided there keeps that verdict, whatever repetitions were added later for other claims. Still
 * undecided and with repetitions beyond `base`: look 2 on all of them (level alpha2).
 */
export function judgeSequentialClaim(
  claim: Claim,
  samples: PairedSample[],
  plan: LookPlan,
  opts: Omit<JudgeOptions, "level" | "looks"> = {},
): SequentialJudgement {
  if (claim.each_of) {
    // every workload as its own two-look test (Bonferroni: the plan's alphas divided by k for the family-wise side)
    let look: 1 | 2 = 1;
    const j = judgeEach(claim, samples, (m, own, k) => {
      const mj = judgeSequentialClaim(m, own, { ...plan, alpha1: plan.alpha1 / k, alpha2: plan.alpha2 / k }, opts);
      if (mj.look === 2) look = 2;
      return mj;
    });
    return { ...j, look };
  }
  const first = samples.filter((s) => s.repetition <= plan.base);
  const j1 = judgeClaim(claim, first, { ...opts, level: plan.alpha1 });
  const [n1, n2] = [pairedRepetitions(claim, first), pairedRepetitions(claim, samples)];
  const later = n2 > n1 && plan.alpha2 > 0;
  if ((j1.verdict !== "undecided" && j1.verdict !== "not measured") || !later) return { ...j1, look: 1 };
  return { ...judgeClaim(claim, samples, { ...opts, level: lookTwoLevel(plan, n1, n2) }), look: 2 };
}

/** The region of the oriented ratio where the claim holds, as [lo, hi] (infinite ends allowed). */
export function claimRegion(claim: Claim): { lo: number; hi: number } {
  if (claim.kind === "size" && claim.size)
    return { lo: claim.size.ratio / (1 + claim.size.tolerance), hi: claim.size.ratio * (1 + claim.size.tolerance) };
  if (claim.kind === "threshold" && claim.threshold)
    return { lo: claim.threshold.min ?? 0, hi: claim.threshold.max ?? Infinity };
  return { lo: 1, hi: Infinity };
}

/** 1.046 → "1.05×", 43 → "43×", 0.5 → "0.5×". */
export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return "∞";
  return `${r >= 100 ? Math.round(r).toLocaleString("en-US") : Number(r.toPrecision(3)).toString()}×`;
}

/** The region in words: "above 1×", "2.96× to 4.63×", "at least 43×". */
export function regionText(claim: Claim): string {
  const { lo, hi } = claimRegion(claim);
  if (claim.kind === "ordering") return "above 1× (a beats b)";
  if (Number.isFinite(hi) && lo > 0) return `${fmtRatio(lo)} to ${fmtRatio(hi)}`;
  if (lo > 0) return `at least ${fmtRatio(lo)}`;
  return `at most ${fmtRatio(hi)}`;
}

/**
 * The verdict of a claim from its paired samples. Fewer than minRepetitions pairs: undecided (or not
 * measured without any), no interval. Otherwise the interval at level 1 - alpha/looks (or 1 - level) decides:
 * reproduces (inside the claim's region), does not reproduce (outside), tie (ordering claims: the whole
 * interval within the tie margin of 1, before a tiny significant win), undecided (straddles a bound).
 */
export function judgeClaim(claim: Claim, samples: PairedSample[], opts: JudgeOptions = {}): ClaimJudgement {
  const o = { ...DEFAULT_JUDGE_OPTIONS, ...opts };
  const level = opts.level ?? o.alpha / o.looks;
  if (claim.each_of) return judgeEach(claim, samples, (m, own, k) => judgeClaim(m, own, { ...opts, level: level / k }));
  const valid = samples.filter((s) => s.a > 0 && s.b > 0 && Number.isFinite(s.a) && Number.isFinite(s.b));
  const n = valid.length;
  if (n === 0) {
    return {
      verdict: "not measured",
      n: 0,
      why: samples.length
        ? "no repetition has a positive value on both sides, so no ratio can be taken"
        : "no repetition measured both sides",
    };
  }
  // log(a/b) oriented so that > 0 means a is better: intervals of positive quantities stay above 0.
  const d = valid.map((s) => (claim.better === "higher" ? Math.log(s.a / s.b) : Math.log(s.b / s.a)));
  const ratio = Math.exp(mean(d));
  if (n < o.minRepetitions) {
    return {
      verdict: "undecided",
      n,
      ratio,
      moreRepetitions: o.minRepetitions - n,
      why: `${n} of ${o.minRepetitions} repetitions: too few for an interval (ours ${fmtRatio(ratio)} is shown without one; the claim holds for ${regionText(claim)})`,
    };
  }
  return decide(claim, logInterval(d, level), o.tieMargin);
}

/** A Student t interval on the mean of paired log ratios (Kalibera & Jones, ISMM 2013), at two-sided `level`. */
interface LogInterval {
  n: number;
  /** mean log ratio, its half-width and the sample sd of the log ratios */
  m: number;
  h: number;
  sd: number;
  level: number;
}

function logInterval(d: number[], level: number): LogInterval {
  const n = d.length;
  const m = mean(d);
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1));
  return { n, m, h: (tQuantile(1 - level / 2, n - 1) * sd) / Math.sqrt(n), sd, level };
}

/**
 * The verdict of an interval of the mean log ratio given directly (m ± h at two-sided level `level`), e.g. one
 * combined over several runs (replicates.ts): the same rule as a run's own interval.
 */
export function judgeLogInterval(
  claim: Claim,
  iv: { n: number; m: number; h: number; level: number },
  tieMargin = DEFAULT_JUDGE_OPTIONS.tieMargin,
): ClaimJudgement {
  return decide(claim, { ...iv, sd: Number.NaN }, tieMargin);
}

/** Tie, reproduces or does not reproduce when the interval settles it; undecided otherwise. */
function decide(claim: Claim, iv: LogInterval, tieMargin: number): ClaimJudgement {
  const { n, m, h, level } = iv;
  const base = {
    n,
    ratio: Math.exp(m),
    lo: Math.exp(m - h),
    hi: Math.exp(m + h),
    relHalfWidth: Math.exp(h) - 1,
    level,
  };
  const pct = `${Number((100 * (1 - level)).toPrecision(4))} %`;
  const ivText = `ours ${fmtRatio(base.ratio)}, ${pct} interval ${fmtRatio(base.lo)}–${fmtRatio(base.hi)} over ${n} paired repetitions`;
  const tie = Math.log(1 + tieMargin);
  if (claim.kind === "ordering" && m - h >= -tie && m + h <= tie) {
    return {
      ...base,
      verdict: "tie",
      why: `${ivText}: the whole interval lies within ${Math.round(tieMargin * 100)} % of 1, so no meaningful difference`,
    };
  }
  const region = claimRegion(claim);
  const rlo = region.lo > 0 ? Math.log(region.lo) : -Infinity;
  const rhi = Math.log(region.hi);
  // Ordering: "holds" means a strictly beats b (the interval excludes 1).
  const inside = claim.kind === "ordering" ? m - h > 0 : m - h >= rlo && m + h <= rhi;
  const outside = claim.kind === "ordering" ? m + h < 0 : m + h < rlo || m - h > rhi;
  if (inside)
    return {
      ...base,
      verdict: "reproduces",
      why: `${ivText}: the whole interval lies where the claim holds (${regionText(claim)})`,
    };
  if (outside)
    return {
      ...base,
      verdict: "does not reproduce",
      why: `${ivText}: the whole interval lies outside where the claim holds (${regionText(claim)})`,
    };
  const needed = decisiveHalfWidth(claim, m, [rlo, rhi].filter(Number.isFinite), tie);
  const moreRepetitions = needed > 0 ? Math.max(1, Math.ceil(n * (h / needed) ** 2 - n)) : undefined;
  return {
    ...base,
    verdict: "undecided",
    moreRepetitions,
    decisiveLogHalfWidth: needed,
    sdLog: iv.sd,
    why: `${ivText}: the interval straddles a bound of where the claim holds (${regionText(claim)}); its relative half-width is ${Number((base.relHalfWidth * 100).toPrecision(2))} %${moreRepetitions !== undefined ? `, about ${moreRepetitions} more repetition${moreRepetitions === 1 ? "" : "s"} would decide` : ""}`,
  };
}

/**
 * The log half-width that would decide an undecided claim: the distance from the estimate `m` to the
 * nearest bound it must clear (for an ordering claim inside the tie zone, also the tie edges: whichever
 * decides later).
 */
function decisiveHalfWidth(claim: Claim, m: number, edges: number[], tie: number): number {
  if (claim.kind === "ordering") return Math.abs(m) >= tie ? Math.abs(m) : Math.max(Math.abs(m), tie - Math.abs(m));
  return Math.min(...edges.map((e) => Math.abs(m - e)));
}

/**
 * Whether look 2 could decide a claim undecided at look 1: its projected half-width with `n` repetitions at
 * look 2's `level` (assuming the spread stays as at look 1) is below the one that would decide. A claim whose
 * ratio sits on a bound needs more than any budget: the runner spends no repetitions on it.
 */
export function lookTwoCouldDecide(j: ClaimJudgement, n: number, level: number): boolean {
  if (j.verdict !== "undecided" || j.sdLog === undefined || j.decisiveLogHalfWidth === undefined || n < 2 || level <= 0)
    return false;
  return (tQuantile(1 - level / 2, n - 1) * j.sdLog) / Math.sqrt(n) < j.decisiveLogHalfWidth;
}

/**
 * A claim about each of several workloads (claims.json each_of, e.g. "faster than PostgreSQL on every cached
 * batch workload"), every workload judged as a claim of its own kind. Reproduces when every workload's
 * interval at the claim's level lies where it holds: an intersection-union test, valid at that level with no
 * correction (Berger, "Multiparameter hypothesis testing and acceptance sampling", Technometrics 24(4), 1982).
 * Does not reproduce when some workload's interval at level / k (Bonferroni over the k workloads, since any
 * one of them may refute it) lies outside where it holds or within the tie margin. Not measured when a
 * workload lacks either side; otherwise undecided. The figures shown are the weakest workload's. `judge` judges one
 * workload at the claim's level divided by k (k = 1, or the number of workloads).
 */
function judgeEach(
  claim: Claim,
  samples: PairedSample[],
  judge: (member: Claim, own: PairedSample[], k: number) => ClaimJudgement,
): ClaimJudgement {
  const ws = claim.each_of!;
  const members = ws.map((w) => {
    const m = memberClaim(claim, w);
    const own = samples.filter((s) => s.workload === w);
    return { at: { ...judge(m, own, 1), workload: w }, familyWise: judge(m, own, ws.length) };
  });
  const list = members.map((m) => m.at);
  const text = (m: MemberJudgement) =>
    `${m.workload} ${m.ratio !== undefined ? fmtRatio(m.ratio) : "—"}${m.lo !== undefined ? ` (${fmtRatio(m.lo)}–${fmtRatio(m.hi!)})` : ""}`;
  const missing = list.filter((m) => m.verdict === "not measured");
  if (missing.length)
    return {
      verdict: "not measured",
      n: 0,
      members: list,
      why: `not measured on ${missing.map((m) => `${m.workload} (${m.why})`).join("; ")}`,
    };
  const weakest = [...list].sort((x, y) => (x.lo ?? x.ratio ?? 0) - (y.lo ?? y.ratio ?? 0))[0];
  const shown = {
    n: Math.min(...list.map((m) => m.n)),
    ratio: weakest.ratio,
    lo: weakest.lo,
    hi: weakest.hi,
    relHalfWidth: weakest.relHalfWidth,
    members: list,
  };
  const refuting = members.filter(
    (m) => m.familyWise.verdict === "does not reproduce" || m.familyWise.verdict === "tie",
  );
  if (refuting.length) {
    const which = refuting.map((m) => `${m.at.workload} (${m.familyWise.verdict}: ${m.familyWise.why})`).join("; ");
    const worst = refuting.map((m) => m.at).sort((x, y) => (x.ratio ?? 0) - (y.ratio ?? 0))[0];
    return {
      ...shown,
      ratio: worst.ratio,
      lo: worst.lo,
      hi: worst.hi,
      relHalfWidth: worst.relHalfWidth,
      verdict: "does not reproduce",
      why: `fails on ${refuting.length} of ${ws.length} workloads, each judged at the level divided by ${ws.length} (Bonferroni): ${which}`,
    };
  }
  if (list.every((m) => m.verdict === "reproduces"))
    return {
      ...shown,
      verdict: "reproduces",
      why: `holds on all ${ws.length} workloads, every interval where the claim holds (${regionText(claim)}; intersection-union test); weakest ${text(weakest)}`,
    };
  const open = list.filter((m) => m.verdict !== "reproduces");
  // how far from deciding: a workload straddling 1 at the claim's level, or one lost there but not at level / k
  const pending = members
    .filter((m) => m.at.verdict !== "reproduces")
    .map((m) => (m.at.verdict === "undecided" ? m.at : m.familyWise));
  const slowest = [...pending].sort((x, y) => (y.moreRepetitions ?? 0) - (x.moreRepetitions ?? 0))[0];
  return {
    ...shown,
    verdict: "undecided",
    moreRepetitions: slowest.moreRepetitions,
    decisiveLogHalfWidth: slowest.decisiveLogHalfWidth,
    sdLog: slowest.sdLog,
    why: `holds on ${ws.length - open.length} of ${ws.length} workloads; not yet decided on ${open.map(text).join(", ")}${slowest.moreRepetitions !== undefined ? `; about ${slowest.moreRepetitions} more repetitions would decide` : ""}`,
  };
}
