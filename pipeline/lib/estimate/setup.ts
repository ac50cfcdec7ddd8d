// Setup per system and study (install, start, check, prepare: the gap before the system's first cell of
// the study), projected from the measured setup nearest the target's data size, scaled linearly by the
// data-size parameters (rows). The runner's prepare bound is raised to fit it (runner/prepare-bound.ts),
// so it is counted in full up to the largest bound + INSTALL_START_ALLOWANCE_S.
import type { Plan } from "../../runner/plan.ts";
import { defaultPrepareBoundS, prepareBoundS, type PrepareBounds } from "../../runner/prepare-bound.ts";
import { runsDir } from "../paths.ts";
import { median } from "../stats.ts";
import { dataRatio, loadReferences, type MeasuredSetup, type References, type ToolOf } from "./references.ts";

export const INSTALL_START_ALLOWANCE_S = 300;
// Setup of a system for a study nothing has measured yet (install, start, load): an assumption, noted.
export const SETUP_ASSUMED_S = 15 * 60;

/**
 * The measured setup nearest the target's data size (the smallest data ratio; the newest among equals, refs being
 * newest first). The newest alone would let a tiny run (the ci profile's, made by the README's `main`) stand for a
 * full-size prepare, multiplying its fixed start-up by the whole size ratio (a ci run's 15 s became 1,363 min).
 */
function nearestSetup(key: string, target: Record<string, string>, refs: References): MeasuredSetup | undefined {
  let best: MeasuredSetup | undefined;
  let bestRatio = Number.POSITIVE_INFINITY;
  for (const r of refs) {
    const s = r.setups.get(key);
    if (s && dataRatio(target, s.env) < bestRatio) [best, bestRatio] = [s, dataRatio(target, s.env)];
  }
  return best;
}

/** A system's projected setup for a study: its measured setup nearest the target's size, scaled to it, else the study's median, else assumed. */
export function projectedSetup(
  study: string,
  target: Record<string, string>,
  system: string,
  refs: References,
): { seconds: number; note?: string } {
  const ref = nearestSetup(`${system}/${study}`, target, refs);
  if (ref) return { seconds: ref.seconds * dataRatio(target, ref.env) };
  const measured = refs.flatMap((r) =>
    [...r.setups.entries()]
      .filter(([k]) => k.endsWith(`/${study}`))
      .map(([, v]) => v.seconds * dataRatio(target, v.env)),
  );
  return {
    seconds: measured.length ? median(measured) : SETUP_ASSUMED_S,
    note: `${system}: no measured setup for ${study}; ${measured.length ? "the study's median" : `${SETUP_ASSUMED_S / 60} min assumed`} used`,
  };
}

/** The prepare bounds the runner raises above its default from the projected setups (prepare-bound.ts): study -> system -> s. */
export function prepareBounds(plan: Plan, dir: string = runsDir()): PrepareBounds {
  const toolOf: ToolOf = (study, workload) => plan.studies[study]?.workloads.find((w) => w.name === workload)?.tool;
  const refs = loadReferences(dir, toolOf);
  const out: PrepareBounds = {};
  for (const [study, planned] of Object.entries(plan.studies)) {
    const raised: Record<string, number> = {};
    for (const system of new Set(plan.cells.filter((c) => c.study === study).map((c) => c.system))) {
      const bound = prepareBoundS(planned.cellTimeoutS, projectedSetup(study, planned.env, system, refs).seconds);
      if (bound > defaultPrepareBoundS(planned.cellTimeoutS)) raised[system] = bound;
    }
    if (Object.keys(raised).length) out[study] = raised;
  }
  return out;
}

/** Setup seconds of a study (each system's projected setup, capped at the prepare bound the runner will allow it) plus the sequential budget. */
export function studySetup(
  study: string,
  planned: Plan["studies"][string],
  systems: string[],
  refs: References,
  notes: string[],
): number {
  let setup = 0;
  for (const system of systems) {
    const { seconds: s, note } = projectedSetup(study, planned.env, system, refs);
    if (note) notes.push(note);
    const bound = prepareBoundS(planned.cellTimeoutS, s);
    if (bound > defaultPrepareBoundS(planned.cellTimeoutS))
      notes.push(
        `${system}: projected setup ${Math.round(s)} s; the runner's prepare bound for ${study} is raised to ${bound} s`,
      );
    const cap = bound + INSTALL_START_ALLOWANCE_S;
    if (s > cap)
      notes.push(
        `${system}: projected setup ${Math.round(s)} s is above the largest prepare bound; counted as ${cap} s (the prepare would time out there)`,
      );
    setup += Math.min(s, cap);
  }
  // Claim-driven extra repetitions may use up to the study's budget: counted in full, so the limit holds.
  if (planned.sequential) {
    setup += planned.sequential.budgetS;
    notes.push(
      `up to ${planned.sequential.budgetS} s of claim-driven extra repetitions (at most ${planned.sequential.maxRepetitions} in all) counted in full`,
    );
  }
  return setup;
}
