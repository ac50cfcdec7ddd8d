// Reads a study's claims.json (bench-scripts/studies/<study>/claims.json; format in
// bench-scripts/studies/CLAIMS.md), checked against pipeline/schema/claims.schema.json.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ClaimsFile } from "../schema/types.ts";
import { studiesDir } from "./paths.ts";
import { assertValid, validateClaims } from "./schema.ts";
import { UserError } from "./errors.ts";

export function claimsFile(study: string): string {
  return path.join(studiesDir, study, "claims.json");
}

/** The study's claims, or undefined when it has none. A malformed file is a clear error naming the file and field. */
export function loadStudyClaims(study: string, file = claimsFile(study)): ClaimsFile | undefined {
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UserError(`${file} is not valid JSON (${(e as Error).message})`);
  }
  assertValid(validateClaims, raw, `${file} (format: bench-scripts/studies/CLAIMS.md)`);
  const ids = new Set<string>();
  for (const c of raw.claims) {
    if (ids.has(c.id))
      throw new UserError(`${file}: claim id "${c.id}" appears twice; ids must be unique within a study`);
    ids.add(c.id);
  }
  return raw;
}
