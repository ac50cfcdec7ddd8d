// The runner's time bound on a study's prepare verb (one system's data load).
//
// The default, max(600, 4 x cell_timeout_s), is enough for the data sizes of the ci and quick profiles.
// A profile whose data is far larger (full: mcp-db's 25.6 M rows, loaded twice per system) would time out
// there on the box. So the bound of a (system, study) is raised to what `samebox estimate` projects for
// its setup (pipeline/lib/estimate.ts: the measured setup scaled by the data-size ratio) times a margin,
// when that is larger than the default; never above a box's hard limit. The raised bounds are recorded in
// the manifest (config.studies[study].prepare_timeout_s, system -> seconds), and the estimate counts the
// same bound, so the box's time limit pays for the prepare the runner will allow.
import type { Plan } from "./plan.ts";

/** The projected setup is an estimate from other machines and sizes: 1.5 x it before a prepare is called stuck. */
export const PREPARE_BOUND_MARGIN = 1.5;
/** terraform/run's max_minutes bound (estimate.ts MAX_LIMIT_MIN): no prepare may outlast a box. */
export const PREPARE_BOUND_MAX_S = 600 * 60;

export function defaultPrepareBoundS(cellTimeoutS: number): number {
  return Math.max(600, cellTimeoutS * 4);
}

/** The bound for one (system, study): the default, or the projected setup x the margin when that is larger. */
export function prepareBoundS(cellTimeoutS: number, projectedSetupS?: number): number {
  const base = defaultPrepareBoundS(cellTimeoutS);
  if (projectedSetupS === undefined || !Number.isFinite(projectedSetupS) || projectedSetupS <= 0) return base;
  return Math.max(base, Math.min(PREPARE_BOUND_MAX_S, Math.ceil(projectedSetupS * PREPARE_BOUND_MARGIN)));
}

export type PrepareBounds = Record<string, Record<string, number>>; // study -> system -> seconds (raised ones only)

/** Puts the raised bounds on the plan (the runner's prepare reads them) and into its config (the manifest records them). */
export function applyPrepareBounds(plan: Plan, bounds: PrepareBounds): void {
  const config = plan.config.studies as Record<string, Record<string, unknown>> | undefined;
  for (const [study, bySystem] of Object.entries(bounds)) {
    if (!plan.studies[study] || !Object.keys(bySystem).length) continue;
    plan.studies[study].prepareTimeoutS = { ...bySystem };
    if (config?.[study]) config[study].prepare_timeout_s = { ...bySystem };
  }
}

/** The bounds a manifest recorded (a resumed run keeps the bounds it began with). */
export function recordedPrepareBounds(config: Record<string, unknown> | undefined): PrepareBounds {
  const studies = (config?.studies ?? {}) as Record<string, { prepare_timeout_s?: Record<string, unknown> }>;
  const out: PrepareBounds = {};
  for (const [study, spec] of Object.entries(studies)) {
    const bySystem = Object.entries(spec?.prepare_timeout_s ?? {}).filter(([, s]) => typeof s === "number" && s > 0);
    if (bySystem.length) out[study] = Object.fromEntries(bySystem) as Record<string, number>;
  }
  return out;
}

/** The prepare verb's timeout for this system in this study. */
export function prepareTimeoutS(ps: Plan["studies"][string], system: string): number {
  return ps.prepareTimeoutS?.[system] ?? defaultPrepareBoundS(ps.cellTimeoutS);
}
