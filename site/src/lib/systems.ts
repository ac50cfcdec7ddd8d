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
  if (!Array.isArray(list)) throw new Error('samebox site: studies.json "systems" must be an array of systems (name, label, kind, color, ...)');
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
export function systemColor(name: string, index = 0): string {
  return systemOf(name)?.color ?? fallback[index % fallback.length];
}
