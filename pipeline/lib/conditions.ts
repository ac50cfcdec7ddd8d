// The seed's setup beside ours. A study's study.json `seed_conditions` holds the seed's hardware, the share
// of it the system under test had, data size, concurrency, duration, warm-up, client, network and
// repetitions, each row saying how ours is read from a run: its manifest's machine, its profile env (else
// the study's parameter default), the compared cells' concurrency or the verdict's repetitions. This
// module is the one place that turns a row and a run into the comparison a page prints: ours, whether it
// differs from the seed's, and the scale factor ours / seed.
import type { SeedCondition, StudyFile } from "../schema/types.ts";

/** What ours is read from: one run, and for a verdict the cells it compared. */
export interface OursContext {
  machine?: { cores?: number; memory_bytes?: number };
  /** The run's profile env for the study (manifest config.studies[study].env). */
  env?: Record<string, unknown>;
  /** The compared cells' concurrency (several when the claim's cells ran at several). */
  concurrency?: number[];
  /** Paired repetitions of the verdict, or the repetitions the run's profile planned. */
  repetitions?: number;
}

export interface ConditionRow {
  id: string;
  label: string;
  unit?: string;
  /** The seed's value in words: the value with its unit, and its seed_text when there is one. */
  seedText: string;
  /** Ours in words; "not recorded" when the run does not say. */
  oursText: string;
  /** ours / seed when both are single numbers and the seed's is not 0. */
  factor?: number;
  /** Ours is not the seed's (a range that is not exactly the seed's value counts as different). */
  differs: boolean;
  /** Shown beside a verdict (study.json matters: false = the study's table only). */
  matters: boolean;
  inferred: boolean;
  /** One line for a verdict's row: "sysbench rows ×0.1: 100,000 against the seed's 1,000,000 rows". */
  summary: string;
}

type StudyLike = Pick<StudyFile, "seed_conditions" | "parameters">;

function matches(pattern: string, workload: string): boolean {
  return pattern.endsWith("*") ? workload.startsWith(pattern.slice(0, -1)) : pattern === workload;
}

/** Whether a row applies to every one of these workloads ("*": a claim over all workloads, only unscoped rows). */
export function appliesTo(row: SeedCondition, workloads: string[] | "*"): boolean {
  if (workloads === "*") return !row.workloads && !row.not_workloads;
  return workloads.every(
    (w) =>
      (!row.workloads || row.workloads.some((p) => matches(p, w))) &&
      !(row.not_workloads ?? []).some((p) => matches(p, w)),
  );
}

/** A number as a page prints it: thousands separated, at most 3 significant digits after the point. */
export function fmtQuantity(x: number): string {
  if (Number.isInteger(x)) return x.toLocaleString("en-US");
  return Number(x.toPrecision(3)).toLocaleString("en-US", { maximumFractionDigits: 6 });
}

/** A scale factor to 2 significant digits: 0.1, 0.25, 0.002, 3. */
export function fmtFactor(f: number): string {
  return String(Number(f.toPrecision(2)));
}

function machineValue(key: "cores" | "memory_gib", ctx: OursContext): number | undefined {
  const m = ctx.machine;
  if (key === "cores") return m?.cores;
  return m?.memory_bytes === undefined ? undefined : m.memory_bytes / 2 ** 30;
}

function envValue(name: string, study: StudyLike, ctx: OursContext): number | undefined {
  const raw = ctx.env?.[name] ?? study.parameters?.[name]?.default;
  if (raw === undefined || raw === "") return undefined;
  const v = Number(raw);
  return Number.isFinite(v) ? v : undefined;
}

/** How many CPUs a list such as 0,2-3 names. */
function cpuCount(list: string): number {
  return list.split(",").reduce((n, part) => {
    const [a, b] = part.split("-").map(Number);
    return n + (b === undefined ? 1 : b - a + 1);
  }, 0);
}

/** The run's CPU split (SAMEBOX_SUT_CPUS / SAMEBOX_LOADGEN_CPUS): the system under test's CPU count, or the split in words. */
function cpuSets(o: { count: boolean; shared: string }, ctx: OursContext): number | string | undefined {
  const sut = ctx.env?.SAMEBOX_SUT_CPUS;
  const gen = ctx.env?.SAMEBOX_LOADGEN_CPUS;
  const isolated = typeof sut === "string" && sut !== "" && gen !== undefined && gen !== "";
  if (!o.count)
    return isolated
      ? `CPU ${sut} to itself; the load generator and the dependencies on CPU ${String(gen)} (taskset)`
      : o.shared;
  if (isolated) return cpuCount(sut);
  const limit = Number(ctx.env?.SAMEBOX_MCP_CPUS);
  return Number.isFinite(limit) && limit > 0 ? limit : ctx.machine?.cores;
}

/** A range [lo, hi]; hi undefined: at least lo (the upper bound is the tool's own default). */
type Range = [number, number | undefined];

/** Ours for one row: a number, a range, a text, or undefined when the run does not say. */
function oursValue(row: SeedCondition, study: StudyLike, ctx: OursContext): number | Range | string | undefined {
  const o = row.ours;
  if ("text" in o) return o.text;
  if ("machine" in o) {
    const v = machineValue(o.machine, ctx);
    return v === undefined ? undefined : v * (o.times ?? 1);
  }
  if ("cpu_sets" in o) return cpuSets(o.cpu_sets, ctx);
  if ("cell" in o) {
    if (o.cell === "repetitions") return ctx.repetitions;
    const cs = [...new Set(ctx.concurrency ?? [])].sort((a, b) => a - b);
    return cs.length === 0 ? undefined : cs.length === 1 ? cs[0] : [cs[0], cs[cs.length - 1]];
  }
  const parts = o.env.map((n) => envValue(n, study, ctx));
  if (parts.some((p) => p === undefined)) return o.else_machine ? machineValue(o.else_machine, ctx) : undefined;
  const v = parts.reduce((a, b) => a! * b!, 1)! * (o.times ?? 1);
  if (!o.max_env) return v;
  const hi = envValue(o.max_env, study, ctx);
  return hi === v ? v : [v, hi];
}

/** The unit after a quantity: singular after 1 ("1 run", "1 thread"). */
function unitAfter(n: number, unit: string | undefined): string {
  if (!unit) return "";
  return ` ${n === 1 && /^[a-z]+s$/i.test(unit) ? unit.slice(0, -1) : unit}`;
}

function rangeText(r: Range, unit: string | undefined): string {
  return r[1] === undefined
    ? `at least ${fmtQuantity(r[0])}${unitAfter(r[0], unit)}`
    : `${fmtQuantity(r[0])}–${fmtQuantity(r[1])}${unitAfter(r[1], unit)}`;
}

function compare(
  row: SeedCondition,
  ours: ReturnType<typeof oursValue>,
): Omit<ConditionRow, "id" | "label" | "unit" | "matters" | "inferred"> {
  const seed = row.seed;
  const seedQty = typeof seed === "number" ? `${fmtQuantity(seed)}${unitAfter(seed, row.unit)}` : seed;
  const seedText = seed === 0 ? (row.seed_text ?? "none") : (row.seed_text ?? seedQty);
  // In a sentence: the number and the seed's words, when both say something.
  const seedWords = typeof seed === "number" && seed !== 0 && row.seed_text ? `${seedQty}: ${row.seed_text}` : seedText;
  const inferred = row.inferred ? ", inferred" : "";
  const line = (oursText: string, differs: boolean, factor?: number): ReturnType<typeof compare> => ({
    seedText: seedWords,
    oursText,
    differs,
    ...(factor !== undefined ? { factor } : {}),
    summary:
      factor !== undefined
        ? `${row.label} ×${fmtFactor(factor)}: ${oursText} against the seed's ${seedQty}${row.inferred ? " (inferred)" : ""}`
        : `${row.label}: ${oursText}${differs ? ` (the seed${inferred}: ${seedWords})` : ", as the seed"}`,
  });
  if (ours === undefined) return line("not recorded", true);
  if (typeof ours === "string") return line(ours, !("matches_seed" in row.ours && row.ours.matches_seed));
  if (Array.isArray(ours)) return line(rangeText(ours, row.unit), true);
  const oursText = `${fmtQuantity(ours)}${unitAfter(ours, row.unit)}`;
  if (typeof seed !== "number") return line(oursText, true);
  if (ours === seed) return line(oursText, false);
  return line(oursText, true, seed === 0 ? undefined : ours / seed);
}

/** One condition row with ours read from ctx. */
export function conditionRow(study: StudyLike, row: SeedCondition, ctx: OursContext): ConditionRow {
  return {
    id: row.id,
    label: row.label,
    ...(row.unit ? { unit: row.unit } : {}),
    ...compare(row, oursValue(row, study, ctx)),
    matters: row.matters !== false,
    inferred: row.inferred === true,
  };
}

/** The study's condition rows that apply to these workloads, ours read from ctx (empty when the study has none). */
export function conditionRows(study: StudyLike, workloads: string[] | "*", ctx: OursContext): ConditionRow[] {
  return (study.seed_conditions?.rows ?? [])
    .filter((row) => appliesTo(row, workloads))
    .map((row) => conditionRow(study, row, ctx));
}

/** Beside a verdict: only the rows that matter and differ from the seed's. */
export function conditionDifferences(study: StudyLike, workloads: string[] | "*", ctx: OursContext): ConditionRow[] {
  return conditionRows(study, workloads, ctx).filter((r) => r.matters && r.differs);
}

/**
 * Whether a run measured a claim's workloads at the seed's scale: ours / seed is at least 1 on every row marked
 * `scale` (data size, offered load, repeat counts) that applies to them. Durations and hardware are not part of
 * it. undefined when the study marks no such row for these workloads.
 */
export function atSeedScale(study: StudyLike, workloads: string[] | "*", ctx: OursContext): boolean | undefined {
  const rows = (study.seed_conditions?.rows ?? []).filter((r) => r.scale && appliesTo(r, workloads));
  if (!rows.length) return undefined;
  return rows.every((r) => {
    const c = conditionRow(study, r, ctx);
    // equal to the seed's: no factor is printed
    return !c.differs || (c.factor !== undefined && c.factor >= 1 - 1e-9);
  });
}
