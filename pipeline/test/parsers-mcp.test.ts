import { test } from "node:test";
import assert from "node:assert/strict";
import { publishable } from "../parsers/percentiles.ts";
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fixtures, tempDir } from "./helpers.ts";
import { parse, parseMcpLoad } from "../parsers/mcp-load.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { validateRecord } from "../lib/schema.ts";

// Real cells of the mcp-db study captured on this project's machine by its run verb
// (bench-scripts/studies/mcp-db/run with CELL_DIR set): stdout.txt is mcp-load's report,
// direct.json mcpdb-direct's, faults.json the run verb's fault notes. One folder per case:
// <server>-<system>-<workload>, plus a server killed mid-run and a database refusing connections.
const raw = path.join(fixtures, "raw", "mcp-db");
const cells = readdirSync(raw).filter((d) => existsSync(path.join(raw, d, "stdout.txt")));
const read = (dir: string, f: string) => JSON.parse(readFileSync(path.join(raw, dir, f), "utf8"));
const only = (ms: Measurement[], metric: string): number | undefined => {
  const found = ms.filter((m) => m.metric === metric);
  assert.ok(found.length <= 1, `at most one ${metric}`);
  return found[0]?.value;
};
const run = (dir: string) =>
  parse({ cellDir: path.join(raw, dir), stdout: readFileSync(path.join(raw, dir, "stdout.txt"), "utf8") });

test("fixtures cover all three servers, discovery and call workloads, and both fault cases", () => {
  for (const s of ["faucet", "dbhub", "toolbox"])
    assert.ok(
      cells.some((c) => c.startsWith(s + "-")),
      s,
    );
  for (const c of ["faucet-pg-discovery", "faucet-pg-server-killed", "faucet-pg-db-refused"])
    assert.ok(cells.includes(c), c);
});

for (const c of cells) {
  test(`${c}: every figure comes from the raw reports and forms valid records`, () => {
    const ms = run(c);
    const r = read(c, "stdout.txt");
    assert.equal(only(ms, "throughput"), r.throughput_per_s);
    assert.equal(only(ms, "calls"), r.calls);
    assert.equal(only(ms, "errors"), r.errors.total);
    assert.equal(only(ms, "client_cpu_per_call"), r.cpu.per_call_us);
    for (const [kind, n] of Object.entries(r.errors.by_kind as Record<string, number>))
      assert.equal(only(ms, `errors_${kind}`), n, kind);
    if (r.latency_ms) {
      // A percentile only from at least 10/(1-p) successful calls (percentiles.ts).
      for (const k of ["p50", "p90", "p95", "p99", "p999", "max", "mean"])
        assert.equal(only(ms, `latency_${k}`), publishable(k, r.ok) ? r.latency_ms[k] : undefined, k);
      const p = ["p50", "p90", "p95", "p99", "p999", "max"]
        .filter((k) => publishable(k, r.ok))
        .map((k) => only(ms, `latency_${k}`)!);
      assert.deepEqual(
        [...p].sort((a, b) => a - b),
        p,
        "percentiles are ordered",
      );
    } else {
      assert.equal(only(ms, "latency_p50"), undefined, "no latency without a successful call");
    }
    if (existsSync(path.join(raw, c, "direct.json"))) {
      const d = read(c, "direct.json");
      assert.equal(only(ms, "direct_throughput"), d.throughput_per_s);
      assert.equal(only(ms, "direct_latency_p50"), publishable("p50", d.ok) ? d.latency_ms.p50 : undefined);
      if (r.latency_ms && publishable("p50", Math.min(r.ok, d.ok))) {
        const overhead = only(ms, "mcp_overhead_p50")!;
        assert.ok(Math.abs(overhead - (r.latency_ms.p50 - d.latency_ms.p50)) < 1e-3, "overhead = MCP p50 - direct p50");
      }
    } else {
      assert.equal(only(ms, "mcp_overhead_p50"), undefined);
    }
    for (const m of ms) {
      const rec = {
        run_id: "20260101T000000Z-ci-test",
        source: "measured",
        study: "mcp-db",
        workload: "w",
        system: "postgresql",
        system_version: "15",
        server: "faucet",
        variant: "baseline",
        concurrency: 1,
        repetition: 1,
        metric: m.metric,
        value: m.value,
        unit: m.unit,
        t: m.t ?? null,
        profile: "ci",
        machine: "test",
        commit: "",
      };
      assert.ok(validateRecord(rec), `${m.metric} is a valid record`);
    }
  });
}

test("healthy cells: calls succeed and MCP adds latency on top of the direct driver", () => {
  for (const c of cells.filter((c) => !/killed|refused|discovery/.test(c))) {
    const ms = run(c);
    assert.equal(only(ms, "errors"), 0, c);
    assert.ok(only(ms, "throughput")! > 0, c);
    assert.ok(only(ms, "mcp_overhead_p50")! > 0, `${c}: MCP p50 above the direct driver's p50`);
    assert.equal(only(ms, "server_crashed"), undefined, c);
  }
});

test("a server killed mid-run: transport errors counted and the cell marked server_crashed", () => {
  const ms = run("faucet-pg-server-killed");
  assert.ok(only(ms, "errors")! > 0);
  assert.ok(only(ms, "errors_transport")! > 0);
  assert.equal(only(ms, "server_crashed"), 1);
  assert.ok(only(ms, "throughput")! > 0, "the calls before the kill still count");
});

test("a database refusing connections: every call is a tool error, no latency, direct path marked failed", () => {
  const ms = run("faucet-pg-db-refused");
  assert.equal(only(ms, "throughput"), 0);
  assert.equal(only(ms, "errors"), only(ms, "calls"));
  assert.ok(only(ms, "errors_tool_is_error")! > 0);
  assert.equal(only(ms, "direct_failed"), 1);
  assert.equal(only(ms, "latency_p50"), undefined);
});

test("bad output gives a ParseError that says what was expected", () => {
  const good = readFileSync(path.join(raw, "faucet-sqlite-point", "stdout.txt"), "utf8");
  assert.throws(
    () => parseMcpLoad(""),
    (e: Error) => e instanceof ParseError && /no JSON object/.test(e.message),
  );
  assert.throws(() => parseMcpLoad("mcp-load: --url is required"), ParseError);
  assert.throws(
    () => parseMcpLoad(good.slice(0, good.length / 2)),
    (e: Error) => e instanceof ParseError && /not one JSON document/.test(e.message),
  );
  assert.throws(
    () => parseMcpLoad(good.replace('"tool": "mcp-load"', '"tool": "k6"')),
    (e: Error) => /expected a mcp-load report/.test(e.message),
  );
  assert.throws(
    () => parseMcpLoad(good.replace(/"p99": [\d.]+/, '"p99": "fast"')),
    (e: Error) => /latency_ms.p99/.test(e.message),
  );
  assert.throws(
    () => parseMcpLoad(good.replace(/"throughput_per_s": [\d.]+,/, "")),
    (e: Error) => /throughput_per_s/.test(e.message),
  );
  // A broken direct.json in the cell is an error too, not a silently missing overhead.
  const dir = tempDir();
  try {
    cpSync(path.join(raw, "faucet-sqlite-point"), dir, { recursive: true });
    writeFileSync(path.join(dir, "direct.json"), '{"tool": "mcpdb-direct"');
    assert.throws(
      () => parse({ cellDir: dir, stdout: good }),
      (e: Error) => e instanceof ParseError && /direct.json/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// the percentile rule, the steady-state warm-up and dropped arrivals.
test("percentile rule: p is published only from at least 10/(1-p) calls, never a p99.9 from 500", async () => {
  const { minSampleFor } = await import("../parsers/percentiles.ts");
  assert.deepEqual([50, 90, 95, 99, 99.9].map(minSampleFor), [20, 100, 200, 1000, 10000]);
  const lat = { p50: 1, p90: 2, p95: 3, p99: 4, p999: 5, max: 6, mean: 1.5 };
  const doc = (ok: number) =>
    JSON.stringify({
      tool: "mcp-load",
      calls: ok,
      ok,
      errors: { total: 0, by_kind: {} },
      throughput_per_s: ok,
      latency_ms: lat,
    });
  const at500 = parseMcpLoad(doc(500));
  assert.deepEqual(
    at500
      .filter((m) => m.metric.startsWith("latency_"))
      .map((m) => m.metric)
      .sort(),
    ["latency_max", "latency_mean", "latency_p50", "latency_p90", "latency_p95"],
  );
  const at10k = parseMcpLoad(doc(10_000));
  assert.equal(at10k.find((m) => m.metric === "latency_p999")?.value, 5);
  assert.equal(
    parseMcpLoad(doc(999)).find((m) => m.metric === "latency_p99"),
    undefined,
  );
  assert.equal(parseMcpLoad(doc(1000)).find((m) => m.metric === "latency_p99")?.value, 4);
});

test("steady-state warm-up: warmup_s (s) and steady (0/1) from mcp-load's report; dropped arrivals are errors", () => {
  const base = {
    tool: "mcp-load",
    ok: 900,
    errors: { total: 100, by_kind: { dropped: 100 } },
    throughput_per_s: 90,
    latency_ms: null,
  };
  const ms = parseMcpLoad(JSON.stringify({ ...base, calls: 1000, dropped: 100, warmup_s: 7.2, steady: false }));
  assert.deepEqual(
    ms.find((m) => m.metric === "warmup_s"),
    { metric: "warmup_s", value: 7.2, unit: "s", t: null },
  );
  assert.equal(ms.find((m) => m.metric === "steady")?.value, 0);
  assert.equal(ms.find((m) => m.metric === "dropped")?.value, 100);
  assert.equal(ms.find((m) => m.metric === "errors")?.value, 100, "dropped arrivals are in errors");
  assert.equal(ms.find((m) => m.metric === "errors_dropped")?.value, 100);
  const fixed = parseMcpLoad(JSON.stringify({ ...base, calls: 1000, warmup_s: 1, steady: null }));
  assert.equal(
    fixed.find((m) => m.metric === "steady"),
    undefined,
    "a fixed warm-up has no steady flag",
  );
  for (const m of ms) {
    const rec = {
      run_id: "20260101T000000Z-ci-test",
      source: "measured",
      study: "mcp-db",
      workload: "w",
      system: "postgresql",
      system_version: "15",
      server: "faucet",
      variant: "v",
      concurrency: 1,
      repetition: 1,
      metric: m.metric,
      value: m.value,
      unit: m.unit,
      t: m.t ?? null,
      profile: "ci",
      machine: "test",
      commit: "",
    };
    assert.ok(validateRecord(rec), `${m.metric} is a valid record`);
  }
});

test("warmup.json (lib/steady.sh) gives warmup_s and steady to the foreign tools' cells; a malformed one is a ParseError", async () => {
  const { warmupFromCell } = await import("../parsers/warmup.ts");
  const dir = tempDir();
  try {
    assert.deepEqual(warmupFromCell(dir), []);
    writeFileSync(
      path.join(dir, "warmup.json"),
      JSON.stringify({
        mode: "steady",
        warmup_s: 6,
        steady: true,
        window_s: 1,
        windows: 3,
        tolerance: 0.05,
        min_s: 3,
        max_s: 30,
        window_rates: [1, 2, 3],
      }),
    );
    assert.deepEqual(
      warmupFromCell(dir).map((m) => [m.metric, m.value, m.unit]),
      [
        ["warmup_s", 6, "s"],
        ["steady", 1, "count"],
      ],
    );
    writeFileSync(path.join(dir, "warmup.json"), JSON.stringify({ warmup_s: "6" }));
    assert.throws(() => warmupFromCell(dir), ParseError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
