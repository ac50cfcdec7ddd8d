// What each cell ran, as its cell folder keeps it (command.txt, sql/*.sql, args.json, ...), from the
// ran.json `samebox publish` writes (pipeline/publish/publish.ts collectRan; pipeline/schema/ran.schema.json): the site shows these
// texts verbatim, never a re-rendering of a workload definition. A cell whose folder has none of the
// files contributes nothing, and the page then shows nothing for it rather than a guess.
import { readGenerated } from "./data.ts";
import type { Ran, RanText } from "../../../pipeline/schema/types.ts";
import { RAN_FILES } from "../../../pipeline/lib/ran-files.ts";
import { serverVariantLabel } from "../../../pipeline/lib/servers.ts";

/** Who ran one text: a (system, variant, concurrency) and the repetitions whose folder had it. */
export interface RanBy {
  system: string;
  variant: string;
  concurrency: number;
  repetitions: number[];
}
/** One distinct text of one file name within a workload, with everyone who ran it. */
export interface RanGroup {
  name: string;
  sha: string;
  text: RanText;
  by: RanBy[];
}

let ran: Ran | undefined;
function load(): Ran {
  if (ran) return ran;
  let raw: unknown;
  try {
    raw = readGenerated("ran.json");
  } catch (e) {
    // Site data from before publish wrote ran.json: nothing to show (the pages then show no what-ran block).
    if (/is missing/.test((e as Error).message)) {
      ran = { head_cap: 0, texts: {}, cells: [] };
      return ran;
    }
    throw e;
  }
  const r = raw as Ran;
  if (!r || typeof r !== "object" || !Array.isArray(r.cells) || typeof r.texts !== "object")
    throw new Error(
      'samebox site: ran.json must be {"head_cap", "texts": {...}, "cells": [...]} as samebox publish writes it',
    );
  ran = r;
  return ran;
}

// The order files are shown in: how a cell runs (command), then its SQL in execution order (ran.schema.json's list).
const fileOrder: readonly string[] = RAN_FILES;

/** Distinct texts per file name that the cells of RUN × STUDY × WORKLOAD ran, in execution order. */
export function ranGroups(runId: string, study: string, workload: string): RanGroup[] {
  const r = load();
  const groups = new Map<string, RanGroup>();
  for (const c of r.cells) {
    if (c.run_id !== runId || c.study !== study || c.workload !== workload) continue;
    for (const f of c.files) {
      const text = r.texts[f.text];
      if (!text)
        throw new Error(
          `samebox site: ran.json cell ${c.run_id} ${c.study}.${c.workload}.${c.system} names text ${f.text}, which is not in "texts"`,
        );
      const key = `${f.name}\u0000${f.text}`;
      const g = groups.get(key) ?? { name: f.name, sha: f.text, text, by: [] };
      g.by.push({
        system: c.system,
        variant: serverVariantLabel(c),
        concurrency: c.concurrency,
        repetitions: [...f.repetitions].sort((a, b) => a - b),
      });
      groups.set(key, g);
    }
  }
  const rank = (n: string) => fileOrder.indexOf(n) + 1 || 99;
  return [...groups.values()]
    .map((g) => ({
      ...g,
      by: g.by.sort(
        (a, b) =>
          a.system.localeCompare(b.system) || a.variant.localeCompare(b.variant) || a.concurrency - b.concurrency,
      ),
    }))
    .sort(
      (a, b) =>
        rank(a.name) - rank(b.name) || a.name.localeCompare(b.name) || a.by[0].system.localeCompare(b.by[0].system),
    );
}

/** Whether any cell of RUN × STUDY kept a what-ran file. */
export function ranAny(runId: string, study: string): boolean {
  return load().cells.some((c) => c.run_id === runId && c.study === study && c.files.length > 0);
}
