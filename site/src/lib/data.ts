// Build-time access to the files `samebox publish` writes (src/generated/*.json). Every page reads
// through here, so a missing or malformed file fails the build with one line naming the file.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import recordSchema from "../../../pipeline/schema/record.schema.json";
import type {
  Profile,
  ResultRecord,
  RunCatalogues,
  RunManifest,
  SiteCatalog,
  SiteStudy,
  SiteSystem,
  SiteWorkload,
} from "../../../pipeline/schema/types.ts";

// Shapes of the published files: generated from pipeline/schema/*.schema.json (npm run gen-types).
export type { ResultRecord, RunManifest, Profile };
export type Source = ResultRecord["source"];

// studies.json as publish writes it (pipeline/publish/site-catalog.ts; the contract:
// pipeline/schema/site-catalog.schema.json): each study's folder plus the systems able to run each
// study and workload, the profiles and the systems table.
export type { SiteCatalog, SiteSystem };
export type Study = SiteStudy;
export type Workload = SiteWorkload;
export const recordColumns: string[] = recordSchema.required;

function siteDir(): string {
  // Set by astro.config.mjs (SAMEBOX_SITE_DIR or site/).
  return process.env.SAMEBOX_RESOLVED_SITE_DIR ?? path.resolve("site");
}

/** Whether `samebox publish` copied this file (path relative to the site root, e.g. data/runs/<id>/cells/<cell>/stdout.txt) into public/. */
export function publishedFileExists(rel: string): boolean {
  return rel !== "" && !rel.includes("..") && existsSync(path.join(siteDir(), "public", rel));
}

export function readGenerated(name: string): unknown {
  const file = path.join(siteDir(), "src", "generated", name);
  if (!existsSync(file)) {
    throw new Error(
      `samebox site: ${file} is missing; run \`npm run publish-data\` first (or set SAMEBOX_SITE_DIR to a folder holding src/generated/)`,
    );
  }
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`samebox site: ${file} is not valid JSON (${(e as Error).message})`);
  }
}

let cache: { records: ResultRecord[]; runs: RunManifest[]; studies: Study[]; profiles: Profile[] } | undefined;

export function loadSiteData() {
  if (cache) return cache;
  const records = readGenerated("records.json");
  if (!Array.isArray(records)) throw new Error("samebox site: records.json must be an array of records");
  const validate = new Ajv2020({ allErrors: false, strict: false }).compile(recordSchema);
  records.forEach((r, i) => {
    if (!validate(r)) {
      const e = validate.errors?.[0];
      throw new Error(
        `samebox site: records.json[${i}] ${e?.instancePath || "(record)"} ${e?.message}; records must follow pipeline/schema/record.schema.json`,
      );
    }
  });
  const runs = readGenerated("runs.json");
  if (!Array.isArray(runs)) throw new Error("samebox site: runs.json must be an array of run manifests");
  runs.forEach((m, i) => {
    for (const k of ["run_id", "profile", "started_at", "machine", "cells", "summary"]) {
      if (!(k in (m as object)))
        throw new Error(
          `samebox site: runs.json[${i}] lacks "${k}"; manifests must follow pipeline/schema/manifest.schema.json`,
        );
    }
  });
  // studies.json is either the array of studies or { studies, profiles }.
  const raw = readGenerated("studies.json") as
    | Study[]
    | { studies: Study[]; profiles?: Profile[] | Record<string, Profile> };
  const studies = Array.isArray(raw) ? raw : raw.studies;
  if (!Array.isArray(studies))
    throw new Error('samebox site: studies.json must be an array of studies or {"studies": [...], "profiles": [...]}');
  const rawProfiles = Array.isArray(raw) ? [] : (raw.profiles ?? []);
  const profiles = Array.isArray(rawProfiles) ? rawProfiles : Object.values(rawProfiles);
  cache = {
    records: records as ResultRecord[],
    runs: (runs as RunManifest[]).slice().sort((a, b) => b.started_at.localeCompare(a.started_at)),
    studies,
    profiles,
  };
  return cache;
}

let catalogues: RunCatalogues | undefined;
/** catalogues.json: per run and study, the claims the run ran with; {} when publish did not write it (older data, the fixture). */
export function runCatalogues(): RunCatalogues {
  if (!catalogues)
    catalogues = existsSync(path.join(siteDir(), "src", "generated", "catalogues.json"))
      ? (readGenerated("catalogues.json") as RunCatalogues)
      : {};
  return catalogues;
}
