import { test } from "node:test";
import assert from "node:assert/strict";
import { fromCsv, fromJsonl, toCsv, toJsonl } from "../lib/records.ts";
import type { ResultRecord } from "../lib/records.ts";
import { recordColumns, validateRecord } from "../lib/schema.ts";

const base: ResultRecord = {
  run_id: "20261121T210000Z-ci-box",
  source: "measured",
  study: "oltp",
  workload: "oltp_read_write",
  system: "postgresql",
  system_version: "15.18",
  server: "",
  variant: "warm",
  concurrency: 4,
  repetition: 1,
  metric: "tps",
  value: 1234.5,
  unit: "tx/s",
  t: null,
  profile: "ci",
  machine: "local: test, 2 cores, 24 GiB",
  commit: "abc",
};

test("CSV and JSONL round-trip keep every field, including null t and commas in text", () => {
  const recs: ResultRecord[] = [base, { ...base, metric: "tps_series", t: 3, machine: 'has "quotes", and commas' }];
  assert.deepEqual(fromCsv(toCsv(recs), "mem.csv"), recs);
  assert.deepEqual(fromJsonl(toJsonl(recs), "mem.jsonl"), recs);
  assert.equal(toCsv(recs).split("\n")[0], recordColumns.join(","));
});

test("schema rejects unknown units, extra fields, bad run ids and negative concurrency", () => {
  assert.ok(validateRecord(base));
  assert.ok(!validateRecord({ ...base, unit: "furlongs" }));
  assert.ok(!validateRecord({ ...base, extra: 1 }));
  assert.ok(!validateRecord({ ...base, run_id: "../../etc" }));
  assert.ok(!validateRecord({ ...base, concurrency: -1 }));
  assert.ok(validateRecord({ ...base, run_id: "published-seed-002", source: "published" }));
});

test("a bad CSV row is reported with its file and line", () => {
  const csv = toCsv([base, { ...base, unit: "furlongs" as ResultRecord["unit"] }]);
  assert.throws(() => fromCsv(csv, "x.csv"), /x\.csv line 3: \/unit/);
  assert.throws(() => fromCsv("a,b\n1,2\n", "y.csv"), /y\.csv: missing column\(s\) run_id/);
  assert.throws(() => fromJsonl("{not json}\n", "z.jsonl"), /z\.jsonl line 1: not JSON/);
});
