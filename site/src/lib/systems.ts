// The systems table (bench-scripts/systems/<s>/system.json, as `samebox publish` writes it into
// studies.json "systems"): labels, chart colours, kinds and capabilities come from here, so the site
// never keys anything by a system's name. A system missing from the table (an old run's system since
// renamed or removed) gets its name as label and a neutral colour.
import { readGenerated, type SiteSystem } from "./data.ts";

let table: Map<string, SiteSystem> | undefined;

/** Every system publish described, by name. */
export function systemsTable(): Map<string, SiteSystem> {
  if (table) return table;
  const raw = readGenerated("studies.json") as { systems?: unknown } | unknown[];
  const list = Array.isArray(raw) ? [] : ((raw as { systems?: unknown }).systems ?? []);
  if (!Array.isArray(list))
    throw new Error('samebox site: studies.json "systems" must be an array of systems (name, label, kind, color, ...)');
  table = new Map((list as SiteSystem[]).map((s) => [s.name, s]));
  return table;
}

export function systemOf(name: string): SiteSystem | undefined {
  return systemsTable().get(name);
}

/** The system's label from its system.json ("PostgreSQL"), else its name. */
export function systemLabel(name: string): string {
  return systemOf(name)?.label ?? name;
}

/** How a reader should picture the system: an embedded engine runs in the client's process. */
export function runsAs(name: string): string {
  const kind = systemOf(name)?.kind;
  return kind === "embedded" ? "in-process" : kind === "server" || kind === "external" ? "client/server" : "unknown";
}

export function hasCapability(name: string, capability: string): boolean {
  return (systemOf(name)?.capabilities as string[] | undefined)?.includes(capability) ?? false;
}

/** Colour of unknown systems, in turn (a system.json without `color`, or a system no longer in the table). */
const fallback = ["#4c6a85", "#9a5a8a", "#5f8a3a", "#a06a2a", "#2a8a8a"];
/** The system's chart colour: its system.json colour, darkened where needed to ≥ 3:1 against the page (see readable). */
export function systemColor(name: string, index = 0): string {
  return readable(systemOf(name)?.color ?? fallback[index % fallback.length]);
}

// WCAG 2 relative luminance and contrast ratio of #rrggbb colours.
function channels(hex: string): number[] | undefined {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  return m ? [0, 2, 4].map((i) => Number.parseInt(m[1].slice(i, i + 2), 16)) : undefined;
}
function luminance(rgb: number[]): number {
  const [r, g, b] = rgb.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [a, b].map((h) => luminance(channels(h) ?? [0, 0, 0])).sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
/** The page background the charts sit on (site.css --bg). */
export const PAGE_BACKGROUND = "#ffffff";
/** MIN_CONTRAST is WCAG 1.4.11's for graphical objects. */
export const MIN_CONTRAST = 3;
/**
 * HEX, or the same hue scaled towards black just enough to reach MIN_CONTRAST against the page (
 * Bun's gold, Go's cyan and Spring's green were 2.4–2.6:1 on white). A colour that already passes is returned as is.
 */
export function readable(hex: string): string {
  const rgb = channels(hex);
  if (!rgb || contrastRatio(hex, PAGE_BACKGROUND) >= MIN_CONTRAST) return hex;
  for (let f = 0.98; f > 0; f -= 0.02) {
    const c = `#${rgb
      .map((v) =>
        Math.round(v * f)
          .toString(16)
          .padStart(2, "0"),
      )
      .join("")}`;
    if (contrastRatio(c, PAGE_BACKGROUND) >= MIN_CONTRAST) return c;
  }
  return "#000000";
}
