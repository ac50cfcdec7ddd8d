import { test } from "node:test";
import assert from "node:assert/strict";
import { publishable } from "../parsers/percentiles.ts";
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fixtures, tempDir } from "./helpers.ts";
import { parse as parseK6Cell, parseK6 } from "../parsers/k6.ts";
import { parse as parseMcpLoadCell } from "../parsers/mcp-load.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { validateRecord } from "../lib/schema.ts";

// Real client-ceiling cells of the mcp-db study, captured on this project's 2-core machine by its
// run verb (fixtures/raw/mcp-db/ceiling/capture.sh): workload client_ceiling (mcp-load) and
// client_ceiling_k6 (k6 + k6-with-cpu.py) against mcp-trivial's echo tool at concurrency 1, 8, 25,
// plus a k6 cell whose mcp-trivial was killed mid-run.
const raw = path.join(fixtures, "raw", "mcp-db", "ceiling");
const cells = readdirSync(raw).filter((d) => !d.includes("."));
const k6Cells = cells.filter((c) => c.startsWith("k6-"));
const healthyK6 = k6Cells.filter((c) => !c.includes("killed"));
const mcpLoadCells = cells.filter((c) => c.startsWith("mcp-load-"));
const read = (dir: string, f: string) => JSON.parse(readFileSync(path.join(raw, dir, f), "utf8"));
const stdoutOf = (dir: string) => readFileSync(path.join(raw, dir, "stdout.txt"), "utf8");
const only = (ms: Measurement[], metric: string): number | undefined => {
  const found = ms.filter((m) => m.metric === metric);
  assert.ok(found.length <= 1, `at most one ${metric}`);
  return found[0]?.value;
};
const runK6 = (dir: string) => parseK6Cell({ cellDir: path.join(raw, dir), stdout: stdoutOf(dir) });
const runMcpLoad = (dir: string) => parseMcpLoadCell({ cellDir: path.join(raw, dir), stdout: stdoutOf(dir) });
const validRecord = (m: Measurement, workload: string) =>
  validateRecord({
    run_id: "20260101T000000Z-ci-test",
    source: "measured",
    study: "mcp-db",
    workload,
    system: "postgresql",
    system_version: "15",
    server: "mcp-null",
    variant: "trivial",
    concurrency: 8,
    repetition: 1,
    metric: m.metric,
    value: m.value,
    unit: m.unit,
    t: m.t ?? null,
    profile: "ci",
    machine: "test",
    commit: "",
  });

test("fixtures: both clients at concurrency 1, 8 and 25, and the server-killed case", () => {
  for (const c of [1, 8, 25]) {
    assert.ok(cells.includes(`k6-c${c}`), `k6-c${c}`);
    assert.ok(cells.includes(`mcp-load-c${c}`), `mcp-load-c${c}`);
  }
  assert.ok(cells.includes("k6-c4-server-killed"));
});

for (const c of k6Cells) {
  test(`${c}: every figure comes from the raw summary and k6-cpu.json and forms valid records`, () => {
    const ms = runK6(c);
    const s = read(c, "stdout.txt");
    const cpu = read(c, "k6-cpu.json");
    assert.equal(only(ms, "throughput"), s.throughput_per_s);
    assert.equal(only(ms, "calls"), s.calls);
    assert.equal(only(ms, "errors"), s.errors.total);
    assert.equal(only(ms, "client_cpu_per_call"), cpu.per_call_us);
    // k6-with-cpu.py's own arithmetic and window: inside the measured scenario (after the warm-up).
    const w = cpu.window;
    assert.ok(
      Math.abs(w.per_call_us - ((w.user_s + w.sys_s) / w.calls) * 1e6) < 0.01,
      "per_call_us = window CPU / window calls",
    );
    assert.ok(
      w.start_s >= s.warmup_s && w.end_s <= s.warmup_s + s.duration_s + 0.1,
      `window ${w.start_s}-${w.end_s} s inside the measured scenario`,
    );
    assert.ok(w.calls <= s.calls_all_scenarios);
    // throughput is successful calls over the measured duration.
    assert.ok(Math.abs(s.throughput_per_s - s.ok / s.duration_s) < 0.01);
    for (const m of ms) assert.ok(validRecord(m, "client_ceiling_k6"), `${m.metric} is a valid record`);
  });
}

test("healthy k6 cells: no errors, ordered latency percentiles, k6's CPU per call, server alive", () => {
  for (const c of healthyK6) {
    const ms = runK6(c);
    const s = read(c, "stdout.txt");
    assert.equal(only(ms, "errors"), 0, c);
    assert.ok(only(ms, "throughput")! > 0, c);
    for (const k of ["p50", "p90", "p95", "p99", "p999", "max", "mean"])
      assert.equal(only(ms, `latency_${k}`), publishable(k, s.ok) ? s.latency_ms[k] : undefined, `${c} ${k}`);
    const p = ["p50", "p90", "p95", "p99", "p999", "max"]
      .filter((k) => publishable(k, s.ok))
      .map((k) => only(ms, `latency_${k}`)!);
    assert.deepEqual(
      [...p].sort((a, b) => a - b),
      p,
      `${c}: percentiles are ordered`,
    );
    assert.ok(only(ms, "client_cpu_per_call")! > 0, c);
    assert.equal(only(ms, "server_crashed"), undefined, c);
    assert.equal(s.concurrency, Number(c.replace("k6-c", "")), `${c}: VUs = the cell's concurrency`);
  }
});

test("k6 with mcp-trivial killed mid-run: errors counted, server_crashed, latency withheld (k6's trend mixes in failed calls)", () => {
  const ms = runK6("k6-c4-server-killed");
  const s = read("k6-c4-server-killed", "stdout.txt");
  assert.ok(only(ms, "errors")! > 0);
  assert.equal(only(ms, "server_crashed"), 1);
  assert.ok(only(ms, "throughput")! > 0, "the calls before the kill still count");
  assert.equal(s.latency_ms.p50, 0, "the raw summary has the refused connections' 0 ms in its trend");
  assert.equal(only(ms, "latency_p50"), undefined);
});

test("mcp-load ceiling cells: the mcp-load parser gives throughput, latency and client CPU, no database figures", () => {
  for (const c of mcpLoadCells) {
    const ms = runMcpLoad(c);
    const r = read(c, "stdout.txt");
    assert.equal(r.tool_name, "echo", c);
    assert.equal(only(ms, "throughput"), r.throughput_per_s, c);
    assert.equal(only(ms, "errors"), 0, c);
    assert.equal(only(ms, "client_cpu_per_call"), r.cpu.per_call_us, c);
    assert.ok(only(ms, "client_cpu_per_call")! > 0, c);
    assert.equal(only(ms, "direct_throughput"), undefined, `${c}: no database`);
    assert.equal(only(ms, "mcp_overhead_p50"), undefined, `${c}: no database`);
    for (const m of ms) assert.ok(validRecord(m, "client_ceiling"), `${c}: ${m.metric} is a valid record`);
  }
});

test("side by side: at each concurrency both clients drove the same tool, protocol, duration and warm-up", () => {
  for (const c of [1, 8, 25]) {
    const m = read(`mcp-load-c${c}`, "stdout.txt");
    const k = read(`k6-c${c}`, "stdout.txt");
    assert.equal(m.concurrency, c);
    assert.equal(k.concurrency, c);
    assert.equal(k.tool_name, m.tool_name);
    assert.equal(k.protocol, m.protocol);
    assert.equal(k.warmup_s, m.warmup_s);
    assert.ok(Math.abs(k.duration_s - m.duration_s) < 0.1, `duration ${k.duration_s} vs ${m.duration_s}`);
    for (const f of [read(`mcp-load-c${c}`, "faults.json"), read(`k6-c${c}`, "faults.json")]) {
      assert.equal(f.server, "mcp-trivial");
      assert.equal(f.variant, "trivial");
    }
  }
});

test("bad k6 output gives a ParseError that says what was expected", () => {
  const good = stdoutOf("k6-c8");
  assert.throws(
    () => parseK6(""),
    (e: Error) => e instanceof ParseError && /no JSON object/.test(e.message),
  );
  assert.throws(
    () => parseK6(good.slice(0, good.length / 2)),
    (e: Error) => e instanceof ParseError && /not one JSON document/.test(e.message),
  );
  assert.throws(
    () => parseK6(stdoutOf("mcp-load-c8")),
    (e: Error) => e instanceof ParseError && /field tool = "k6"/.test(e.message),
  );
  assert.throws(
    () => parseK6(good.replace(/"p99": [\d.]+/, '"p99": "fast"')),
    (e: Error) => /latency_ms.p99/.test(e.message),
  );
  assert.throws(
    () => parseK6(good.replace(/"throughput_per_s": [\d.]+,/, "")),
    (e: Error) => /throughput_per_s/.test(e.message),
  );
  assert.throws(
    () => parseK6(good.replace(/"ok": \d+/, '"ok": 1')),
    (e: Error) => /is not calls/.test(e.message),
  );
  // A broken or implausible k6-cpu.json is an error, not a silently missing CPU figure...
  const dir = tempDir();
  try {
    cpSync(path.join(raw, "k6-c8"), dir, { recursive: true });
    writeFileSync(path.join(dir, "k6-cpu.json"), '{"per_call_us": -3}');
    assert.throws(
      () => parseK6Cell({ cellDir: dir, stdout: good }),
      (e: Error) => e instanceof ParseError && /per_call_us/.test(e.message),
    );
    writeFileSync(path.join(dir, "k6-cpu.json"), '{"per_call_us": ');
    assert.throws(
      () => parseK6Cell({ cellDir: dir, stdout: good }),
      (e: Error) => e instanceof ParseError && /k6-cpu.json/.test(e.message),
    );
    // ...while null (k6 ended before the window closed) means no figure.
    writeFileSync(
      path.join(dir, "k6-cpu.json"),
      '{"per_call_us": null, "why_no_window": "k6 completed no tools/call"}',
    );
    const ms = parseK6Cell({ cellDir: dir, stdout: good });
    assert.equal(only(ms, "client_cpu_per_call"), undefined);
    assert.ok(only(ms, "throughput")! > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
