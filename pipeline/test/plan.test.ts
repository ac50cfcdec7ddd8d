import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadProfile } from "../lib/catalog.ts";
import { interleave, planRun, studyCells, visitOrder, visitOrderByStudy } from "../runner/plan.ts";
import { repoRoot, tempDir } from "./helpers.ts";

// A once_per_run workload (a check, not a timing: protocol conformance) is planned in repetition 1 only,
// so repetitions 2..n cost no cell; the timed workloads beside it keep every repetition.
test("a once_per_run workload is planned in repetition 1 only; timed workloads in every repetition", () => {
  const plan = planRun({ profile: "quick", studies: ["mcp-servers", "mcp-db"], systems: ["mcp-go", "sqlite"] });
  const reps = (study: string, workload: string) =>
    [...new Set(plan.cells.filter((c) => c.study === study && c.workload === workload).map((c) => c.repetition))].sort(
      (a, b) => a - b,
    );
  const all = (study: string) => Array.from({ length: plan.studies[study].repetitions }, (_, i) => i + 1);
  assert.ok(all("mcp-servers").length >= 5 && all("mcp-db").length >= 5, "quick has at least 5 repetitions");
  assert.deepEqual(reps("mcp-servers", "conformance"), [1]);
  assert.deepEqual(reps("mcp-db", "conformance"), [1]);
  assert.deepEqual(reps("mcp-servers", "seed_k6"), all("mcp-servers"));
  assert.deepEqual(reps("mcp-db", "point_reads"), all("mcp-db"));
});

// The two sides of a claim run back to back: each repetition visits study by study, and a visit runs one
// system's cells of one study, so no other study's server runs between a pair's sides.
test("visits go study by study within a repetition: a study's systems are consecutive, each study in a balanced rotation", () => {
  const plan = planRun({ profile: "full", studies: ["oltp", "payments"], systems: ["postgresql", "mariadb"] });
  const order = interleave(plan, 11);
  assert.equal(order.method, "seeded-rotation-by-study");
  // a study may have fewer base repetitions than another: it is visited in those only
  const reps = { oltp: plan.studies.oltp.repetitions, payments: plan.studies.payments.repetitions };
  assert.equal(order.visits.length, 2 * (reps.oltp + reps.payments), "one visit per system, study and repetition");
  for (let rep = 1; rep <= Math.max(reps.oltp, reps.payments); rep++) {
    const vs = order.visits.filter((v) => v.repetition === rep);
    const studies = (["oltp", "payments"] as const).filter((st) => rep <= reps[st]).flatMap((st) => [st, st]);
    assert.deepEqual(
      vs.map((v) => v.study),
      studies,
      `repetition ${rep}: study by study`,
    );
  }
  for (const study of ["oltp", "payments"]) {
    const firsts = order.visits
      .filter((v) => v.study === study)
      .filter((_, i) => i % 2 === 0)
      .map((v) => v.system);
    const n = (s: string) => firsts.filter((f) => f === s).length;
    assert.ok(
      Math.abs(n("postgresql") - n("mariadb")) <= 1,
      `${study}: each system first equally often (${firsts.join(", ")})`,
    );
  }
  // Cells follow their visits: each visit's cells are contiguous and belong to its study.
  const cellVisits = plan.cells.map((c) => `${c.study}/${c.system}/${c.repetition}`);
  const visitSeq = order.visits.map((v) => `${v.study}/${v.system}/${v.repetition}`);
  assert.deepEqual([...new Set(cellVisits)], visitSeq);
  assert.deepEqual(
    visitOrderByStudy([["oltp", ["a", "b"]]], 3, 5),
    visitOrder(["a", "b"], 3, 5).map((v) => ({ ...v, study: "oltp" })),
    "one study: its rotation, named",
  );
});

// A variant a system cannot run (study.json variant_requires: analytical's no-cache needs a result cache) is
// planned as a skipped cell naming the capability, so no visit runs it only to be refused.
test("a variant the system lacks the capability for is planned as skipped, naming it", () => {
  const plan = planRun({ profile: "ci", studies: ["analytical"], systems: ["postgresql"], workloads: ["aggregate"] });
  const study = { ...plan.studies.analytical, variants: ["hot", "no-cache"] };
  const cell = (system: string, variant: string) =>
    studyCells("analytical", study, system, 1).find((c) => c.variant === variant)!;
  assert.match(
    cell("postgresql", "no-cache").reason,
    /^unsupported: variant no-cache needs capability 'result-cache', which postgresql lacks/,
  );
  assert.equal(cell("postgresql", "no-cache").status, "skipped");
  assert.equal(cell("mskql", "no-cache").reason, "not run", "mskql has a result cache: its no-cache cell runs");
  assert.equal(cell("postgresql", "hot").reason, "not run");
});

// Profile `cells: "claims"` (quick's analytical study): only the cells a claim reads are planned — each side's
// system on the claim's workload(s), in the side's pinned variant — so nothing is spent on cells no claim compares.
test('cells "claims": only the cells a claim of the study reads are planned, in the variant the claim pins', async () => {
  const { loadStudyClaims } = await import("../lib/claims.ts");
  const { claimHasWorkload } = await import("../lib/verdicts.ts");
  const plan = planRun({ profile: "quick", studies: ["analytical"] });
  assert.equal(
    plan.config.studies && (plan.config.studies as Record<string, { cells?: string }>).analytical.cells,
    "claims",
  );
  const claims = loadStudyClaims("analytical")!.claims;
  const cells = plan.cells.filter((c) => c.repetition === 1);
  const has = (id: string) => cells.some((c) => c.id === id);
  // quick measures no context cells in analytical: SQLite and MariaDB, which no claim names, run in full and catalogue
  assert.equal(loadProfile("quick").studies.analytical.context, undefined);
  for (const c of cells) {
    const read = claims.some(
      (cl) =>
        claimHasWorkload(cl, c.workload) &&
        [cl.a, cl.b].some((s) => s.system === c.system && (s.variant ?? c.variant) === c.variant),
    );
    assert.ok(read, `${c.id} is planned but no claim reads it`);
  }
  assert.deepEqual(
    cells.filter((c) => c.system === "mariadb" || c.system === "sqlite").map((c) => c.id),
    [],
    "no claim names SQLite or MariaDB",
  );
  assert.ok(has("analytical.pq_aggregate.mskql.c1.no-cache.r1"), "the no-cache claim's cell");
  assert.ok(!has("analytical.aggregate.mskql.c1.no-cache.r1"), "no claim reads aggregate's no-cache cell");
  assert.ok(!has("analytical.vec_insert.duckdb.c1.hot.r1"), "no claim compares DuckDB on vec_insert");
  assert.ok(
    has("analytical.select_full_scan.postgresql.c1.hot.r1"),
    "the each-of claim (every cached batch workload) reads PostgreSQL's select_full_scan",
  );
  for (const cl of claims) {
    for (const w of cl.each_of ?? [cl.workload]) {
      for (const s of [cl.a, cl.b])
        assert.ok(
          cells.some((c) => c.workload === w && c.system === s.system),
          `claim ${cl.id}: ${s.system} on ${w} is planned`,
        );
    }
  }
  assert.ok(
    (plan.config.studies as Record<string, { context?: unknown }>)["mcp-servers"] === undefined,
    "only the studies asked for are in the manifest's config",
  );
  const servers = planRun({ profile: "quick", studies: ["mcp-servers"] }).config.studies as Record<
    string,
    { context?: unknown }
  >;
  assert.ok(servers["mcp-servers"].context !== undefined, "the manifest's config records a study's context cells");
  // the full profile plans every cell (no "cells" key): DuckDB's vec_insert is there
  assert.ok(
    planRun({ profile: "full", studies: ["analytical"], systems: ["duckdb"] }).cells.some(
      (c) => c.workload === "vec_insert",
    ),
  );
});

test("a profile's context cells are checked: they need cells \"claims\" and name the study's own systems, workloads and variants", () => {
  const dir = tempDir();
  const base = JSON.parse(readFileSync(path.join(repoRoot, "pipeline/profiles/quick.json"), "utf8"));
  const write = (edit: (a: Record<string, unknown>) => void) => {
    const p = structuredClone(base);
    p.studies = { analytical: p.studies.analytical };
    // SQLite and MariaDB on six cached batch workloads, hot: a context of the analytical study
    p.studies.analytical.systems.push("sqlite", "mariadb");
    p.studies.analytical.context = {
      systems: ["sqlite", "mariadb"],
      workloads: ["aggregate", "expression_agg", "select_full_scan", "order_by", "window_functions", "index_lookup"],
      variants: ["hot"],
    };
    edit(p.studies.analytical);
    const file = path.join(dir, `p${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(p));
    return file;
  };
  const err = (edit: (a: Record<string, unknown>) => void) => {
    try {
      loadProfile(write(edit));
    } catch (e) {
      return (e as Error).message;
    }
    return "";
  };
  assert.match(
    err((a) => {
      a.cells = "all";
    }),
    /context needs cells "claims".*set cells to "claims" or remove context/,
  );
  assert.match(
    err((a) => {
      (a.context as { systems: string[] }).systems = ["redis"];
    }),
    /context: system 'redis' is not among the study's systems; valid: mskql, postgresql, duckdb, sqlite, mariadb/,
  );
  assert.match(
    err((a) => {
      (a.context as { workloads: string[] }).workloads = ["noop"];
    }),
    /context: workload 'noop' is not among the study's workloads; valid: aggregate,/,
  );
  assert.match(
    err((a) => {
      (a.context as { variants: string[] }).variants = ["cold"];
    }),
    /context: variant 'cold' is not among the study's variants; valid: hot, no-cache/,
  );
  assert.equal(
    err(() => {}),
    "",
    "quick's analytical entry with that context is valid",
  );
});

// The seed profile measures each claim at the seed's scale (the sizes, concurrency and windows its
// README states), with the repetitions a verdict needs; full has at least those repetitions too.
test("the seed profile plans every study at the seed's scale, with at least 5 paired repetitions; full too", () => {
  const plan = planRun({ profile: "seed" });
  const env = (s: string) => (plan.config.studies as Record<string, { env: Record<string, unknown> }>)[s].env;
  for (const [s, p] of Object.entries(plan.studies)) assert.ok(p.repetitions >= 5, `seed: ${s} has ${p.repetitions}`);
  assert.equal(Number(env("oltp").SB_TABLES) * Number(env("oltp").SB_TABLE_SIZE), 1_000_000);
  const cellsOf = (study: string, workload: string) =>
    plan.cells.filter((c) => c.study === study && c.workload === workload);
  assert.deepEqual([...new Set(cellsOf("oltp", "oltp_read_write").map((c) => c.concurrency))], [16]);
  assert.equal(Number(env("mcp-db").MCPDB_SCALE), 1);
  for (const system of ["postgresql", "sqlite"]) {
    const variants = cellsOf("mcp-db", "filtered_queries")
      .filter((c) => c.system === system)
      .map((c) => c.variant);
    assert.deepEqual(
      [...new Set(variants)].sort(),
      ["faucet-baseline", "faucet-indexed"],
      `mcp-db ${system}: both index states`,
    );
  }
  assert.deepEqual([...new Set(cellsOf("mcp-db", "concurrency_sweep").map((c) => c.concurrency))], [25]);
  assert.deepEqual([...new Set(cellsOf("mcp-servers", "seed_k6").map((c) => c.concurrency))], [50]);
  assert.ok(
    Number(env("mcp-servers").K6_HOLD_S) -
      Number(env("mcp-servers").K6_WARMUP_S) +
      Number(env("mcp-servers").K6_RAMP_UP_S) >=
      60,
    "mcp-servers: at least 60 s measured at 50 VUs",
  );
  assert.equal(Number(env("payments").ACCOUNTS), 1_000_000);
  const full = planRun({ profile: "full" });
  for (const [s, p] of Object.entries(full.studies)) assert.ok(p.repetitions >= 5, `full: ${s} has ${p.repetitions}`);
});
