// studies.json, the catalogue the site reads: every study's folder as the site needs it (its study.json,
// workloads, claims and preset queries), the profiles and the systems table. The site reads nothing
// from bench-scripts/ itself: what it shows about a study comes through here, checked by the catalog.
import { existsSync } from "node:fs";
import path from "node:path";
import { CATALOGUE_SNAPSHOT, loadProfile, loadStudy, loadSystem, profileNames, studyMismatch, studyNames, studyPresets, systemNames, workloadMismatch, type Profile, type StudyDef, type SystemDef, type WorkloadDef } from "../lib/catalog.ts";
import { loadStudyClaims } from "../lib/claims.ts";
import { repoRoot } from "../lib/paths.ts";
import type { ClaimsFile, RunManifest, StudyFile } from "../schema/types.ts";

// What the site needs of a system (bench-scripts/systems/<s>/system.json): label and chart colour,
// kind, capabilities (and why one is missing), SQL dialect. Not its notes, port or drivers.
export type SiteSystem = Pick<SystemDef, "name" | "label" | "kind" | "color" | "capabilities" | "capability_notes" | "sql">;
export function siteSystems(): SiteSystem[] {
  return systemNames().map((n) => {
    const { name, label, kind, color, capabilities, capability_notes, sql } = loadSystem(n);
    return { name, label, kind, color, capabilities, capability_notes, sql };
  });
}

/** A preset query of the Explore page (study.json presets), with its SQL read from the study's folder. */
export type SitePreset = NonNullable<StudyFile["presets"]>[number] & { sql: string };

// A study as the site reads it: paths relative to the repository; `systems`, the systems the profiles
// pick for it (profiles pick systems; the page names those a run did not measure); per workload
// `systems`, those of every system able to run the study whose capabilities the workload's `requires`
// has (the page calls a cell of any other system unsupported). Computed from system.json. `claims`: its
// claims.json (absent when the study has none); `presets`: its preset queries with their SQL.
export type SiteWorkload = WorkloadDef & { systems: string[] };
export type SiteStudy = StudyFile & { dir: string; systems: string[]; workloads: SiteWorkload[]; claims?: ClaimsFile; presets: SitePreset[] };
/** studies.json, the catalog the site reads. */
export interface SiteCatalog { studies: SiteStudy[]; profiles: Profile[]; systems: SiteSystem[] }

export function siteStudy(def: StudyDef, profiles: Profile[] = profileNames().map((p) => loadProfile(p))): SiteStudy {
  const { dir, workloads, ...rest } = def;
  const able = systemNames().map(loadSystem).filter((s) => studyMismatch(s, def) === null);
  const picked = [...new Set(profiles.flatMap((p) => p.studies[def.name]?.systems ?? []))];
  const claims = loadStudyClaims(def.name);
  return {
    ...rest,
    dir: path.relative(repoRoot, dir),
    systems: picked,
    workloads: workloads.map(({ file, ...w }) => ({ ...w, file: path.relative(repoRoot, file), systems: able.filter((s) => workloadMismatch(s, { file, ...w }) === null).map((s) => s.name) })),
    ...(claims ? { claims } : {}),
    presets: studyPresets(def),
  };
}

export function studiesCatalog(): SiteCatalog {
  const profiles = profileNames().map((p) => loadProfile(p));
  const studies = studyNames().map((name) => siteStudy(loadStudy(name), profiles));
  // The Explore page picks a preset by id: an id an earlier study already has (a copied study keeps its
  // original's presets) is qualified by the study's name.
  const ids = new Set<string>();
  for (const p of studies.flatMap((s) => s.presets.map((preset) => ({ preset, study: s.name })))) {
    if (ids.has(p.preset.id)) p.preset.id = `${p.study}-${p.preset.id}`; // the object studyPresets just made
    ids.add(p.preset.id);
  }
  return { studies, profiles, systems: siteSystems() };
}

// catalogues.json: per run and study, the claims the run ran with: the copy the runner kept in the run
// folder (catalogue/<study>/claims.json, pipeline/lib/catalog.ts snapshotCatalogue); a run from before
// snapshots gets the study folder's at publish time, and says so (from).
export interface RunStudyCatalogue { from: "run" | "study folder"; claims?: ClaimsFile }
export type RunCatalogues = Record<string, Record<string, RunStudyCatalogue>>;
export function runCatalogues(manifests: Array<Pick<RunManifest, "run_id" | "cells">>, runs: string): RunCatalogues {
  const out: RunCatalogues = {};
  for (const m of manifests) {
    out[m.run_id] = {};
    for (const study of [...new Set(m.cells.map((c) => c.study))].sort()) {
      const kept = path.join(runs, m.run_id, CATALOGUE_SNAPSHOT, study);
      const ran = existsSync(kept);
      const claims = ran ? loadStudyClaims(study, path.join(kept, "claims.json")) : studyNames().includes(study) ? loadStudyClaims(study) : undefined;
      out[m.run_id][study] = { from: ran ? "run" : "study folder", ...(claims ? { claims } : {}) };
    }
  }
  return out;
}
