import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync, mkdtempSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fixtures } from "./helpers.ts";
import { parse as parseHyperfine, parseHyperfineJson } from "../parsers/hyperfine.ts";
import { parse as parseTp, parsePgwireTp } from "../parsers/pgwire-tp.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";

// Real outputs of the analytical study's run verb (hyperfine 1.15 and pgwire-tp) captured on this
// project's machine by fixtures/raw/analytical/capture.sh: one folder per <system>/<workload>.<variant>.
const raw = path.join(fixtures, "raw", "analytical");
const cells = readdirSync(raw)
  .filter((s) => statSync(path.join(raw, s)).isDirectory())
  .flatMap((s) => readdirSync(path.join(raw, s)).map((c) => ({ system: s, name: c, dir: path.join(raw, s, c) })));
const hfCells = cells.filter((c) => existsSync(path.join(c.dir, "hyperfine.json")));
const tpCells = cells.filter((c) => existsSync(path.join(c.dir, "pgwire-tp.json")));
const ctx = (dir: string) => ({
  cellDir: dir,
  stdout: readFileSync(path.join(dir, "stdout.txt"), "utf8"),
  workload: {},
});
const one = (ms: Measurement[], metric: string) => {
  const found = ms.filter((m) => m.metric === metric);
  assert.equal(found.length, 1, `exactly one ${metric}`);
  return found[0];
};
const tmp = () => mkdtempSync(path.join(tmpdir(), "samebox-analytical-"));

test("fixtures: hyperfine cells on sqlite, duckdb, postgresql and pgwire (hot, cold, no-cache) and pgwire-tp cells", () => {
  const names = hfCells.map((c) => `${c.system}/${c.name}`);
  for (const n of [
    "sqlite/aggregate.hot",
    "duckdb/noop.hot",
    "postgresql/noop.hot",
    "postgresql/update.hot",
    "duckdb/pq_aggregate.hot",
    "sqlite/select_where.cold",
    "pgwire/aggregate.no-cache",
  ]) {
    assert.ok(names.includes(n), `missing fixture ${n}`);
  }
  assert.ok(tpCells.length >= 3, "at least three pgwire-tp fixtures");
});

for (const c of hfCells) {
  test(`hyperfine ${c.system}/${c.name}: summary in ms and every run with its index`, () => {
    const ms = parseHyperfine(ctx(c.dir));
    const json = JSON.parse(readFileSync(path.join(c.dir, "hyperfine.json"), "utf8")).results[0];
    for (const m of ms) assert.equal(m.unit, "ms");
    const mean = one(ms, "time_mean").value;
    const median = one(ms, "time_median").value;
    const min = one(ms, "time_min").value;
    const max = one(ms, "time_max").value;
    assert.ok(Math.abs(mean - json.mean * 1000) < 1e-9);
    assert.ok(
      min > 0 && min <= median && median <= max && min <= mean && mean <= max,
      `min ${min} <= median ${median}, mean ${mean} <= max ${max}`,
    );
    assert.ok(one(ms, "time_stddev").value >= 0);
    const runs = ms.filter((m) => m.metric === "time_run");
    assert.equal(runs.length, json.times.length);
    assert.ok(runs.length >= 2);
    assert.ok(
      runs.every((r) => r.repetition === undefined),
      "a hyperfine run is not a repetition: the runner gives every record the cell's repetition",
    );
    assert.equal(Math.min(...runs.map((r) => r.value)), min);
    assert.equal(Math.max(...runs.map((r) => r.value)), max);
    // the run verb's stdout names the cell and says the answer was checked before timing
    assert.match(ctx(c.dir).stdout, /^answer ok: sha256:[0-9a-f]{64} \(\d+ rows/m);
  });
}

test("hyperfine: a cold cell records whether the page cache could be dropped", () => {
  const cold = hfCells.filter((c) => c.name.endsWith(".cold"));
  assert.ok(cold.length > 0);
  for (const c of cold) {
    const info = JSON.parse(readFileSync(path.join(c.dir, "cold.json"), "utf8"));
    assert.ok(["allowed", "denied"].includes(info.drop_caches), `drop_caches is ${info.drop_caches}`);
    assert.match(ctx(c.dir).stdout, /^cold: /m);
  }
});

test("hyperfine: missing export, broken JSON, failed runs and several commands are ParseErrors", () => {
  const dir = tmp();
  assert.throws(
    () => parseHyperfine({ cellDir: dir, stdout: "wrong answer: x on y\n", workload: {} }),
    (e: unknown) => e instanceof ParseError && /no hyperfine\.json.*wrong answer/.test((e as Error).message),
  );
  const real = readFileSync(path.join(hfCells[0].dir, "hyperfine.json"), "utf8");
  writeFileSync(path.join(dir, "hyperfine.json"), real.slice(0, real.length / 2));
  assert.throws(() => parseHyperfine({ cellDir: dir, stdout: "", workload: {} }), ParseError);
  const doc = JSON.parse(real);
  const failed = structuredClone(doc);
  failed.results[0].exit_codes[0] = 1;
  assert.throws(() => parseHyperfineJson(JSON.stringify(failed)), /exited non-zero/);
  const two = structuredClone(doc);
  two.results.push(doc.results[0]);
  assert.throws(() => parseHyperfineJson(JSON.stringify(two)), /exactly one command/);
  assert.throws(() => parseHyperfineJson(JSON.stringify({ results: [] })), /no 'results'/);
  const nan = structuredClone(doc);
  nan.results[0].mean = "fast";
  assert.throws(() => parseHyperfineJson(JSON.stringify(nan)), /'mean' is not a number/);
});

for (const c of tpCells) {
  test(`pgwire-tp ${c.system}/${c.name}: qps, latency percentiles, errors, per-second series`, () => {
    const ms = parseTp(ctx(c.dir));
    const json = JSON.parse(readFileSync(path.join(c.dir, "pgwire-tp.json"), "utf8"));
    assert.equal(one(ms, "qps").unit, "q/s");
    assert.equal(one(ms, "qps").value, json.qps);
    assert.equal(one(ms, "errors").value, json.errors);
    assert.equal(one(ms, "errors").unit, "count");
    if (json.queries > 0) {
      const p50 = one(ms, "latency_p50").value,
        p99 = one(ms, "latency_p99").value,
        max = one(ms, "latency_max").value;
      assert.ok(p50 > 0 && p50 <= p99 && p99 <= max, `p50 ${p50} <= p99 ${p99} <= max ${max}`);
      assert.ok(Math.abs(json.qps * json.duration_s - json.queries) < 1, "qps = queries / duration");
    }
    const series = ms.filter((m) => m.metric === "qps_series");
    assert.deepEqual(
      series.map((m) => m.t),
      series.map((_, i) => i + 1),
    );
    // stdout carries the same JSON: parsing it alone gives the same measurements
    assert.deepEqual(parsePgwireTp(ctx(c.dir).stdout), ms);
  });
}

test("pgwire-tp: garbage, another tool's JSON and missing fields are ParseErrors", () => {
  const dir = tmp();
  assert.throws(() => parseTp({ cellDir: dir, stdout: "", workload: {} }), /no output/);
  assert.throws(() => parseTp({ cellDir: dir, stdout: "pgwire-tp: connect: refused\n", workload: {} }), /not JSON/);
  assert.throws(() => parsePgwireTp(JSON.stringify({ tool: "sysbench" })), /tool "pgwire-tp"/);
  const real = JSON.parse(readFileSync(path.join(tpCells[0].dir, "pgwire-tp.json"), "utf8"));
  delete real.qps;
  assert.throws(() => parsePgwireTp(JSON.stringify(real)), /'qps' is missing/);
  // all queries failed (mskql refusing bound parameters): the cell fails with the engine's first error, never a qps of 0
  const allFailed = {
    ...JSON.parse(readFileSync(path.join(tpCells[0].dir, "pgwire-tp.json"), "utf8")),
    queries: 0,
    qps: 0,
    errors: 42,
    first_error: "point_lookup: expected 0 arguments, got 1",
  };
  assert.throws(
    () => parsePgwireTp(JSON.stringify(allFailed)),
    /every query failed \(42 errors, 0 succeeded\): the workload did not run; first error: point_lookup: expected 0 arguments, got 1/,
  );
  // no query and no error (an empty window): qps 0 without latency rows
  const empty = parsePgwireTp(JSON.stringify({ ...allFailed, errors: 0 }));
  assert.equal(one(empty, "qps").value, 0);
  assert.equal(empty.filter((m) => m.metric.startsWith("latency_")).length, 0);
});
