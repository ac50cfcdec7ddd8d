import { test } from "node:test";
import assert from "node:assert/strict";
import { publishable } from "../parsers/percentiles.ts";
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fixtures } from "./helpers.ts";
import { parse, parseReserva } from "../parsers/reserva.ts";
import { parserFor } from "../parsers/index.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";

// Real reserva reports (bench-scripts/loadgen/reserva) captured from a ci run of the payments study
// on this project's machine: one folder per <system>-<variant>, each holding the cell's reserva.json.
const raw = path.join(fixtures, "raw", "payments");
const cells = readdirSync(raw).map((name) => ({
  name,
  dir: path.join(raw, name),
  doc: JSON.parse(readFileSync(path.join(raw, name, "reserva.json"), "utf8")),
}));
const one = (ms: Measurement[], metric: string) => {
  const found = ms.filter((m) => m.metric === metric);
  assert.equal(found.length, 1, `exactly one ${metric}`);
  return found[0];
};
const units = new Set([
  "tx/s",
  "q/s",
  "calls/s",
  "ms",
  "us",
  "s",
  "count",
  "MiB",
  "MB",
  "%",
  "ratio",
  "rows",
  "bytes",
  "usd",
]);

test("fixtures: postgresql and mariadb, both variants represented", () => {
  assert.deepEqual(cells.map((c) => c.name).sort(), ["mariadb-as-published", "postgresql-parity"]);
  assert.ok(parserFor("reserva"), "reserva is registered in parsers/index.ts");
});

for (const c of cells) {
  test(`reserva ${c.name}: headline, latency, series, errors, cpu`, () => {
    const ms = parse({ cellDir: c.dir, stdout: "", workload: {} });
    for (const m of ms) {
      assert.match(m.metric, /^[a-z0-9_]+$/);
      assert.ok(units.has(m.unit), `${m.metric}: unit ${m.unit}`);
      assert.ok(Number.isFinite(m.value), `${m.metric} is finite`);
    }
    assert.equal(one(ms, "tps").value, Math.round(c.doc.transfers_per_s * 1000) / 1000);
    assert.equal(one(ms, "tps").unit, "tx/s");
    assert.equal(one(ms, "transfers").value, c.doc.transfers);
    assert.equal(one(ms, "actions_per_s").value, Math.round(c.doc.actions_per_s * 1000) / 1000);
    assert.equal(one(ms, "invariant_violations").value, 0);
    // A percentile only from at least 10/(1-p) transfers (percentiles.ts).
    const n = c.doc.latency_ms.transfer.count;
    assert.equal(
      ms.find((m) => m.metric === "latency_p99")?.value,
      publishable("p99", n) ? c.doc.latency_ms.transfer.p99 : undefined,
    );
    assert.equal(one(ms, "rt4_transfer_write_p50").value, c.doc.latency_ms.rt4_transfer_write.p50);
    assert.equal(
      ms.filter((m) => m.metric === "rt1_auth_acquiring_p999").length,
      publishable("p999", c.doc.latency_ms.rt1_auth_acquiring.count) ? 1 : 0,
    );
    // The series covers warm-up (t <= 0) and the measured seconds (t = 1..duration).
    const series = ms.filter((m) => m.metric === "tps_series");
    assert.equal(series.length, c.doc.series.transfers.length);
    assert.equal(series.filter((m) => (m.t ?? 0) <= 0).length, c.doc.series.warmup_s);
    assert.equal(
      series.filter((m) => (m.t ?? 0) >= 1 && (m.t ?? 0) <= c.doc.duration_s).reduce((a, m) => a + m.value, 0),
      c.doc.transfers,
    );
    // Application rejects are counted apart from database errors; the same-user skip always happens.
    assert.ok(one(ms, "reject_same_user").value > 0);
    assert.equal(
      one(ms, "errors").value,
      Object.values(c.doc.errors as Record<string, number>).reduce((a, n) => a + n, 0),
    );
    assert.ok(ms.some((m) => m.metric === "transfers_per_minute_table" && m.t === 1));
    assert.ok(one(ms, "server_cpu_ms_per_1k_transfers").value > 0);
    const share = one(ms, "loadgen_cpu_share").value;
    assert.ok(share > 0 && share < 1, `loadgen share ${share}`);
  });
}

test("reserva: a report with a violated invariant does not parse into a result", () => {
  const doc = structuredClone(cells[0].doc);
  doc.invariants = { ok: false, violations: ["sum of balances is 5000000001, expected 5000000000 (difference +1)"] };
  assert.throws(
    () => parseReserva(JSON.stringify(doc)),
    (e: Error) => e instanceof ParseError && /invariant violated: sum of balances/.test(e.message),
  );
});

test("reserva: errors by class become error_<class> counts and an errors_series", () => {
  const doc = structuredClone(cells[0].doc);
  doc.errors = { deadlock: 2, procedure_rollback: 1 };
  doc.series.errors = {
    ...doc.series.errors,
    deadlock: doc.series.transfers.map((_: number, i: number) => (i === doc.series.warmup_s ? 2 : 0)),
  };
  const ms = parseReserva(JSON.stringify(doc));
  assert.equal(one(ms, "error_deadlock").value, 2);
  assert.equal(one(ms, "error_procedure_rollback").value, 1);
  assert.equal(one(ms, "errors").value, 3);
  assert.equal(ms.filter((m) => m.metric === "errors_series").find((m) => m.t === 1)?.value, 2);
});

test("reserva: malformed output is a ParseError naming what is wrong", () => {
  assert.throws(() => parseReserva("not json"), ParseError);
  assert.throws(() => parseReserva(JSON.stringify({ tool: "pgwire-tp" })), /tool "reserva"/);
  const doc = structuredClone(cells[0].doc);
  delete doc.transfers;
  assert.throws(() => parseReserva(JSON.stringify(doc)), /'transfers' is missing/);
  const dir = mkdtempSync(path.join(tmpdir(), "samebox-payments-"));
  assert.throws(() => parse({ cellDir: dir, stdout: "  ", workload: {} }), /no output/);
  writeFileSync(path.join(dir, "reserva.json"), JSON.stringify(cells[0].doc));
  assert.ok(parse({ cellDir: dir, stdout: "", workload: {} }).length > 20, "reads CELL_DIR/reserva.json before stdout");
});
