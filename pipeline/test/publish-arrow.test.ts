import { test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { tableFromIPC } from "apache-arrow";
import { latestRunRows, rowsToArrowGz, rowsToArrowIPC } from "../publish/arrow.ts";
import { columnType } from "../lib/columns.ts";

// results.arrow.gz, Explore's data: the columns in the given order with the record schema's types,
// strings dictionary-encoded, an empty field null (as read_csv reads an empty CSV field).

const rows = [
  { run_id: "r1", study: "oltp", concurrency: 8, value: 1234.5, t: null, dirty: true, log: "" },
  { run_id: "r1", study: "oltp", concurrency: 16, value: 99, t: 3, dirty: false, log: "cells/x/stderr.txt" },
];
const columns = ["run_id", "study", "concurrency", "value", "t", "dirty", "log"];

test("columns keep their order and the record schema's types; strings are dictionary-encoded; empty is null", () => {
  const table = tableFromIPC(rowsToArrowIPC(rows, columns));
  assert.deepEqual(
    table.schema.fields.map((f) => f.name),
    columns,
  );
  assert.deepEqual(columns.map(columnType), [
    "VARCHAR",
    "VARCHAR",
    "INTEGER",
    "DOUBLE",
    "DOUBLE",
    "VARCHAR",
    "VARCHAR",
  ]);
  assert.deepEqual(
    table.schema.fields.map((f) => String(f.type)),
    [
      "Dictionary<Int32, Utf8>",
      "Dictionary<Int32, Utf8>",
      "Int32",
      "Float64",
      "Float64",
      "Dictionary<Int32, Utf8>",
      "Dictionary<Int32, Utf8>",
    ],
  );
  assert.deepEqual(
    table.toArray().map((r) => ({ ...r.toJSON() })),
    [
      { run_id: "r1", study: "oltp", concurrency: 8, value: 1234.5, t: null, dirty: "true", log: null },
      { run_id: "r1", study: "oltp", concurrency: 16, value: 99, t: 3, dirty: "false", log: "cells/x/stderr.txt" },
    ],
  );
});

test("the gzip file inflates to the same stream, byte for byte the same on every publish", () => {
  const gz = rowsToArrowGz(rows, columns);
  assert.deepEqual(gunzipSync(gz), Buffer.from(rowsToArrowIPC(rows, columns)));
  assert.deepEqual(
    rowsToArrowGz(rows, columns),
    gz,
    "equal input gives equal bytes (publish writes only what changed)",
  );
});

test("results-latest.arrow.gz's rows: every measured row of each study's newest run, nothing else", () => {
  const all = [
    { run_id: "20260101T000000Z", study: "oltp", source: "measured", value: 1 },
    { run_id: "20260102T000000Z", study: "oltp", source: "measured", value: 2 },
    { run_id: "20260102T000000Z", study: "oltp", source: "measured", value: 3 },
    // A run that measured two studies is the newest for one of them only.
    { run_id: "20260102T000000Z", study: "payments", source: "measured", value: 4 },
    { run_id: "20260103T000000Z", study: "payments", source: "measured", value: 5 },
    // Published figures never, even with a larger run id.
    { run_id: "zz-published", study: "oltp", source: "published", value: 6 },
  ];
  assert.deepEqual(
    latestRunRows(all).map((r) => r.value),
    [2, 3, 5],
  );
  assert.deepEqual(latestRunRows([]), []);
});
