// What a cloud run will cost before it is launched: cells, expected wall time per study and dollars,
// from the durations of cells that were actually measured (data/runs/*/manifest.json, cells[].duration_s)
// scaled by the profile's parameters. One study runs on one box, so each study gets its own time limit.
// It depends on the plan only (runner/plan.ts, and the prepare bound the runner derives from it), never
// on the runner. Its parts, in estimate/:
// - references.ts: the measured cells and setups of every run folder, and the data-size ratio;
// - cells.ts: a planned cell's projection from the newest measured cell that matches it best;
// - setup.ts: a system's setup for a study, from the measured setup nearest the target's data size,
//   and the raised prepare bounds the runner takes from it;
// - boxes.ts: the boxes a study needs and their time limits; study.ts: one study's projection;
// - price.ts: the instance's price; markdown.ts: the table people read.
// No speed-up is assumed for a larger machine: the references come from whatever machine measured them.
import path from "node:path";
import { planRun } from "../runner/plan.ts";
import type { Plan } from "../runner/plan.ts";
import { BOX_BOOTSTRAP_S, LIMIT_SAFETY, MAX_LIMIT_MIN, MIN_LIMIT_MIN, UPLOAD_MARGIN_MIN } from "./estimate/boxes.ts";
import { WINDOW_OVERHEAD_S } from "./estimate/cells.ts";
import { loadPrice, type Price, round2 } from "./estimate/price.ts";
import { loadReferences, type ToolOf } from "./estimate/references.ts";
import { SETUP_ASSUMED_S } from "./estimate/setup.ts";
import { type StudyEstimate, studyEstimate } from "./estimate/study.ts";
import { dataDir, runsDir } from "./paths.ts";

export { BOX_BOOTSTRAP_S, limitMinutes, MAX_LIMIT_MIN, shardBoxes } from "./estimate/boxes.ts";
export { projectCell } from "./estimate/cells.ts";
export { estimateMarkdown, parseInstanceType } from "./estimate/markdown.ts";
export { dataRatio } from "./estimate/references.ts";
export { prepareBounds } from "./estimate/setup.ts";

export interface Estimate {
  profile: string;
  instance_type: string;
  region: string;
  price: Price | null;
  price_reason?: string;
  references: string[];
  studies: StudyEstimate[];
  total: { cells: number; expected_hours: number; usd_expected: number | null; usd_limit: number | null };
  method: string[];
}

export interface EstimateOptions {
  profile: string;
  studies?: string[];
  systems?: string[];
  instanceType: string;
  region: string;
  runsDir?: string;
  pricesFile?: string;
}

export function estimate(opts: EstimateOptions): Estimate {
  const plan: Plan = planRun({ profile: opts.profile, studies: opts.studies, systems: opts.systems });
  const toolOf: ToolOf = (study, workload) => plan.studies[study]?.workloads.find((w) => w.name === workload)?.tool;
  const refs = loadReferences(opts.runsDir ?? runsDir(), toolOf);
  const pricesFile = opts.pricesFile ?? path.join(dataDir(), "prices", "ec2-on-demand.csv");
  const price = loadPrice(pricesFile, opts.region, opts.instanceType);
  const studies = Object.keys(plan.studies).flatMap((study) => studyEstimate(study, plan, refs, toolOf, price) ?? []);
  const sum = (f: (s: StudyEstimate) => number | null) =>
    studies.some((s) => f(s) === null) ? null : round2(studies.reduce((a, s) => a + (f(s) ?? 0), 0));
  return {
    profile: plan.profile.name,
    instance_type: opts.instanceType,
    region: opts.region,
    price,
    ...(price
      ? {}
      : {
          price_reason: `no confirmed price for ${opts.instanceType} in ${opts.region} in ${path.basename(pricesFile)}`,
        }),
    references: refs.filter((r) => r.cells.length).map((r) => r.run_id),
    studies,
    total: {
      cells: studies.reduce((a, s) => a + s.cells, 0),
      expected_hours: round2(studies.reduce((a, s) => a + s.expected_seconds, 0) / 3600),
      usd_expected: sum((s) => s.usd_expected),
      usd_limit: sum((s) => s.usd_limit),
    },
    method: ESTIMATE_METHOD,
  };
}

const ESTIMATE_METHOD = [
  "cell time = newest measured matching cell (data/runs/*/manifest.json cells[].duration_s), scaled: time-bound tools swap the reference's WARMUP+DURATION for the target's; hyperfine scales with (HF_RUNS+HF_WARMUP) and REPEAT_SCALE; capped at cell_timeout_s",
  `setup per system = measured gap before its first cell in the run nearest the target's data size (newest among equals), x the data-size ratio (rows/scale) (never measured for the study: ${SETUP_ASSUMED_S / 60} min assumed); the runner's prepare bound is raised to 1.5 x it where that is above the default`,
  `a time-bound cell never measured = its WARMUP + DURATION + ${WINDOW_OVERHEAD_S} s; any other cell never measured = the study's median projected cell`,
  `box bootstrap (clone, Node, toolchains) = ${BOX_BOOTSTRAP_S / 60} min, assumed until a first cloud run measures it`,
  `limit per box = ceil(expected x ${LIMIT_SAFETY}) + ${UPLOAD_MARGIN_MIN} min upload margin, at least ${MIN_LIMIT_MIN}, at most ${MAX_LIMIT_MIN}; a study whose one box would need more is split by workload over the fewest boxes (first-fit by decreasing time), every system on every box`,
  "no speed-up is assumed for a larger machine than the one that measured the references",
];
