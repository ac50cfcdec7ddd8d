import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { RAN_FILES } from "../lib/ran-files.ts";
import { assertValid, validateRan } from "../lib/schema.ts";
import { cellIdentity } from "../lib/servers.ts";
import type { Ran, RanCell, RanText } from "../schema/types.ts";
import type { ManifestLike } from "./provenance.ts";

// ---- what ran: the exact SQL and command lines a cell executed, as its cell folder keeps them
// (bench-scripts/studies/<st>/README.md names them). The site shows these texts, never a re-rendering.
// One copy per distinct text: site/public/data/ran/<sha256>.<ext> in full, and in ran.json its first
// RAN_HEAD_CAP bytes (cut at a line end) for the page, with each cell naming its texts by hash.
// Shapes: pipeline/schema/ran.schema.json (the types generated from it); the file names: RAN_FILES.
export { RAN_FILES };
export const RAN_HEAD_CAP = 8 * 1024;

function headOf(content: Buffer): { head: string; cut: boolean } {
  if (content.length <= RAN_HEAD_CAP) return { head: content.toString("utf8"), cut: false };
  const window = content.subarray(0, RAN_HEAD_CAP);
  const nl = window.lastIndexOf(0x0a);
  // Cut after the last whole line, or (one long line, e.g. JSON) at the cap, never inside a UTF-8 character.
  let end = nl >= RAN_HEAD_CAP / 2 ? nl + 1 : RAN_HEAD_CAP;
  while (end > 0 && (content[end] & 0xc0) === 0x80) end--;
  return { head: content.subarray(0, end).toString("utf8"), cut: true };
}

/** Reads the what-ran files of every cell of MANIFESTS under RUNS; returns ran.json and the distinct texts to publish. */
export function collectRan(manifests: ManifestLike[], runs: string): { ran: Ran; files: Map<string, Buffer> } {
  const texts: Record<string, RanText> = {};
  const files = new Map<string, Buffer>();
  const cells = new Map<string, RanCell>();
  for (const m of manifests) {
    for (const c of m.cells ?? []) {
      if (c.id.includes("/") || c.id.includes("..")) continue;
      for (const name of RAN_FILES) {
        const src = path.join(runs, m.run_id, "cells", c.id, name);
        if (!existsSync(src) || !statSync(src).isFile()) continue;
        const content = readFileSync(src);
        const sha = createHash("sha256").update(content).digest("hex");
        if (!texts[sha]) {
          const rel = `data/ran/${sha}${path.extname(name) || ".txt"}`;
          texts[sha] = { bytes: content.length, ...headOf(content), file: rel };
          files.set(rel, content);
        }
        const id = cellIdentity(c);
        const key = [m.run_id, c.study, c.workload, c.system, id.server, id.variant, c.concurrency].join("\u0000");
        const cell = cells.get(key) ?? {
          run_id: m.run_id,
          study: c.study,
          workload: c.workload,
          system: c.system,
          ...(id.server ? { server: id.server } : {}),
          variant: id.variant,
          concurrency: c.concurrency,
          files: [],
        };
        cells.set(key, cell);
        const f = cell.files.find((x) => x.name === name && x.text === sha);
        if (f) f.repetitions.push(c.repetition);
        else cell.files.push({ name, text: sha, repetitions: [c.repetition] });
      }
    }
  }
  const ran = { head_cap: RAN_HEAD_CAP, texts, cells: [...cells.values()] };
  assertValid(validateRan, ran, "ran.json as publish writes it (pipeline/schema/ran.schema.json)");
  return { ran, files };
}
