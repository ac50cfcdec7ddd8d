import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { systemsDir, studiesDir, profilesDir } from "./paths.ts";
import { UserError, oneOf } from "./errors.ts";
import { canonicalClaim } from "./claim-spec.ts";
import { assertValid, validateProfile, validateStudy, validateSystem, validateWorkload } from "./schema.ts";
import type { Capability, Profile, SitePreset, StudyFile, SystemFile, WorkloadFile } from "../schema/types.ts";

// What exists is what is on disk: a system is a folder in bench-scripts/systems, a study a folder in
// bench-scripts/studies, a workload a JSON file in its workloads/, a profile a JSON file in pipeline/profiles.

// Shapes of system.json, workload and study.json files and profiles: generated from
// pipeline/schema/*.schema.json (npm run gen-types), the contract checked on every load below; the
// loaded definitions add where they were read (dir/file) and a study its workloads.
export type { Profile };
export type { Capability };
export type SystemDef = SystemFile & { dir: string };
export type WorkloadDef = WorkloadFile & { file: string };
export type StudyDef = StudyFile & { dir: string; workloads: WorkloadDef[] };
export type StudyProfile = Profile["studies"][string];

function readJson(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UserError(`cannot read ${file}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => statSync(path.join(dir, n)).isDirectory())
    .sort();
}

export function systemNames(): string[] {
  return subdirs(systemsDir).filter((n) => existsSync(path.join(systemsDir, n, "system.json")));
}

export function loadSystem(name: string): SystemDef {
  const names = systemNames();
  if (!names.includes(name)) throw oneOf("system", name, names);
  const dir = path.join(systemsDir, name);
  const file = path.join(dir, "system.json");
  const def = readJson(file);
  if ("sysbench_driver" in def)
    throw new UserError(
      `${file}: /sysbench_driver was replaced by /drivers/sysbench (and /capabilities must list "sysbench")`,
    );
  assertValid(validateSystem, def, file);
  if (def.name !== name) throw new UserError(`${file}: name '${String(def.name)}' does not match its folder '${name}'`);
  return { ...def, dir };
}

export function studyNames(): string[] {
  return subdirs(studiesDir).filter((n) => existsSync(path.join(studiesDir, n, "study.json")));
}

export function loadStudy(name: string): StudyDef {
  const names = studyNames();
  if (!names.includes(name)) throw oneOf("study", name, names);
  const dir = path.join(studiesDir, name);
  const studyFile = path.join(dir, "study.json");
  const def = readJson(studyFile);
  if ("systems" in def)
    throw new UserError(
      `${studyFile}: /systems was replaced by /requires (the capabilities its systems need, matched against system.json capabilities; profiles pick the systems)`,
    );
  assertValid(validateStudy, def, studyFile);
  if (def.name !== name)
    throw new UserError(`${studyFile}: name '${String(def.name)}' does not match its folder '${name}'`);
  const wdir = path.join(dir, "workloads");
  const workloads = existsSync(wdir)
    ? readdirSync(wdir)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => {
          const file = path.join(wdir, f);
          const w = readJson(file);
          for (const legacy of ["systems", "unsupported"]) {
            if (legacy in w)
              throw new UserError(
                `${file}: /${legacy} is no longer read: a workload says what it needs in /requires (capabilities, matched against system.json capabilities; why a system lacks one goes in its system.json capability_notes), and profiles pick the systems`,
              );
          }
          assertValid(validateWorkload, w, file);
          if (w.name !== f.replace(/\.json$/, ""))
            throw new UserError(`${file}: name '${String(w.name)}' does not match its file name`);
          return { ...w, file };
        })
    : [];
  // study.json may order its workloads (e.g. the one that grows the tables last); the rest follow by name.
  const order = def.workload_order ?? [];
  for (const w of order) {
    if (!workloads.some((x) => x.name === w))
      throw new UserError(
        `${studyFile}: /workload_order: '${w}' is not a workload of study ${name}; valid: ${workloads.map((x) => x.name).join(", ")}`,
      );
  }
  const rank = (w: WorkloadDef) => (order.includes(w.name) ? order.indexOf(w.name) : order.length);
  workloads.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  checkSiteFacts(def, workloads, dir, studyFile);
  return { ...def, dir, workloads };
}

/** The facts the site shows about a study (seed attribution, page order, headline metrics, presets) name what exists. */
function checkSiteFacts(def: StudyFile, workloads: WorkloadDef[], dir: string, studyFile: string): void {
  const names = workloads.map((w) => w.name);
  if (def.seed && !def.seed_attribution)
    throw new UserError(
      `${studyFile}: /seed_attribution {source, setup} is needed with /seed: the site names seed ${def.seed} by it`,
    );
  for (const w of [...(def.display_order ?? []), ...Object.keys(def.headline_metrics ?? {})]) {
    if (!names.includes(w))
      throw new UserError(
        `${studyFile}: '${w}' (display_order or headline_metrics) is not a workload of study ${def.name}; valid: ${names.join(", ")}`,
      );
  }
  const categories = [...new Set(workloads.map((w) => String(w.category ?? "")).filter(Boolean))];
  for (const c of def.category_order ?? []) {
    if (!categories.includes(c))
      throw new UserError(
        `${studyFile}: /category_order: '${c}' is no workload's category; valid: ${categories.join(", ")}`,
      );
  }
  checkSeedConditions(def, names, studyFile);
  for (const p of def.presets ?? []) {
    const file = path.resolve(dir, p.file);
    if (!file.startsWith(dir + path.sep) || !existsSync(file))
      throw new UserError(`${studyFile}: preset '${p.id}': file ${p.file} is not a file in the study's folder`);
  }
}

/** seed_conditions: ids unique, every workload pattern naming a workload of the study. */
function checkSeedConditions(def: StudyFile, names: string[], studyFile: string): void {
  const seen = new Set<string>();
  for (const row of def.seed_conditions?.rows ?? []) {
    if (seen.has(row.id)) throw new UserError(`${studyFile}: /seed_conditions: row id '${row.id}' appears twice`);
    seen.add(row.id);
    for (const p of [...(row.workloads ?? []), ...(row.not_workloads ?? [])]) {
      const hit = p.endsWith("*") ? names.some((n) => n.startsWith(p.slice(0, -1))) : names.includes(p);
      if (!hit)
        throw new UserError(
          `${studyFile}: /seed_conditions row '${row.id}': '${p}' matches no workload of study ${def.name}; valid: ${names.join(", ")} (a trailing * matches a prefix)`,
        );
    }
  }
}

// A run keeps the catalogue it ran with: its studies' study.json and claims.json are copied into the run
// folder (catalogue/<study>/) when it starts, so publish judges an old run's claims as they were then.
export const CATALOGUE_SNAPSHOT = "catalogue";
export const SNAPSHOT_FILES = ["study.json", "claims.json"] as const;
export function snapshotCatalogue(runDir: string, studies: string[]): void {
  for (const study of studies) {
    const to = path.join(runDir, CATALOGUE_SNAPSHOT, study);
    mkdirSync(to, { recursive: true });
    for (const f of SNAPSHOT_FILES)
      if (existsSync(path.join(studiesDir, study, f))) copyFileSync(path.join(studiesDir, study, f), path.join(to, f));
    const claimsFile = path.join(studiesDir, study, "claims.json");
    if (existsSync(claimsFile))
      writeFileSync(path.join(to, CLAIM_SPECS), `${JSON.stringify(claimSpecs(claimsFile), null, 2)}\n`);
  }
}

/** The file beside a run's claims.json copy that names the exact specification of every claim it judges. */
export const CLAIM_SPECS = "claim-specs.json";

/** sha256 of the claims file, the commit that last changed it (when git can say), and each claim's own sha256. */
export function claimSpecs(claimsFile: string): {
  file_sha256: string;
  file_commit: string | null;
  claims: Record<string, string>;
} {
  const text = readFileSync(claimsFile, "utf8");
  const sha = (t: string) => createHash("sha256").update(t).digest("hex");
  let commit: string | null = null;
  try {
    commit =
      execFileSync("git", ["log", "-1", "--format=%H", "--", path.basename(claimsFile)], {
        cwd: path.dirname(claimsFile),
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim() || null;
  } catch {
    commit = null; // not a git checkout (a copied tree): the file's hash still names it
  }
  const claims = (JSON.parse(text) as { claims?: Array<{ id: string }> }).claims ?? [];
  return {
    file_sha256: sha(text),
    file_commit: commit,
    claims: Object.fromEntries(claims.map((c) => [c.id, sha(canonicalClaim(c))])),
  };
}

/** A study's presets with their SQL read from its folder (publish carries them to the Explore page). */
export function studyPresets(def: StudyDef): SitePreset[] {
  return (def.presets ?? []).map((p) => ({ ...p, sql: readFileSync(path.resolve(def.dir, p.file), "utf8").trimEnd() }));
}

/** Why SYSTEM cannot run STUDY at all (missing study capability or dialect), or null when it can. */
export function studyMismatch(system: SystemDef, study: StudyDef): string | null {
  const missing = study.requires.filter((c) => !system.capabilities.includes(c));
  if (missing.length) return `study ${study.name} needs ${missingText(system, missing)}`;
  if (study.dialects && !(system.sql && study.dialects.includes(system.sql.dialect))) {
    return `study ${study.name} has SQL for the dialects ${study.dialects.join(", ")}; ${system.name} speaks ${system.sql?.dialect ?? "no SQL dialect"} (systems/${system.name}/system.json sql.dialect)`;
  }
  return null;
}

/** Why SYSTEM cannot run WORKLOAD (a capability it lacks, with the system's own note), or null. */
export function workloadMismatch(system: SystemDef, workload: WorkloadDef): string | null {
  const missing = (workload.requires ?? []).filter((c) => !system.capabilities.includes(c));
  return missing.length ? `${workload.name} needs ${missingText(system, missing)}` : null;
}

/** Why a system cannot run a study's variant (study.json variant_requires), or null when it can. */
export function variantMismatch(system: SystemDef, study: StudyDef, variant: string): string | null {
  const missing = (study.variant_requires?.[variant] ?? []).filter((c) => !system.capabilities.includes(c));
  return missing.length ? `variant ${variant} needs ${missingText(system, missing)}` : null;
}

function missingText(system: SystemDef, missing: Capability[]): string {
  return missing
    .map((c) => {
      const note = system.capability_notes?.[c];
      return `capability '${c}', which ${system.name} lacks: ${note ?? `not in systems/${system.name}/system.json capabilities`}`;
    })
    .join("; ");
}

export function profileNames(): string[] {
  return readdirSync(profilesDir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.replace(/\.json$/, ""))
    .sort();
}

/** A study's `context` cells name systems and workloads the study's own entry plans, and need cells "claims". */
function checkContext(profile: string, study: string, sp: Profile["studies"][string]): void {
  if (!sp.context) return;
  const where = `profile ${profile}: study ${study}: context`;
  if (sp.cells !== "claims")
    throw new UserError(
      `${where} needs cells "claims" (with cells "all" every system already runs every workload); set cells to "claims" or remove context`,
    );
  for (const s of sp.context.systems)
    if (!sp.systems.includes(s))
      throw new UserError(`${where}: system '${s}' is not among the study's systems; valid: ${sp.systems.join(", ")}`);
  for (const w of sp.context.workloads)
    if (sp.workloads && !sp.workloads.includes(w))
      throw new UserError(
        `${where}: workload '${w}' is not among the study's workloads; valid: ${sp.workloads.join(", ")}`,
      );
  const variants = sp.variants ?? [];
  for (const v of sp.context.variants ?? [])
    if (variants.length && !variants.includes(v))
      throw new UserError(`${where}: variant '${v}' is not among the study's variants; valid: ${variants.join(", ")}`);
}

export function loadProfile(nameOrPath: string): Profile {
  let file: string;
  if (nameOrPath.endsWith(".json")) file = path.resolve(nameOrPath);
  else {
    const names = profileNames();
    if (!names.includes(nameOrPath)) throw oneOf("profile", nameOrPath, names);
    file = path.join(profilesDir, `${nameOrPath}.json`);
  }
  const p = readJson(file);
  assertValid(validateProfile, p, `profile ${file}`);
  const profile: Profile = p;
  // Cross-check names so a typo in a profile fails before anything runs.
  for (const [study, sp] of Object.entries(profile.studies)) {
    const def = loadStudy(study);
    const fit = systemNames().filter((s) => studyMismatch(loadSystem(s), def) === null);
    for (const s of sp.systems) {
      if (!systemNames().includes(s))
        throw new UserError(`profile ${profile.name}: study ${study}: unknown system '${s}'; valid: ${fit.join(", ")}`);
      const why = studyMismatch(loadSystem(s), def);
      if (why)
        throw new UserError(
          `profile ${profile.name}: study ${study}: system '${s}' cannot run it: ${why}; systems that can: ${fit.join(", ")}`,
        );
    }
    for (const w of sp.workloads ?? []) {
      const valid = def.workloads.map((x) => x.name);
      if (!valid.includes(w))
        throw new UserError(
          `profile ${profile.name}: study ${study}: unknown workload '${w}'; valid: ${valid.join(", ")}`,
        );
    }
    checkContext(profile.name, study, sp);
  }
  return profile;
}
