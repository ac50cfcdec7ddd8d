// studies.json, the catalogue the site reads: every study's folder as the site needs it (its study.json,
// workloads, claims and preset queries), the profiles and the systems table; and catalogues.json, the
// claims each run ran with. The site reads nothing from bench-scripts/ itself: what it shows about a
// study comes through here. Shapes: pipeline/schema/site-catalog.schema.json and
// run-catalogues.schema.json (types generated into pipeline/schema/types.ts), checked before writing.
import { existsSync } from "node:fs";
import path from "node:path";
import {
  CATALOGUE_SNAPSHOT,
  loadProfile,
  loadStudy,
  loadSystem,
  profileNames,
  studyMismatch,
  studyNames,
  studyPresets,
  systemNames,
  workloadMismatch,
  type Profile,
  type StudyDef,
} from "../lib/catalog.ts";
import { loadStudyClaims } from "../lib/claims.ts";
import { withSideServers } from "../lib/servers-catalog.ts";
import { repoRoot } from "../lib/paths.ts";
import { assertValid, validateRunCatalogues, validateSiteCatalog } from "../lib/schema.ts";
import type { RunCatalogues, RunManifest, SiteCatalog, SiteStudy, SiteSystem } from "../schema/types.ts";

export function siteSystems(): SiteSystem[] {
  return systemNames().map((n) => {
    const { name, label, kind, color, capabilities, capability_notes, sql } = loadSystem(n);
    return { name, label, kind, color, capabilities, capability_notes, sql };
  });
}

// A study as the site reads it: paths relative to the repository; `systems`, the systems the profiles
// pick for it (profiles pick systems; the page names those a run did not measure); per workload
// `systems`, those of every system able to run the study whose capabilities the workload's `requires`
// has (the page calls a cell of any other system unsupported). Computed from system.json.
export function siteStudy(def: StudyDef, profiles: Profile[] = profileNames().map((p) => loadProfile(p))): SiteStudy {
  const { dir, workloads, presets: _files, ...rest } = def;
  const able = systemNames()
    .map(loadSystem)
    .filter((s) => studyMismatch(s, def) === null);
  const picked = [...new Set(profiles.flatMap((p) => p.studies[def.name]?.systems ?? []))];
  const claims = loadStudyClaims(def.name);
  return {
    ...rest,
    dir: path.relative(repoRoot, dir),
    systems: picked,
    workloads: workloads.map(({ file, ...w }) => ({
      ...w,
      file: path.relative(repoRoot, file),
      systems: able.filter((s) => workloadMismatch(s, { file, ...w }) === null).map((s) => s.name),
    })),
    ...(claims ? { claims } : {}),
    explore_presets: studyPresets(def),
  };
}

/** studies.json: every study, the profiles and the systems table, checked against site-catalog.schema.json. */
export function studiesCatalog(): SiteCatalog {
  const profiles = profileNames().map((p) => loadProfile(p));
  const studies = studyNames().map((name) => siteStudy(loadStudy(name), profiles));
  // The Explore page picks a preset by id: an id an earlier study already has (a copied study keeps its
  // original's presets) is qualified by the study's name.
  const ids = new Set<string>();
  for (const p of studies.flatMap((s) => s.explore_presets.map((preset) => ({ preset, study: s.name })))) {
    if (ids.has(p.preset.id)) p.preset.id = `${p.study}-${p.preset.id}`; // the object studyPresets just made
    ids.add(p.preset.id);
  }
  const catalog = { studies, profiles, systems: siteSystems() };
  assertValid(
    validateSiteCatalog,
    catalog,
    "the site catalogue publish writes (pipeline/schema/site-catalog.schema.json)",
  );
  return catalog;
}

// catalogues.json: per run and study, the claims the run ran with: the copy the runner kept in the run
// folder (catalogue/<study>/claims.json, pipeline/lib/catalog.ts snapshotCatalogue); a run from before
// snapshots gets the study folder's at publish time, and says so (from).
export function runCatalogues(manifests: Array<Pick<RunManifest, "run_id" | "cells">>, runs: string): RunCatalogues {
  const out: RunCatalogues = {};
  for (const m of manifests) {
    out[m.run_id] = {};
    for (const study of [...new Set(m.cells.map((c) => c.study))].sort()) {
      const kept = path.join(runs, m.run_id, CATALOGUE_SNAPSHOT, study);
      const ran = existsSync(kept);
      const snapshot = ran
        ? loadStudyClaims(study, path.join(kept, "claims.json"))
        : studyNames().includes(study)
          ? loadStudyClaims(study)
          : undefined;
      // a run from before claim sides named their server kept variant <server>-<state>: read as server + state
      const claims = snapshot && withSideServers(study, snapshot);
      out[m.run_id][study] = { from: ran ? "run" : "study folder", ...(claims ? { claims } : {}) };
    }
  }
  assertValid(
    validateRunCatalogues,
    out,
    "the run catalogues publish writes (pipeline/schema/run-catalogues.schema.json)",
  );
  return out;
}
