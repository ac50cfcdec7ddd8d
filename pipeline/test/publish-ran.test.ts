// publish's what-ran collection (collectRan): the exact files each cell folder kept, one copy per
// distinct text, the head a page shows cut at a line end (or, for one long line, never inside a UTF-8
// character), and every repetition that ran a text named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./helpers.ts";
import { collectRan, RAN_HEAD_CAP, type ManifestLike } from "../publish/publish.ts";

const cell = (workload: string, system: string, rep: number) => ({
  id: `analytical.${workload}.${system}.c1.hot.r${rep}`,
  study: "analytical",
  workload,
  system,
  concurrency: 1,
  variant: "hot",
  repetition: rep,
  status: "ok" as const,
  log: "",
});

test("collectRan keeps each distinct text once, names every repetition that ran it, and cuts long texts safely", () => {
  const runs = tempDir();
  const run = "20260101T000000Z-ran-test";
  const cells = [
    cell("scan", "postgresql", 1),
    cell("scan", "postgresql", 2),
    cell("scan", "duckdb", 1),
    cell("big", "postgresql", 1),
    cell("wide", "duckdb", 1),
    cell("none", "duckdb", 1),
  ];
  const put = (c: { id: string }, name: string, content: string | Buffer) => {
    const f = path.join(runs, run, "cells", c.id, name);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, content);
  };
  const pgBatch = "SELECT ROUND(score::numeric, 2) FROM t;\n";
  put(cells[0], "sql/batch.sql", pgBatch);
  put(cells[1], "sql/batch.sql", pgBatch); // the same text in a second repetition
  put(cells[2], "sql/batch.sql", "SELECT ROUND(score, 2) FROM t;\n");
  put(cells[0], "command.txt", '# timed by hyperfine\npsql -X -f "$CELL_DIR/sql/batch.sql"\n');
  put(cells[0], "sql/setup.sql", "");
  const lines = Array.from({ length: 800 }, (_, i) => `INSERT INTO t VALUES (${i}, 'é${i}');`).join("\n") + "\n";
  put(cells[3], "sql/batch.sql", lines);
  // One long line with a two-byte character straddling the cap.
  const wide = Buffer.concat([Buffer.from("x".repeat(RAN_HEAD_CAP - 1)), Buffer.from("é".repeat(100))]);
  put(cells[4], "args.json", wide);
  put(cells[4], "stdout.txt", "not a what-ran file");
  const manifest: ManifestLike = { run_id: run, cells };
  const { ran, files } = collectRan([manifest], runs);

  const scanPg = ran.cells.find((c) => c.workload === "scan" && c.system === "postgresql")!;
  const batch = scanPg.files.find((f) => f.name === "sql/batch.sql")!;
  assert.deepEqual(batch.repetitions, [1, 2], "both repetitions ran the same batch");
  assert.equal(ran.texts[batch.text].head, pgBatch);
  assert.equal(ran.texts[batch.text].cut, false);
  assert.equal(files.get(ran.texts[batch.text].file)?.toString(), pgBatch);
  const scanDuck = ran.cells.find((c) => c.workload === "scan" && c.system === "duckdb")!;
  assert.notEqual(scanDuck.files[0].text, batch.text, "a different text is a different entry");
  assert.equal(
    scanPg.files.find((f) => f.name === "sql/setup.sql") &&
      ran.texts[scanPg.files.find((f) => f.name === "sql/setup.sql")!.text].bytes,
    0,
    "an empty file is kept (it ran nothing)",
  );
  // Distinct texts: pg batch, duck batch, command, empty setup, big batch, wide args = 6, each published once.
  assert.equal(Object.keys(ran.texts).length, 6);
  assert.equal(files.size, 6);
  assert.ok(
    [...files.keys()].every((f) => /^data\/ran\/[0-9a-f]{64}\.(sql|txt|json)$/.test(f)),
    [...files.keys()].join(" "),
  );

  const big = ran.texts[ran.cells.find((c) => c.workload === "big")!.files[0].text];
  assert.equal(big.cut, true);
  assert.equal(big.bytes, Buffer.byteLength(lines));
  assert.ok(
    big.head.endsWith("\n") && Buffer.byteLength(big.head) <= RAN_HEAD_CAP,
    "cut after a whole line, within the cap",
  );
  assert.ok(lines.startsWith(big.head), "the head is the file's beginning");
  assert.equal(files.get(big.file)?.toString(), lines, "the whole file is published as it was");

  const w = ran.texts[ran.cells.find((c) => c.workload === "wide")!.files[0].text];
  assert.equal(w.cut, true);
  assert.ok(!w.head.includes("\uFFFD"), "no character is split");
  assert.ok(
    wide.subarray(0, Buffer.byteLength(w.head)).equals(Buffer.from(w.head)),
    "the head is the file's first bytes",
  );
  assert.ok(!ran.cells.some((c) => c.workload === "none"), "a cell that kept no what-ran file contributes nothing");
  assert.ok(!ran.cells.some((c) => c.files.some((f) => (f.name as string) === "stdout.txt")));
});
