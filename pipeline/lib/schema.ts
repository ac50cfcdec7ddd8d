import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv";
import { schemaDir } from "./paths.ts";
import { UserError } from "./errors.ts";

// One set of JSON Schemas, used by the pipeline when it writes and by publish/validate when it reads
// (the site reads only what publish validated).
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });

function load(name: string): ValidateFunction {
  const schema = JSON.parse(readFileSync(path.join(schemaDir, name), "utf8"));
  return ajv.compile(schema);
}

export const recordSchema = JSON.parse(readFileSync(path.join(schemaDir, "record.schema.json"), "utf8"));
// Column order of records.csv and results.csv.
export const recordColumns: string[] = recordSchema.required;

export const validateRecord = load("record.schema.json");
export const validateManifest = load("manifest.schema.json");
export const validateProfile = load("profile.schema.json");

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || "(top)"} ${e.message}${e.params && "allowedValues" in e.params ? ` (${(e.params.allowedValues as unknown[]).join(", ")})` : ""}`)
    .join("; ");
}

export function assertValid(validate: ValidateFunction, value: unknown, what: string): void {
  if (!validate(value)) throw new UserError(`${what} is invalid: ${describeErrors(validate.errors)}`);
}
