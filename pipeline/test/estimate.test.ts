import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  BOX_BOOTSTRAP_S,
  dataRatio,
  estimate,
  limitMinutes,
  MAX_LIMIT_MIN,
  projectCell,
  shardBoxes,
} from "../lib/estimate.ts";
import { cli, tempDir } from "./helpers.ts";

test("time-bound cells swap the measured window for the target's and keep the tool's own overhead", () => {
  const ref = { duration_s: 14.7, tool: "sysbench", env: { DURATION: "10", WARMUP: "3" } };
  assert.equal(Math.round(projectCell(ref, { DURATION: "60", WARMUP: "10" }) * 10) / 10, 71.7);
});

test("hyperfine cells scale with runs and repeat counts", () => {
  const ref = { duration_s: 2, tool: "hyperfine", env: { HF_RUNS: "10", HF_WARMUP: "2", REPEAT_SCALE: "0.1" } };
  assert.equal(projectCell(ref, { HF_RUNS: "10", HF_WARMUP: "2", REPEAT_SCALE: "1" }), 20);
  assert.equal(projectCell(ref, { HF_RUNS: "4", HF_WARMUP: "2", REPEAT_SCALE: "0.1" }), 1);
});

test("data ratio takes the largest growth among row and scale parameters", () => {
  assert.equal(
    dataRatio(
      { SB_TABLES: "10", SB_TABLE_SIZE: "100000", PGBENCH_SCALE: "100" },
      { SB_TABLES: "4", SB_TABLE_SIZE: "25000", PGBENCH_SCALE: "5" },
    ),
    20,
  );
  assert.equal(dataRatio({ MCPDB_SCALE: "1", REPEAT_SCALE: "1" }, { MCPDB_SCALE: "0.002", REPEAT_SCALE: "0.1" }), 500);
  assert.equal(dataRatio({ HF_RUNS: "10" }, { HF_RUNS: "3" }), 1);
});

function fixture() {
  const dir = tempDir("samebox-estimate-");
  const runs = path.join(dir, "runs");
  const runId = "20300101T000000Z-quick-test";
  mkdirSync(path.join(runs, runId), { recursive: true });
  // A measured quick-style run: postgresql oltp, setup gap of 30 s before the first cell, 15 s cells.
  const start = Date.parse("2030-01-01T00:00:00Z");
  const cells = ["oltp_read_only", "oltp_insert"].map((w, i) => ({
    id: `oltp.${w}.postgresql.c8.warm.r1`,
    study: "oltp",
    workload: w,
    system: "postgresql",
    concurrency: 8,
    variant: "warm",
    repetition: 1,
    status: "ok",
    exit_code: 0,
    reason: "",
    log: "",
    started_at: new Date(start + 30_000 + i * 15_000).toISOString(),
    duration_s: 15,
    cache: "",
    records: 1,
  }));
  writeFileSync(
    path.join(runs, runId, "manifest.json"),
    JSON.stringify({
      run_id: runId,
      started_at: new Date(start).toISOString(),
      cells,
      config: {
        studies: { oltp: { env: { SB_TABLES: 4, SB_TABLE_SIZE: 25000, DURATION: 10, WARMUP: 3, PGBENCH_SCALE: 5 } } },
      },
    }),
  );
  const profile = path.join(dir, "cloud.json");
  writeFileSync(
    profile,
    JSON.stringify({
      name: "cloud",
      description: "test",
      repetitions: 3,
      studies: {
        oltp: {
          systems: ["postgresql"],
          workloads: ["oltp_read_only", "oltp_insert"],
          concurrency: [16],
          variants: ["warm"],
          cell_timeout_s: 400,
          env: { SB_TABLES: 8, SB_TABLE_SIZE: 25000, DURATION: 60, WARMUP: 10, PGBENCH_SCALE: 5 },
        },
      },
    }),
  );
  return { dir, runs, runId, profile };
}

test("estimate projects every planned cell from the newest measured one and prices the box", () => {
  const f = fixture();
  const e = estimate({ profile: f.profile, instanceType: "c6a.4xlarge", region: "us-east-1", runsDir: f.runs });
  assert.deepEqual(e.references, [f.runId]);
  const [oltp] = e.studies;
  assert.equal(oltp.cells, 6); // 2 workloads x 3 repetitions at the new concurrency
  assert.deepEqual(oltp.bases, { "same workload, system and variant": 6 });
  assert.equal(oltp.cell_seconds, 6 * (15 - 13 + 70));
  assert.equal(oltp.setup_seconds, 60); // 30 s gap x 2 (twice the sysbench rows)
  assert.equal(oltp.expected_seconds, BOX_BOOTSTRAP_S + 60 + 432);
  assert.equal(oltp.limit_minutes, limitMinutes(oltp.expected_seconds));
  assert.ok(e.price && e.price.usd_per_hour > 0, "c6a.4xlarge in us-east-1 has a confirmed price");
  assert.equal(oltp.usd_expected, Math.round((e.price!.usd_per_hour * oltp.expected_seconds) / 36) / 100);
});

test("a time-bound cell never measured lasts its window, and a region without a price gives no dollars", () => {
  const f = fixture();
  const e = estimate({
    profile: f.profile,
    instanceType: "c6a.4xlarge",
    region: "eu-central-1",
    runsDir: path.join(f.dir, "none"),
  });
  assert.deepEqual(e.studies[0].bases, { "profile window": 6 });
  assert.equal(e.studies[0].cell_seconds, 6 * (60 + 10 + 30));
  assert.equal(e.studies[0].usd_expected, null);
  assert.match(e.price_reason ?? "", /no confirmed price for c6a.4xlarge in eu-central-1/);
});

test("samebox estimate refuses a run over the budget and rejects a bad instance type", () => {
  const f = fixture();
  const over = cli(["estimate", "--profile", f.profile, "--budget-usd", "0.01"]);
  assert.equal(over.code, 1, over.stderr);
  assert.match(over.stdout, /\| oltp \| 6 \| postgresql \|/);
  assert.match(over.stderr, /refused: the boxes may cost up to \$[0-9.]+ .* over the budget of \$0\.01/);
  const ok = cli(["estimate", "--profile", f.profile, "--budget-usd", "1000", "--json"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).studies[0].study, "oltp");
  const bad = cli(["estimate", "--profile", f.profile, "--instance-type", "huge"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /invalid instance type 'huge'/);
});

test("a study too long for one box is split by workload over the fewest boxes, each within the limit", () => {
  const cells = ["a", "b", "c", "d"].flatMap((w, i) =>
    Array.from({ length: 3 }, (_, r) => ({
      id: `s.${w}.pg.r${r}`,
      study: "s",
      system: "pg",
      workload: w,
      variant: "hot",
      concurrency: 1,
      seconds: [5000, 4000, 3000, 2000][i],
      basis: "same cell" as const,
      capped: false,
    })),
  );
  const boxes = shardBoxes(cells, 600);
  assert.ok(boxes.length > 1);
  assert.ok(
    boxes.every((b) => b.limit_minutes <= MAX_LIMIT_MIN),
    JSON.stringify(boxes),
  );
  assert.deepEqual(boxes.flatMap((b) => b.workloads ?? []).sort(), ["a", "b", "c", "d"]);
  assert.equal(
    boxes.reduce((n, b) => n + b.cells, 0),
    12,
    "every cell lands on exactly one box",
  );
  const one = shardBoxes(cells.slice(0, 1), 600);
  assert.deepEqual(
    one.map((b) => b.workloads),
    [null],
    "a study that fits keeps one box with every workload",
  );
});

test("setup comes from the measured run nearest the target's data size: a newer tiny run (ci) does not stand for a large prepare", () => {
  const f = fixture();
  // A newer run at a quarter of the quick fixture's rows with a 20 s setup gap: newest, but 8x below the target.
  const tinyId = "20300102T000000Z-ci-test";
  const start = Date.parse("2030-01-02T00:00:00Z");
  mkdirSync(path.join(f.runs, tinyId), { recursive: true });
  writeFileSync(
    path.join(f.runs, tinyId, "manifest.json"),
    JSON.stringify({
      run_id: tinyId,
      started_at: new Date(start).toISOString(),
      cells: [
        {
          id: "oltp.oltp_read_only.postgresql.c8.warm.r1",
          study: "oltp",
          workload: "oltp_read_only",
          system: "postgresql",
          concurrency: 8,
          variant: "warm",
          repetition: 1,
          status: "ok",
          exit_code: 0,
          reason: "",
          log: "",
          started_at: new Date(start + 20_000).toISOString(),
          duration_s: 5,
          cache: "",
          records: 1,
        },
      ],
      config: {
        studies: { oltp: { env: { SB_TABLES: 1, SB_TABLE_SIZE: 25000, DURATION: 2, WARMUP: 1, PGBENCH_SCALE: 1 } } },
      },
    }),
  );
  const e = estimate({ profile: f.profile, instanceType: "c6a.4xlarge", region: "us-east-1", runsDir: f.runs });
  assert.equal(e.studies[0].setup_seconds, 60); // the quick fixture's 30 s x 2, not the ci run's 20 s x 8 = 160 s
});
