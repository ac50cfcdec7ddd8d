// Number formatting and base-aware URLs shared by all pages.
const intFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const sigFmt = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 });

export function num(v: number): string {
  if (!Number.isFinite(v)) return "–";
  return Math.abs(v) >= 100 ? intFmt.format(v) : sigFmt.format(v);
}

const unitSuffix: Record<string, string> = { "%": "%", count: "" };
export function withUnit(v: number, unit: string): string {
  const suffix = unit in unitSuffix ? unitSuffix[unit] : ` ${unit}`;
  return `${num(v)}${suffix}`;
}

export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${num(v)} ${units[i]}`;
}

export function duration(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return "–";
  if (s < 60) return `${num(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** A path inside the site, prefixed with the configured base (SAMEBOX_BASE). */
export function url(p: string): string {
  const base = import.meta.env.BASE_URL.replace(/\/$/, "");
  return `${base}/${p.replace(/^\//, "")}`;
}

export function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}
