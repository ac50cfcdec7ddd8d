import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { schemaDir } from "./paths.ts";
import { UserError } from "./errors.ts";
import type {
  ClaimsFile,
  Profile,
  Ran,
  ResultRecord,
  RunCatalogues,
  RunManifest,
  SiteCatalog,
  StudyFile,
  SystemFile,
  WorkloadFile,
} from "../schema/types.ts";

// One set of JSON Schemas, used by the pipeline when it writes and by publish/validate when it reads
// (the site reads only what publish validated).
// verbose: errors carry the offending value and their schema, so a message can say what was given and what is valid.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
// The enumerations several schemas share (capability, dialect), referenced as defs.schema.json#/$defs/<name>.
ajv.addSchema(JSON.parse(readFileSync(path.join(schemaDir, "defs.schema.json"), "utf8")));

// Each validator is a type guard for the type generated from its schema (pipeline/schema/types.ts).
function load<T>(name: string): ValidateFunction<T> {
  const schema = JSON.parse(readFileSync(path.join(schemaDir, name), "utf8"));
  return ajv.compile<T>(schema);
}

export const recordSchema = JSON.parse(readFileSync(path.join(schemaDir, "record.schema.json"), "utf8"));
// Column order of records.csv and results.csv.
export const recordColumns: string[] = recordSchema.required;

export const validateRecord = load<ResultRecord>("record.schema.json");
export const validateManifest = load<RunManifest>("manifest.schema.json");
export const validateProfile = load<Profile>("profile.schema.json");
// The contract files between bench-scripts, pipeline and site (checked by catalog.ts when it loads them).
export const validateStudy = load<StudyFile>("study.schema.json");
export const validateSystem = load<SystemFile>("system.schema.json");
export const validateWorkload = load<WorkloadFile>("workload.schema.json");
export const validateClaims = load<ClaimsFile>("claims.schema.json");
// The site's data contract: what publish writes into site/src/generated (after the schemas they refer to).
export const validateSiteCatalog = load<SiteCatalog>("site-catalog.schema.json");
export const validateRan = load<Ran>("ran.schema.json");
export const validateRunCatalogues = load<RunCatalogues>("run-catalogues.schema.json");

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || "(top)"} ${e.message}${detail(e)}`)
    .join("; ");
}

function shown(v: unknown): string {
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

// What was given and what is valid, for the errors whose ajv message says neither.
function detail(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === "enum")
    return ` (${(p.allowedValues as unknown[]).join(", ")})${e.data === undefined ? "" : `; got ${shown(e.data)}`}`;
  if (e.keyword === "additionalProperties") {
    const valid = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    return `: '${String(p.additionalProperty)}'${valid.length ? `; valid: ${valid.join(", ")}` : ""}`;
  }
  if (e.keyword === "type" || e.keyword === "pattern") return `; got ${shown(e.data)}`;
  return "";
}

export function assertValid<T>(validate: ValidateFunction<T>, value: unknown, what: string): asserts value is T {
  if (!validate(value)) throw new UserError(`${what} is invalid: ${describeErrors(validate.errors)}`);
}
