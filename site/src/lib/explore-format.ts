// Cell formatting shared by Explore's live result table (browser) and its build-time rendering of the
// default preset (explore.astro), so the two show the same text for the same value.
export function formatCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number")
    return Number.isInteger(v) ? v.toLocaleString("en-US") : v.toLocaleString("en-US", { maximumSignificantDigits: 6 });
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}
