// `samebox report <run-dir>`: what one run says about every claim of its studies, as the site judges it
// from that run alone (pipeline/lib/verdicts.ts judgeFromRun: the run's own alpha-spending plan; a
// scale-dependent size below the seed's scale is not measured), with the time each study took and what the
// noise guard did. A maintainer reads it after a run; a closing note quotes it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadStudyClaims } from "./claims.ts";
import { UserError } from "./errors.ts";
import { fromCsv, fromJsonl } from "./records.ts";
import { stateOf } from "./servers.ts";
import { withCellServer } from "./servers-catalog.ts";
import type { Claim, ResultRecord, RunManifest } from "../schema/types.ts";
import { cellProbesMs } from "../runner/host-speed.ts";
import { median } from "./stats.ts";
import { noiseGuardSummary } from "./noise-guard-summary.ts";
import { VERDICTS, claimHasWorkload, claimRegion, fmtRatio, pairedSamples, type Verdict } from "./verdicts.ts";
import { belowScale, countedRecords, judgeFromRun, studyEnvOf } from "./claim-run.ts";

interface ReportCell {
  study: string;
  workload: string;
  system: string;
  server?: string;
  variant: string;
  concurrency: number;
  repetition: number;
  status: string;
  reason?: string;
  started_at?: string;
  duration_s: number;
  noise?: { host_probe_ms?: number };
}
interface ReportManifest {
  run_id: string;
  profile: string;
  status: string;
  duration_s?: number;
  cells: ReportCell[];
  load_average?: { start?: number[]; end?: number[] };
  noise_guard?: RunManifest["noise_guard"];
  summary?: Record<string, number>;
  sequential?: Record<string, { repetitions_added?: number; stopped?: string; method?: string }>;
  config?: unknown;
  studies: string[];
}

export interface ClaimRow {
  id: string;
  kind: string;
  seed: number;
  ours?: number;
  lo?: number;
  hi?: number;
  relHalfWidth?: number;
  verdict: Verdict;
  n: number;
  look?: number;
  why: string;
}
export interface StudyReport {
  study: string;
  cellSeconds: number;
  spanSeconds: number;
  sequential: string;
  rows: ClaimRow[];
}
export interface RunReport {
  runId: string;
  manifest: ReportManifest;
  studies: StudyReport[];
  counts: Record<Verdict, number>;
  medianRelHalfWidth?: number;
  intervals: number;
}

function readRun(dir: string): { m: ReportManifest; records: ResultRecord[] } {
  const mfile = path.join(dir, "manifest.json");
  if (!existsSync(mfile)) throw new UserError(`${dir}: no manifest.json (give a data/runs/<run-id> folder)`);
  const raw = JSON.parse(readFileSync(mfile, "utf8")) as ReportManifest;
  // a run from before the cell's server field: derived from the study folder (servers-catalog.ts)
  const m = { ...raw, cells: raw.cells.map(withCellServer) };
  const jsonl = path.join(dir, "records.jsonl");
  const csv = path.join(dir, "records.csv");
  const records = existsSync(jsonl)
    ? fromJsonl(readFileSync(jsonl, "utf8"), jsonl)
    : existsSync(csv)
      ? fromCsv(readFileSync(csv, "utf8"), csv)
      : [];
  return { m, records };
}

/** The claim's kind as the report's "kind" column prints it. */
export function claimKindText(c: Claim): string {
  // The band as the rule reads it (×/÷ 1 + tolerance around the ratio), not "±tolerance", which reads as an absolute margin.
  if (c.kind === "size" && c.size) {
    const { lo, hi } = claimRegion(c);
    return `size about ${fmtRatio(c.size.ratio)}: ${fmtRatio(lo)}–${fmtRatio(hi)}`;
  }
  if (c.kind === "threshold" && c.threshold)
    return `threshold ${c.threshold.min !== undefined ? `≥ ${c.threshold.min}×` : `≤ ${c.threshold.max}×`}`;
  return "ordering";
}

function claimRow(c: Claim, study: string, m: ReportManifest, counted: ResultRecord[]): ClaimRow {
  const seed =
    c.published.ratio ?? (c.better === "higher" ? c.published.a! / c.published.b! : c.published.b! / c.published.a!);
  const samples = pairedSamples(
    counted.filter((r) => r.study === study),
    c,
  );
  const j = judgeFromRun(c, study, m, samples);
  const base = { id: c.id, kind: claimKindText(c), seed };
  const small = samples.length ? belowScale(c, studyEnvOf(m, study), j) : undefined;
  if (small) return { ...base, ours: small.ratio, verdict: small.verdict, n: 0, why: small.why };
  const why = j.verdict === "not measured" ? `${j.why}${missingCells(c, study, m)}` : j.why;
  return {
    ...base,
    ours: j.ratio,
    lo: j.lo,
    hi: j.hi,
    relHalfWidth: j.relHalfWidth,
    verdict: j.verdict,
    n: j.n,
    look: j.look,
    why,
  };
}

/** What became of the cells of a side that measured nothing: "; mysql: skipped — <reason>". */
function missingCells(c: Claim, study: string, m: ReportManifest): string {
  const parts = [c.a, c.b].flatMap((s) => {
    const cells = m.cells.filter(
      (x) =>
        x.study === study &&
        x.system === s.system &&
        claimHasWorkload(c, x.workload) &&
        (s.server === undefined || x.server === s.server) &&
        (s.variant === undefined || stateOf(x) === s.variant),
    );
    if (cells.some((x) => x.status === "ok")) return [];
    const bad = cells.find((x) => x.status !== "ok");
    const pinned = [s.server, s.variant].filter(Boolean).join("-");
    return [
      `${s.system}${pinned ? ` (${pinned})` : ""}: ${bad ? `${bad.status}${bad.reason ? ` — ${bad.reason}` : ""}` : "not in this run"}`,
    ];
  });
  return parts.length ? `; ${parts.join("; ")}` : "";
}

function studyTimes(cells: ReportCell[]): { cellSeconds: number; spanSeconds: number } {
  const timed = cells.filter((c) => c.started_at);
  const starts = timed.map((c) => Date.parse(c.started_at!));
  const ends = timed.map((c) => Date.parse(c.started_at!) + c.duration_s * 1000);
  return {
    cellSeconds: cells.reduce((s, c) => s + (c.duration_s || 0), 0),
    spanSeconds: timed.length ? (Math.max(...ends) - Math.min(...starts)) / 1000 : 0,
  };
}

export function runReport(dir: string): RunReport {
  const { m, records } = readRun(dir);
  const counted = countedRecords(records, [m]);
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const widths: number[] = [];
  const studies = m.studies.map((study): StudyReport => {
    const rows = (loadStudyClaims(study)?.claims ?? []).map((c) => claimRow(c, study, m, counted));
    for (const r of rows) {
      counts[r.verdict]++;
      if (r.relHalfWidth !== undefined) widths.push(r.relHalfWidth);
    }
    const seq = m.sequential?.[study];
    const sequential = seq ? `${seq.repetitions_added ?? 0} repetition(s) added; stopped: ${seq.stopped}` : "none";
    return { study, ...studyTimes(m.cells.filter((c) => c.study === study)), sequential, rows };
  });
  return {
    runId: m.run_id,
    manifest: m,
    studies,
    counts,
    medianRelHalfWidth: widths.length ? median(widths) : undefined,
    intervals: widths.length,
  };
}

const fmt = (r?: number) => (r === undefined ? "—" : fmtRatio(r));

export function runReportMarkdown(r: RunReport): string {
  const m = r.manifest;
  const out = [
    `# Run ${r.runId} (${m.profile}, ${m.status}, ${m.duration_s !== undefined ? `${(m.duration_s / 60).toFixed(1)} min` : "?"})`,
    "",
  ];
  for (const s of r.studies) {
    out.push(
      `## ${s.study}: ${(s.cellSeconds / 60).toFixed(1)} min of cells (first to last cell ${(s.spanSeconds / 60).toFixed(1)} min: visits interleave studies); sequential: ${s.sequential}`,
      "",
    );
    out.push("| claim | kind | seed | ours | interval | verdict | n (look) |", "|---|---|---|---|---|---|---|");
    for (const c of s.rows)
      out.push(
        `| ${c.id} | ${c.kind} | ${fmt(c.seed)} | ${fmt(c.ours)} | ${c.lo !== undefined ? `${fmt(c.lo)}–${fmt(c.hi)}` : "—"} | ${c.verdict} | ${c.n}${c.look && c.n ? ` (${c.look})` : ""} |`,
      );
    out.push("");
  }
  out.push(
    `Verdicts: ${VERDICTS.map((v) => `${r.counts[v]} ${v}`).join(", ")}; median relative half-width ${r.medianRelHalfWidth !== undefined ? `${(r.medianRelHalfWidth * 100).toFixed(1)} %` : "—"} over ${r.intervals} intervals.`,
  );
  if (m.summary)
    out.push(
      `Cells: ${Object.entries(m.summary)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ")}.`,
    );
  out.push(`Noise guard: ${noiseGuardSummary(m.noise_guard)}.`);
  const probe = hostProbeLine(m);
  if (probe) out.push(probe);
  if (m.load_average)
    out.push(
      `Load average at start ${m.load_average.start?.join(" / ") ?? "?"}, at end ${m.load_average.end?.join(" / ") ?? "?"}.`,
    );
  const notMeasured = r.studies.flatMap((s) =>
    s.rows.filter((c) => c.verdict === "not measured").map((c) => `- ${s.study} ${c.id}: ${c.why}`),
  );
  if (notMeasured.length) out.push("", "Not measured:", ...notMeasured);
  return `${out.join("\n")}\n`;
}

/** The host-speed probe over the run's cells (noise.ts hostProbeMs): median and range, or "" when no cell has one. */
export function hostProbeLine(m: { cells: ReportCell[] }): string {
  const ms = cellProbesMs(m.cells);
  if (!ms.length) return "";
  return `Host probe (SHA-256 of 64 MiB before each cell; compare runs on one machine): median ${median(ms)} ms, range ${ms[0]}–${ms[ms.length - 1]} ms over ${ms.length} cells.`;
}
