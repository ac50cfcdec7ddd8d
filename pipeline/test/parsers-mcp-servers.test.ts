import { test } from "node:test";
import assert from "node:assert/strict";
import { publishable } from "../parsers/percentiles.ts";
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fixtures, tempDir } from "./helpers.ts";
import { parse, ERROR_CLASSES, TOOLS } from "../parsers/mcp-servers.ts";
import { parserFor } from "../parsers/index.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { validateRecord } from "../lib/schema.ts";

// Real cells of the mcp-servers study captured by fixtures/raw/mcp-servers/capture.sh (see its README):
// mcp-load closed and open loop, k6 with the seed-equivalent script, a cell whose Redis lost its
// histories (failed checks) and one whose server was killed mid-run.
const raw = path.join(fixtures, "raw", "mcp-servers");
const cells = readdirSync(raw).filter((d) => !d.includes("."));
const stdoutOf = (dir: string) => readFileSync(path.join(raw, dir, "stdout.txt"), "utf8");
const reportOf = (dir: string) => JSON.parse(stdoutOf(dir));
const run = (dir: string) => parse({ cellDir: path.join(raw, dir), stdout: stdoutOf(dir) });
const only = (ms: Measurement[], metric: string): number | undefined => {
  const found = ms.filter((m) => m.metric === metric);
  assert.ok(found.length <= 1, `at most one ${metric}`);
  return found[0]?.value;
};

test("fixtures: the five captured cases are present", () => {
  for (const c of ["closed_loop", "open_loop", "seed_k6", "closed-failed-check", "closed-server-killed"]) {
    assert.ok(
      cells.some((d) => d.endsWith(c)),
      `a cell for ${c}`,
    );
  }
});

test("registered as the 'mcp-servers' tool", () => {
  assert.equal(parserFor("mcp-servers"), parse);
});

test("every cell: throughput, errors by every class, per-tool figures, records valid", () => {
  for (const dir of cells) {
    const ms = run(dir);
    const r = reportOf(dir);
    assert.equal(only(ms, "throughput"), Math.round(r.throughput_per_s * 1e4) / 1e4, `${dir} throughput`);
    assert.equal(only(ms, "calls"), r.calls, dir);
    for (const c of ERROR_CLASSES) assert.ok(only(ms, `errors_${c}`) !== undefined, `${dir}: errors_${c}`);
    const classes = ERROR_CLASSES.reduce((s, c) => s + only(ms, `errors_${c}`)!, 0);
    assert.equal(classes, only(ms, "errors"), `${dir}: the classes add up to the errors`);
    for (const t of TOOLS) assert.ok(only(ms, `${t}_throughput`) !== undefined, `${dir}: ${t}_throughput`);
    for (const m of ms) {
      const rec = {
        run_id: "20260101T000000Z-ci-test",
        source: "measured",
        study: "mcp-servers",
        workload: "closed_loop",
        system: "mcp-go",
        system_version: "go-sdk 1",
        server: "",
        variant: "default",
        concurrency: 16,
        repetition: 1,
        metric: m.metric,
        value: m.value,
        unit: m.unit,
        t: m.t ?? null,
        profile: "ci",
        machine: "test",
        commit: "",
      };
      assert.ok(validateRecord(rec), `${dir}: ${m.metric} is a valid record`);
    }
  }
});

test("healthy cells: all calls ok, latency ordered, per-tool parts add up, resources present", () => {
  for (const dir of cells.filter((d) => /closed_loop|open_loop|seed_k6/.test(d))) {
    const ms = run(dir);
    assert.equal(only(ms, "errors"), 0, dir);
    const r = reportOf(dir);
    // Percentiles only from at least 10/(1-p) successful calls (percentiles.ts); the rest ordered.
    const present = ["p50", "p90", "p99", "p999", "max"].filter((k) => publishable(k, r.ok));
    for (const k of ["p50", "p90", "p99", "p999"])
      if (!publishable(k, r.ok))
        assert.equal(only(ms, `latency_${k}`), undefined, `${dir}: no ${k} from ${r.ok} calls`);
    const l = present.map((k) => only(ms, `latency_${k}`)!);
    assert.deepEqual(
      [...l].sort((a, b) => a - b),
      l,
      `${dir} ordered`,
    );
    // The merged distribution holds every tool's samples (a percentile of it is not an average of theirs).
    assert.equal(
      r.tools.reduce((s: number, t: { ok: number }) => s + t.ok, 0),
      r.ok,
      `${dir}: per-tool ok adds up`,
    );
    for (const t of TOOLS)
      assert.ok(only(ms, `${t}_latency_max`)! <= only(ms, "latency_max")!, `${dir}: ${t} max <= merged max`);
    const tooFew = r.tools.some((t: { ok: number }) => t.ok > 0 && !publishable("p99", t.ok));
    assert.ok(
      tooFew ? only(ms, "seed_averaged_p99") === undefined : only(ms, "seed_averaged_p99")! > 0,
      `${dir}: the seed's averaged p99 beside (when every tool has 1,000 calls)`,
    );
    for (const m of [
      "server_cpu_per_1k_calls",
      "redis_cpu_per_1k_calls",
      "api_cpu_per_1k_calls",
      "loadgen_cpu_per_1k_calls",
      "server_rss_avg",
      "server_rss_peak",
    ]) {
      assert.ok(only(ms, m)! > 0, `${dir}: ${m} > 0`);
    }
    assert.ok(only(ms, "server_rss_avg")! <= only(ms, "server_rss_peak")!, `${dir}: avg <= peak`);
    // CPU per 1k calls is the window's CPU over the window's calls.
    const res = JSON.parse(readFileSync(path.join(raw, dir, "resources.json"), "utf8"));
    const want = (res.server.cpu_s / reportOf(dir).calls) * 1000;
    assert.ok(Math.abs(only(ms, "server_cpu_per_1k_calls")! - want) < 1e-3, `${dir}: server CPU per 1k calls`);
    assert.ok(only(ms, "seed_way_rps")! > 0, `${dir}: the seed's way of counting`);
  }
});

test("k6 cell: steady-state tool calls vs the seed's whole-run request rate", () => {
  const dir = cells.find((d) => d.endsWith("seed_k6"))!;
  const ms = run(dir);
  const r = reportOf(dir);
  assert.equal(r.tool, "k6-seed003");
  assert.equal(r.vus, 50);
  // Seed way counts initialize + tools/call + tools/list (8 per iteration, 3 of them tool calls).
  assert.ok(only(ms, "seed_way_rps")! > only(ms, "throughput")!, "seed way counts more than tool calls");
  assert.ok(only(ms, "requests_per_s")! > 2 * only(ms, "throughput")!, "requests per s ~8/3 of tool calls");
  assert.ok(only(ms, "seed_way_latency_mean")! > 0);
});

test("open-loop cell: offered rate = fraction x peak, drops and late counted", () => {
  const dir = cells.find((d) => d.endsWith("open_loop"))!;
  const ms = run(dir);
  const rate = JSON.parse(readFileSync(path.join(raw, dir, "open-loop-rate.json"), "utf8"));
  assert.equal(only(ms, "offered_rate"), rate.rate);
  assert.equal(only(ms, "open_loop_fraction"), rate.fraction);
  assert.ok(only(ms, "dropped")! >= 0 && only(ms, "open_loop_late")! >= 0);
});

test("failed checks are errors of class failed_check, on the tool whose check failed", () => {
  const dir = cells.find((d) => d.endsWith("closed-failed-check"))!;
  const ms = run(dir);
  assert.ok(only(ms, "errors_failed_check")! > 0);
  assert.equal(only(ms, "errors_failed_check"), only(ms, "get_user_cart_errors"));
  assert.equal(only(ms, "search_products_errors"), 0);
});

test("a server killed mid-run: transport errors and server_crashed", () => {
  const dir = cells.find((d) => d.endsWith("closed-server-killed"))!;
  const ms = run(dir);
  assert.ok(only(ms, "errors_transport")! > 0);
  assert.equal(only(ms, "server_crashed"), 1);
});

test("bad input: a clear ParseError naming what is wrong", () => {
  const good = stdoutOf(cells.find((d) => d.endsWith("closed_loop"))!);
  assert.throws(
    () => parse({ cellDir: "", stdout: "" }),
    (e: unknown) => e instanceof ParseError && /no JSON object/.test((e as Error).message),
  );
  assert.throws(() => parse({ cellDir: "", stdout: '{"tool":"sysbench"}' }), /mcp-load or k6-seed003/);
  const noTools = JSON.parse(good);
  delete noTools.tools;
  assert.throws(() => parse({ cellDir: "", stdout: JSON.stringify(noTools) }), /--mix/);
  const badLat = JSON.parse(good);
  badLat.latency_ms.p99 = "x";
  assert.throws(() => parse({ cellDir: "", stdout: JSON.stringify(badLat) }), /latency_ms.p99/);
  const badTool = JSON.parse(good);
  badTool.tools[0].name = "fibonacci";
  assert.throws(() => parse({ cellDir: "", stdout: JSON.stringify(badTool) }), /unknown tool 'fibonacci'/);
});

test("a resources.json without a window gives no resource metrics (never made-up ones)", () => {
  const src = cells.find((d) => d.endsWith("closed_loop"))!;
  const dir = tempDir();
  try {
    cpSync(path.join(raw, src), dir, { recursive: true });
    writeFileSync(
      path.join(dir, "resources.json"),
      JSON.stringify({ kind: "mcp-load", error: "no measured window: x" }),
    );
    const ms = parse({ cellDir: dir, stdout: stdoutOf(src) });
    assert.equal(only(ms, "server_cpu_per_1k_calls"), undefined);
    assert.equal(only(ms, "server_rss_peak"), undefined);
    assert.ok(only(ms, "throughput")! > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// measure.py's window end was cut short when the tool exited within a sampling interval of
// it (85 of 164 cells); it now samples once more after the tool exited, so the end is interpolated.
test("measure.py: the window's end is not cut short when the tool exits right after it", async () => {
  const { spawn, spawnSync } = await import("node:child_process");
  const measure = path.join(import.meta.dirname, "..", "..", "bench-scripts", "studies", "mcp-servers", "measure.py");
  const dir = tempDir();
  const busy = spawn("python3", ["-c", "import time\nt=time.time()\nwhile time.time()-t<30: pass"], {
    stdio: "ignore",
  });
  try {
    // A fake mcp-load: 0.6 s of "load", then its report with a window ending at the moment it exits.
    const fake = [
      "import json, time, datetime as d",
      "t0 = time.time(); time.sleep(0.6); t1 = time.time()",
      "iso = lambda t: d.datetime.fromtimestamp(t, d.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')",
      "print(json.dumps({'tool': 'mcp-load', 'measure_start': iso(t0 + 0.1), 'measure_end': iso(t1)}))",
    ].join("\n");
    const r = spawnSync(
      "python3",
      [measure, "--cell", dir, "--kind", "mcp-load", "--server-pids", String(busy.pid), "--", "python3", "-c", fake],
      { encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(readFileSync(path.join(dir, "resources.json"), "utf8"));
    assert.equal(res.error, undefined, res.error);
    assert.equal(res.warning, undefined, "no 'cut short' warning: a sample follows the window's end");
    assert.ok(res.server.cpu_s > 0 && res.loadgen.cpu_s >= 0, JSON.stringify(res));
  } finally {
    busy.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("seed_k6: warmup_s and steady once, from the mcp-load pre-warm (warmup.json), not k6's own K6_WARMUP_S", () => {
  const src = cells.find((d) => d.endsWith("seed_k6"))!;
  const dir = tempDir();
  try {
    cpSync(path.join(raw, src), dir, { recursive: true });
    writeFileSync(
      path.join(dir, "warmup.json"),
      JSON.stringify({ mode: "steady", tool: "mcp-load pre-warm", warmup_s: 4.5, steady: true }),
    );
    const ms = parse({ cellDir: dir, stdout: readFileSync(path.join(dir, "stdout.txt"), "utf8") });
    assert.deepEqual(
      ms.filter((m) => m.metric === "warmup_s").map((m) => m.value),
      [4.5],
    );
    assert.deepEqual(
      ms.filter((m) => m.metric === "steady").map((m) => m.value),
      [1],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
