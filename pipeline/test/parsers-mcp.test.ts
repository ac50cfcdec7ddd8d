import { test } from "node:test";
import assert from "node:assert/strict";
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
const run = (dir: string) => parse({ cellDir: path.join(raw, dir), stdout: readFileSync(path.join(raw, dir, "stdout.txt"), "utf8") });

test("fixtures cover all three servers, discovery and call workloads, and both fault cases", () => {
  for (const s of ["faucet", "dbhub", "toolbox"]) assert.ok(cells.some((c) => c.startsWith(s + "-")), s);
  for (const c of ["faucet-pg-discovery", "faucet-pg-server-killed", "faucet-pg-db-refused"]) assert.ok(cells.includes(c), c);
});

for (const c of cells) {
  test(`${c}: every figure comes from the raw reports and forms valid records`, () => {
    const ms = run(c);
    const r = read(c, "stdout.txt");
    assert.equal(only(ms, "throughput"), r.throughput_per_s);
    assert.equal(only(ms, "calls"), r.calls);
    assert.equal(only(ms, "errors"), r.errors.total);
    assert.equal(only(ms, "client_cpu_per_call"), r.cpu.per_call_us);
    for (const [kind, n] of Object.entries(r.errors.by_kind as Record<string, number>)) assert.equal(only(ms, `errors_${kind}`), n, kind);
    if (r.latency_ms) {
      for (const k of ["p50", "p90", "p95", "p99", "p999", "max", "mean"]) assert.equal(only(ms, `latency_${k}`), r.latency_ms[k], k);
      const p = ["p50", "p90", "p95", "p99", "p999", "max"].map((k) => only(ms, `latency_${k}`)!);
      assert.deepEqual([...p].sort((a, b) => a - b), p, "percentiles are ordered");
    } else {
      assert.equal(only(ms, "latency_p50"), undefined, "no latency without a successful call");
    }
    if (existsSync(path.join(raw, c, "direct.json"))) {
      const d = read(c, "direct.json");
      assert.equal(only(ms, "direct_throughput"), d.throughput_per_s);
      assert.equal(only(ms, "direct_latency_p50"), d.latency_ms.p50);
      if (r.latency_ms) {
        const overhead = only(ms, "mcp_overhead_p50")!;
        assert.ok(Math.abs(overhead - (r.latency_ms.p50 - d.latency_ms.p50)) < 1e-3, "overhead = MCP p50 - direct p50");
      }
    } else {
      assert.equal(only(ms, "mcp_overhead_p50"), undefined);
    }
    for (const m of ms) {
      const rec = { run_id: "20260101T000000Z-ci-test", source: "measured", study: "mcp-db", workload: "w", system: "postgresql", system_version: "15", variant: "faucet-baseline", concurrency: 1, repetition: 1, metric: m.metric, value: m.value, unit: m.unit, t: m.t ?? null, profile: "ci", machine: "test", commit: "" };
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
  assert.throws(() => parseMcpLoad(""), (e: Error) => e instanceof ParseError && /no JSON object/.test(e.message));
  assert.throws(() => parseMcpLoad("mcp-load: --url is required"), ParseError);
  assert.throws(() => parseMcpLoad(good.slice(0, good.length / 2)), (e: Error) => e instanceof ParseError && /not one JSON document/.test(e.message));
  assert.throws(() => parseMcpLoad(good.replace('"tool": "mcp-load"', '"tool": "k6"')), (e: Error) => /expected a mcp-load report/.test(e.message));
  assert.throws(() => parseMcpLoad(good.replace(/"p99": [\d.]+/, '"p99": "fast"')), (e: Error) => /latency_ms.p99/.test(e.message));
  assert.throws(() => parseMcpLoad(good.replace(/"throughput_per_s": [\d.]+,/, "")), (e: Error) => /throughput_per_s/.test(e.message));
  // A broken direct.json in the cell is an error too, not a silently missing overhead.
  const dir = tempDir();
  try {
    cpSync(path.join(raw, "faucet-sqlite-point"), dir, { recursive: true });
    writeFileSync(path.join(dir, "direct.json"), '{"tool": "mcpdb-direct"');
    assert.throws(() => parse({ cellDir: dir, stdout: good }), (e: Error) => e instanceof ParseError && /direct.json/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
