import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { systemsDir, studiesDir, profilesDir } from "./paths.ts";
import { UserError, oneOf } from "./errors.ts";
import { assertValid, validateProfile, validateStudy, validateSystem, validateWorkload } from "./schema.ts";

// What exists is what is on disk: a system is a folder in bench-scripts/systems, a study a folder in
// bench-scripts/studies, a workload a JSON file in its workloads/, a profile a JSON file in pipeline/profiles.

// Shapes of system.json, workload and study.json files: pipeline/schema/{system,workload,study}.schema.json
// are the contract, checked on every load below; these types mirror them (plus dir/file, where it was read).
export interface SystemDef { name: string; label: string; kind: "server" | "embedded" | "external"; sysbench_driver?: "pgsql" | "mysql"; notes: string; dir: string; [k: string]: unknown }
export interface WorkloadDef { name: string; title: string; description: string; tool: string; systems: string[]; file: string; [k: string]: unknown }
export interface StudyDef { name: string; title: string; seed?: string; systems: string[]; description: string; dir: string; workloads: WorkloadDef[]; [k: string]: unknown }
export interface StudyProfile {
  systems: string[];
  workloads?: string[];
  concurrency: number[];
  variants?: string[];
  repetitions?: number;
  cell_timeout_s?: number;
  env: Record<string, string | number>;
}
export interface Profile { name: string; description: string; repetitions: number; studies: Record<string, StudyProfile> }

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
  return readdirSync(dir).filter((n) => statSync(path.join(dir, n)).isDirectory()).sort();
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
  assertValid(validateSystem, def, file);
  if (def.name !== name) throw new UserError(`${file}: name '${String(def.name)}' does not match its folder '${name}'`);
  return { ...def, dir } as SystemDef;
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
  assertValid(validateStudy, def, studyFile);
  if (def.name !== name) throw new UserError(`${studyFile}: name '${String(def.name)}' does not match its folder '${name}'`);
  const studySystems = def.systems as string[];
  const wdir = path.join(dir, "workloads");
  const workloads = existsSync(wdir)
    ? readdirSync(wdir)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => {
          const file = path.join(wdir, f);
          const w = readJson(file);
          assertValid(validateWorkload, w, file);
          if (w.name !== f.replace(/\.json$/, "")) throw new UserError(`${file}: name '${String(w.name)}' does not match its file name`);
          for (const s of w.systems as string[]) {
            if (!studySystems.includes(s)) throw new UserError(`${file}: /systems: '${s}' is not a system of study ${name}; valid: ${studySystems.join(", ")}`);
          }
          return { ...w, file } as WorkloadDef;
        })
    : [];
  // study.json may order its workloads (e.g. the one that grows the tables last); the rest follow by name.
  const order = Array.isArray(def.workload_order) ? (def.workload_order as string[]) : [];
  for (const w of order) {
    if (!workloads.some((x) => x.name === w)) throw new UserError(`${studyFile}: /workload_order: '${w}' is not a workload of study ${name}; valid: ${workloads.map((x) => x.name).join(", ")}`);
  }
  const rank = (w: WorkloadDef) => (order.includes(w.name) ? order.indexOf(w.name) : order.length);
  workloads.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  return { ...def, dir, workloads } as StudyDef;
}

export function profileNames(): string[] {
  return readdirSync(profilesDir).filter((f) => f.endsWith(".json")).map((f) => f.replace(/\.json$/, "")).sort();
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
  const profile = p as unknown as Profile;
  // Cross-check names so a typo in a profile fails before anything runs.
  for (const [study, sp] of Object.entries(profile.studies)) {
    const def = loadStudy(study);
    for (const s of sp.systems) if (!systemNames().includes(s)) throw new UserError(`profile ${profile.name}: study ${study}: unknown system '${s}'; valid: ${systemNames().join(", ")}`);
    for (const w of sp.workloads ?? []) {
      const valid = def.workloads.map((x) => x.name);
      if (!valid.includes(w)) throw new UserError(`profile ${profile.name}: study ${study}: unknown workload '${w}'; valid: ${valid.join(", ")}`);
    }
  }
  return profile;
}
