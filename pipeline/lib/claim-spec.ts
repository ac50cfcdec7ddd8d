// A claim's specification: the claim as written in claims.json, keys sorted at every level, so that two
// copies of one claim compare (and hash) equal whatever their key order. A run keeps each claim's sha256
// (catalogue/<study>/claim-specs.json, catalog.ts snapshotCatalogue); a page compares the claim a run was
// judged under with the study's current one field by field.

/** The claim's canonical JSON text. */
export function canonicalClaim(claim: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(claim));
}

/** The top-level fields whose value differs between two specifications of a claim (sorted), [] when equal. */
export function specChanges(was: object, now: object): string[] {
  const a = was as Record<string, unknown>;
  const b = now as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => canonicalClaim(a[k] ?? null) !== canonicalClaim(b[k] ?? null))
    .sort();
}
