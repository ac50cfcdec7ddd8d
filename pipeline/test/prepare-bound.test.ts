import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { prepareBounds } from "../lib/estimate.ts";
import { planRun } from "../runner/plan.ts";
import {
  defaultPrepareBoundS,
  PREPARE_BOUND_MARGIN,
  PREPARE_BOUND_MAX_S,
  prepareBoundS,
  prepareTimeoutS,
  recordedPrepareBounds,
} from "../runner/prepare-bound.ts";
import { cli, toyEnv } from "./helpers.ts";

test("the prepare bound is the default unless the projected setup x the margin is larger, and never above a box's limit", () => {
  assert.equal(defaultPrepareBoundS(10), 600);
  assert.equal(defaultPrepareBoundS(300), 1200);
  assert.equal(prepareBoundS(300), 1200, "no projection: the default");
  assert.equal(prepareBoundS(300, 700), 1200, "700 s x 1.5 < 1200 s: the default");
  assert.equal(prepareBoundS(300, 1001), Math.ceil(1001 * PREPARE_BOUND_MARGIN));
  assert.equal(prepareBoundS(300, 1e9), PREPARE_BOUND_MAX_S);
  assert.equal(prepareBoundS(300, Number.NaN), 1200);
});

/** A reference run (data/runs/<id>/manifest.json): each system's setup gap before its first cell of `study`, in order. */
function referenceRun(
  runs: string,
  runId: string,
  study: string,
  env: Record<string, number>,
  setups: Array<[string, number]>,
): void {
  const start = Date.parse("2030-01-01T00:00:00Z");
  let t = start;
  const cells = setups.map(([system, gapS], i) => {
    t += gapS * 1000;
    const cell = {
      id: `${study}.w.${system}.c1.hot.r1`,
      study,
      workload: "w",
      system,
      concurrency: 1,
      variant: "hot",
      repetition: 1,
      status: "ok",
      exit_code: 0,
      reason: "",
      log: "",
      started_at: new Date(t).toISOString(),
      duration_s: 2,
      cache: "",
      records: 1,
    };
    t += 2000;
    return { ...cell, id: `${cell.id}.${i}` };
  });
  mkdirSync(path.join(runs, runId), { recursive: true });
  writeFileSync(
    path.join(runs, runId, "manifest.json"),
    JSON.stringify({
      run_id: runId,
      started_at: new Date(start).toISOString(),
      cells,
      config: { studies: { [study]: { env } } },
    }),
  );
}

// the full profile's mcp-db prepare (MCPDB_SCALE 1, 25.6 M rows twice) projects far past the
// default bound (4 x 300 s); on the box it timed out. The bound comes from the same projection as the estimate.
test("the full profile's mcp-db prepare gets the estimate's projection x the margin; a system whose setup fits keeps the default", () => {
  const plan = planRun({ profile: "full", studies: ["mcp-db"] });
  const runs = path.join(toyEnv().data, "runs");
  // measured at MCPDB_SCALE 0.002: postgresql 20 s (x 500 = 10000 s at scale 1), sqlite 1 s (500 s: fits 1200 s)
  referenceRun(runs, "20300101T000000Z-ci-test", "mcp-db", { MCPDB_SCALE: 0.002 }, [
    ["postgresql", 20],
    ["sqlite", 1],
  ]);
  const bounds = prepareBounds(plan, runs)["mcp-db"];
  const timeout = plan.studies["mcp-db"].cellTimeoutS;
  assert.equal(bounds.postgresql, Math.ceil(20 * 500 * PREPARE_BOUND_MARGIN));
  assert.ok(!("sqlite" in bounds), "sqlite's projected 500 s fits the default bound");
  const unmeasured = [...new Set(plan.cells.map((c) => c.system))].filter((s) => s !== "postgresql" && s !== "sqlite");
  assert.ok(unmeasured.length > 0, "full's mcp-db runs systems besides the two measured here");
  for (const system of unmeasured) {
    assert.equal(
      bounds[system],
      prepareBoundS(timeout, (20 * 500 + 500) / 2),
      `${system}: never measured, the study's median projection`,
    );
  }
  const ps = { ...plan.studies["mcp-db"], prepareTimeoutS: bounds };
  assert.equal(prepareTimeoutS(ps, "postgresql"), 15000, "the runner's prepare uses the raised bound");
  assert.equal(prepareTimeoutS(ps, "sqlite"), defaultPrepareBoundS(timeout));
});

test("the runner records the raised bounds in the manifest, where a resumed run reads them back", {
  timeout: 120_000,
}, () => {
  const profiles = toyEnv().data;
  writeFileSync(
    path.join(profiles, "scaled.json"),
    JSON.stringify({
      name: "scaled",
      description: "toy study at 100x the reference's data",
      repetitions: 1,
      studies: {
        toy: {
          systems: ["fakedb", "fakedb2"],
          workloads: ["good"],
          concurrency: [2],
          variants: ["warm"],
          cell_timeout_s: 10,
          env: { TOY: 1, TOY_SCALE: 100 },
        },
      },
    }),
  );
  const { data, env } = toyEnv({ SAMEBOX_PROFILES_DIR: profiles });
  // fakedb's setup took 10 s at TOY_SCALE 1 (1000 s at 100: above the 600 s default), fakedb2's 1 s (100 s: fits)
  referenceRun(path.join(data, "runs"), "20300101T000000Z-toy-ref", "toy", { TOY: 1, TOY_SCALE: 1 }, [
    ["fakedb", 10],
    ["fakedb2", 1],
  ]);
  const r = cli(["run", "--profile", "scaled", "--run-id", "20300102T000000Z-scaled", "--noise-guard", "off"], env);
  assert.equal(r.code, 0, r.stderr);
  const m = JSON.parse(readFileSync(path.join(data, "runs", "20300102T000000Z-scaled", "manifest.json"), "utf8"));
  assert.deepEqual(
    m.config.studies.toy.prepare_timeout_s,
    { fakedb: 1500 },
    "raised for fakedb only, recorded with the run's config",
  );
  assert.deepEqual(recordedPrepareBounds(m.config), { toy: { fakedb: 1500 } });
  const v = cli(["validate", path.join(data, "runs", "20300102T000000Z-scaled")], env);
  assert.equal(v.code, 0, v.stdout + v.stderr);
});
