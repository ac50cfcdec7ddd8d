// Explore page: DuckDB-WASM over the results (results.arrow.gz, else results.csv), a CodeMirror SQL editor, result table + Plot chart,
// the query kept in the URL (?q=), CSV download, the reader's own run (dropped file, checked here
// against the record schema, never uploaded), and the tunable relative score (state in the URL).
// Speed: the head's inline script starts DuckDB's worker, the wasm's streaming compile (gzip'd,
// compiled as it downloads, on the page's thread while the worker loads its script) and the data's
// download before this script runs (wasm-worker.ts); the data is an Arrow IPC stream (no CSV parse),
// first only the latest run of each study (results-latest.arrow.gz, the rows the default preset reads:
// its live result comes from them), then every record (results.arrow.gz, swapped in whole); Plot loads
// in parallel, the editor after the first result; the HTML already holds a build-time rendering of the
// default preset, replaced by the live result. Each step is a "samebox:<step>" performance mark.
import * as duckdb from "@duckdb/duckdb-wasm";
import mvpWasm from "@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url";
import mvpWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url";
import ehWasm from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url";
import ehWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url";
import { csvFormat } from "d3-dsv";
import { downloadCsv, query, readCsv, resultTable, TABLE_ROW_LIMIT } from "./explore-result.ts";
import type { Preset } from "../lib/presets.ts";
import { refreshScoreData } from "./explore-score.ts";
import { setParams } from "./explore-url.ts";
import { inflated } from "./fetch-gz.ts";
import type { Column, Row } from "./explore-chart.ts";

performance.mark("samebox:script-start");
const $ = (id: string) => document.getElementById(id)!;
const root = $("explore");
const presets: Preset[] = JSON.parse(root.dataset.presets!);
// results.csv's columns (the record's, then publish's provenance columns), and the record's alone (a dropped run file).
const columnTypes: Record<string, string> = JSON.parse(root.dataset.columns!);
const recordTypes: Record<string, string> = JSON.parse(root.dataset.recordColumns!);
const comparedRunsSql = root.dataset.comparedRuns!;
const systemColors: Record<string, string> = JSON.parse(root.dataset.systemColors ?? "{}");

// A query in the URL (?q=) runs first; else the default preset, which reads only the latest run of each study.
const fromUrl = new URL(location.href).searchParams.get("q");
// The first result is shown (or, with a query in the URL, will only be shown from the whole table).
let firstShown: () => void = () => undefined;
const firstShownPromise = new Promise<void>((resolve) => {
  firstShown = resolve;
});

// ---- start the slow parts at once: wasm (+ worker, started by the head), data, the chart module; the editor after the first result ----
const database = openDatabase();
database.catch(() => undefined); // reported where it is awaited
const chartModule = import("./explore-chart.ts");
const editorModule = Promise.race([firstShownPromise, database.catch(() => undefined)]).then(
  () => import("./explore-editor.ts"),
);

const statusEl = $("status");
const errorEl = $("error");
const presetEl = $("preset") as HTMLSelectElement;
const runBtn = $("run") as HTMLButtonElement;
const downloadBtn = $("download") as HTMLButtonElement;
const copyBtn = $("copy-link") as HTMLButtonElement;
const resultEl = $("result");
const summaryEl = $("result-summary");
const chartEl = $("result-chart");
const tableEl = $("result-table");

let lastResult: { columns: Column[]; rows: Row[] } | undefined;
let conn: duckdb.AsyncDuckDBConnection | undefined;
let firstResultMarked = false;

function setState(state: "loading" | "ready" | "running" | "done" | "error") {
  root.dataset.state = state;
}

// The editor: plain text until CodeMirror has loaded.
let sqlText = "";
let editor: { get(): string; set(text: string): void } | undefined;
const editorReady = editorModule.then(({ createEditor }) => {
  $("editor").replaceChildren();
  editor = createEditor($("editor"), sqlText, Object.keys(columnTypes), () => void runQuery(currentSql()));
});
const currentSql = () => (editor ? editor.get() : sqlText);
function setSql(text: string) {
  sqlText = text;
  editor?.set(text);
}

function showError(message: string) {
  errorEl.hidden = false;
  errorEl.textContent = message;
  setState("error");
}

async function openDatabase(): Promise<duckdb.AsyncDuckDBConnection> {
  // The worker the head's inline script started (wasm-worker.ts), its wasm already compiling; else (that
  // script did not run) DuckDB's own worker, which fetches and compiles the plain .wasm.
  const started = (
    globalThis as {
      __sameboxDuckdb?: {
        worker: Worker;
        mainModule: string;
        latest: Promise<Response> | null;
        all: Promise<Response> | null;
      };
    }
  ).__sameboxDuckdb;
  // The data downloads while the wasm does (requested by the head's script): without a query in the URL,
  // first the latest run of each study (results-latest.arrow.gz: the rows the default preset reads), the
  // whole file once that preset's result is on screen; with one, the whole file at once.
  const latestHref = new URL(root.dataset.arrowLatest!, location.href).href;
  const latest = fromUrl
    ? undefined
    : fetchArrow(started?.latest ?? fetch(latestHref), latestHref, "latest-downloaded");
  latest?.catch(() => undefined);
  const arrowHref = new URL(root.dataset.arrow!, location.href).href;
  let arrow = latest ? undefined : fetchArrow(started?.all ?? fetch(arrowHref), arrowHref, "data-downloaded");
  arrow?.catch(() => undefined);
  let worker: Worker;
  let mainModule: string;
  if (started) ({ worker, mainModule } = started);
  else {
    const bundle = await duckdb.selectBundle({
      mvp: { mainModule: new URL(mvpWasm, location.href).href, mainWorker: new URL(mvpWorker, location.href).href },
      eh: { mainModule: new URL(ehWasm, location.href).href, mainWorker: new URL(ehWorker, location.href).href },
    });
    worker = new Worker(bundle.mainWorker!);
    mainModule = bundle.mainModule;
  }
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await db.instantiate(mainModule);
  performance.mark("samebox:wasm-instantiated");
  await db.open({ query: { castBigIntToDouble: true, castDecimalToDouble: true } });
  performance.mark("samebox:db-opened");
  const c = await db.connect();
  // Extensions would be downloaded from another origin: never try.
  await c.query("SET autoinstall_known_extensions = false; SET autoload_known_extensions = false");
  dbHandle = db;
  if (latest) {
    // The default preset's live result from the latest runs' rows: the same rows it reads from the whole
    // table (compared_runs is the latest measured run of each study either way).
    try {
      await c.insertArrowFromIPCStream(await latest, { name: "results", create: true });
      await c.query(comparedRunsSql);
      performance.mark("samebox:latest-loaded");
      await runQuery(presets[0].sql, c, true);
    } catch (e) {
      console.warn(
        `samebox: results-latest.arrow.gz could not be used (${(e as Error).message}); loading every record first`,
      );
      await c.query("DROP TABLE IF EXISTS results");
    }
    firstShown();
  }
  arrow ??= fetchArrow(fetch(arrowHref), arrowHref, "data-downloaded");
  root.dataset.source = await loadResults(db, c, arrow);
  await c.query(comparedRunsSql);
  performance.mark("samebox:table-loaded");
  return c;
}

/** A .arrow.gz of this site (its response, requested from HREF), inflated. */
async function fetchArrow(response: Promise<Response>, href: string, mark: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(await new Response(inflated(await response, href)).arrayBuffer());
  performance.mark(`samebox:${mark}`);
  return bytes;
}

// The table `results` with every record, with results.csv's columns and types in its order: from the Arrow
// IPC stream (no CSV parse: DuckDB reads the columns as they are), else from results.csv. Built as
// results_all and then renamed, replacing the latest runs' rows the first result was read from. Says
// which file it used.
async function loadResults(
  db: duckdb.AsyncDuckDB,
  c: duckdb.AsyncDuckDBConnection,
  arrow: Promise<Uint8Array>,
): Promise<"arrow" | "csv"> {
  let source: "arrow" | "csv" = "arrow";
  try {
    await c.insertArrowFromIPCStream(await arrow, { name: "results_all", create: true });
  } catch (e) {
    console.warn(`samebox: results.arrow.gz could not be used (${(e as Error).message}); reading results.csv`);
    await c.query("DROP TABLE IF EXISTS results_all");
    const csvUrl = new URL(root.dataset.csv!, location.href).href;
    const r = await fetch(csvUrl);
    if (!r.ok) throw new Error(`could not load ${csvUrl}: HTTP ${r.status}`);
    await db.registerFileText("results.csv", await r.text());
    performance.mark("samebox:data-downloaded");
    await c.query(`CREATE TABLE results_all AS SELECT * FROM ${readCsv("results.csv", columnTypes)}`);
    source = "csv";
  }
  await c.query("DROP TABLE IF EXISTS results; ALTER TABLE results_all RENAME TO results");
  performance.mark("samebox:data-inserted");
  return source;
}
let dbHandle: duckdb.AsyncDuckDB | undefined;

// Runs TEXT and shows its result. `latestOnly`: the default preset over the latest runs' rows, before the
// whole table is there (the page stays "loading", Run stays disabled).
async function runQuery(text: string, c = conn, latestOnly = false) {
  if (!c || !text.trim()) return;
  errorEl.hidden = true;
  if (!latestOnly) setState("running");
  runBtn.disabled = true;
  statusEl.textContent = "Running…";
  setParams({ q: text });
  const started = performance.now();
  try {
    const { columns, rows } = await query(text, c);
    lastResult = { columns, rows };
    tableEl.replaceChildren(resultTable(columns, rows));
    const ms = performance.now() - started;
    summaryEl.textContent = `${rows.length.toLocaleString("en-US")} row${rows.length === 1 ? "" : "s"} in ${ms.toFixed(0)} ms${rows.length > TABLE_ROW_LIMIT ? `; the table shows the first ${TABLE_ROW_LIMIT}, the CSV download has all` : ""}.`;
    resultEl.hidden = false;
    delete resultEl.dataset.prerendered;
    $("prerendered-label").hidden = true;
    (await chartModule).renderChart(chartEl, columns, rows, systemColors);
    downloadBtn.disabled = false;
    statusEl.textContent = latestOnly
      ? "Live result from the latest run of each study; loading every other record (Run is enabled once they are in)…"
      : `Done. ${loadedSummary}`;
    if (!firstResultMarked) {
      firstResultMarked = true;
      performance.mark("samebox:first-result");
    }
    if (latestOnly) return;
    await editorReady;
    setState("done");
  } catch (e) {
    if (latestOnly) throw e;
    lastResult = undefined;
    downloadBtn.disabled = true;
    resultEl.hidden = true;
    statusEl.textContent = "The query failed.";
    showError(`Query failed: ${(e as Error).message}`);
  } finally {
    if (!latestOnly) runBtn.disabled = false;
  }
}
let loadedSummary = "";

// ---- the reader's own run --------------------------------------------------------------------
const yoursInput = $("yours-file") as HTMLInputElement;
const yoursDrop = $("yours-drop");
const yoursStatus = $("yours-status");
const yoursError = $("yours-error");
let yoursCount = 0;

async function loadYours(file: File) {
  yoursError.hidden = true;
  yoursStatus.textContent = `Checking ${file.name}…`;
  root.dataset.yours = "checking";
  try {
    const { parseRecordFile, MAX_FILE_BYTES, RecordFileError } = await import("../lib/record-check.ts");
    if (file.size > MAX_FILE_BYTES)
      throw new RecordFileError(
        `${file.name}: ${file.size} bytes, more than the ${MAX_FILE_BYTES} Explore reads; drop one run's records file`,
      );
    let rows: ReturnType<typeof parseRecordFile>;
    try {
      rows = parseRecordFile(file.name, await file.text());
    } catch (e) {
      if (e instanceof RecordFileError) throw e;
      throw new RecordFileError(
        `${file.name}: could not be read (${(e as Error).message}); drop records.csv or records.jsonl from a data/runs/<run-id>/ folder`,
      );
    }
    const c = await database;
    const name = `yours-${++yoursCount}.csv`;
    const marked = rows.map((r) => ({ ...r, source: "yours", system: `${r.system} (yours)`, t: r.t ?? "" }));
    await dbHandle!.registerFileText(
      name,
      csvFormat(marked as unknown as Record<string, string>[], Object.keys(recordTypes)),
    );
    // BY NAME: the provenance columns results.csv carries stay empty for the reader's rows.
    await c.query(`INSERT INTO results BY NAME SELECT * FROM ${readCsv(name, recordTypes)}`);
    await c.query(
      `INSERT INTO compared_runs SELECT DISTINCT run_id, study, source FROM results WHERE source = 'yours' EXCEPT SELECT run_id, study, source FROM compared_runs`,
    );
    const runsIn = [...new Set(rows.map((r) => r.run_id))].join(", ");
    yoursStatus.textContent = `Loaded ${rows.length.toLocaleString("en-US")} records of run ${runsIn} from ${file.name} (checked here; nothing was uploaded). They are rows with source 'yours' and system '<system> (yours)', and every preset shows them beside ours.`;
    loadedSummary = `Your run ${runsIn} is loaded beside ours.`;
    root.dataset.yours = "loaded";
    await refreshScoreData(await database);
    if (conn) await runQuery(currentSql());
  } catch (e) {
    yoursError.hidden = false;
    yoursError.textContent = (e as Error).message;
    yoursStatus.textContent = "Your file was not loaded.";
    root.dataset.yours = "error";
  }
}
yoursInput.addEventListener("change", () => {
  const f = yoursInput.files?.[0];
  if (f) void loadYours(f);
  yoursInput.value = "";
});
yoursDrop.addEventListener("dragover", (e) => {
  e.preventDefault();
  yoursDrop.classList.add("over");
});
yoursDrop.addEventListener("dragleave", () => yoursDrop.classList.remove("over"));
yoursDrop.addEventListener("drop", (e) => {
  e.preventDefault();
  yoursDrop.classList.remove("over");
  const f = e.dataTransfer?.files?.[0];
  if (f) void loadYours(f);
});

// ---- wiring -------------------------------------------------------------------------------------
presetEl.addEventListener("change", () => {
  const p = presets.find((x) => x.id === presetEl.value);
  if (p) {
    setSql(p.sql);
    void runQuery(p.sql);
  }
});
$("query-form").addEventListener("submit", (e) => {
  e.preventDefault();
  void runQuery(currentSql());
});
downloadBtn.addEventListener("click", () => lastResult && downloadCsv(lastResult));
copyBtn.addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(location.href);
    statusEl.textContent = "Link copied.";
  } catch {
    statusEl.textContent = `Copy this link: ${location.href}`;
  }
});

// Start: the query from the URL if there is one, else the first preset (whose build-time rendering is on the page).
if (fromUrl) {
  setSql(fromUrl);
  // The build-time rendering is of the default preset, not of this query.
  resultEl.hidden = true;
} else {
  presetEl.value = presets[0].id;
  setSql(presets[0].sql);
}
database
  .then(async (c) => {
    conn = c;
    const count = await c.query("SELECT count(*) AS n FROM results");
    loadedSummary = `${Number(count.toArray()[0].n).toLocaleString("en-US")} records in table results.`;
    runBtn.disabled = false;
    copyBtn.disabled = false;
    setState("ready");
    await runQuery(currentSql());
    await refreshScoreData(await database);
    $("score").dataset.state = "ready";
  })
  .catch((e) => {
    statusEl.textContent = "DuckDB could not start.";
    showError(`Could not load the data: ${(e as Error).message}`);
  });
