// Explore page: DuckDB-WASM over results.csv, a CodeMirror SQL editor, result table + Plot chart,
// the query kept in the URL (?q=), CSV download. All files (wasm, workers) are served by this site.
import * as duckdb from "@duckdb/duckdb-wasm";
import mvpWasm from "@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url";
import mvpWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url";
import ehWasm from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url";
import ehWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url";
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { sql, PostgreSQL } from "@codemirror/lang-sql";
import * as Plot from "@observablehq/plot";
import { csvFormat } from "d3-dsv";
import type { Preset } from "../lib/presets.ts";

const TABLE_ROW_LIMIT = 1000;
const CHART_ROW_LIMIT = 5000;

const root = document.getElementById("explore")!;
const statusEl = document.getElementById("status")!;
const errorEl = document.getElementById("error")!;
const presetEl = document.getElementById("preset") as HTMLSelectElement;
const runBtn = document.getElementById("run") as HTMLButtonElement;
const downloadBtn = document.getElementById("download") as HTMLButtonElement;
const copyBtn = document.getElementById("copy-link") as HTMLButtonElement;
const resultEl = document.getElementById("result")!;
const summaryEl = document.getElementById("result-summary")!;
const chartEl = document.getElementById("result-chart")!;
const tableEl = document.getElementById("result-table")!;
const presets: Preset[] = JSON.parse(root.dataset.presets!);
const columnTypes: Record<string, string> = JSON.parse(root.dataset.columns!);

type Row = Record<string, unknown>;
interface Column { name: string; numeric: boolean }
let lastResult: { columns: Column[]; rows: Row[] } | undefined;
let conn: duckdb.AsyncDuckDBConnection | undefined;
let firstResultMarked = false;

function setState(state: "loading" | "ready" | "running" | "done" | "error") {
  root.dataset.state = state;
}

const editor = new EditorView({
  parent: document.getElementById("editor")!,
  doc: "",
  extensions: [
    keymap.of([{ key: "Mod-Enter", run: () => (void runQuery(currentSql()), true) }]),
    basicSetup,
    sql({ dialect: PostgreSQL, upperCaseKeywords: true, schema: { results: Object.keys(columnTypes) } }),
    EditorView.contentAttributes.of({ "aria-labelledby": "editor-label" }),
    EditorView.lineWrapping,
  ],
});
const currentSql = () => editor.state.doc.toString();
function setSql(text: string) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
}

function showError(message: string) {
  errorEl.hidden = false;
  errorEl.textContent = message;
  setState("error");
}

async function fetchCsv(): Promise<string> {
  const csvUrl = new URL(root.dataset.csv!, location.href).href;
  const response = await fetch(csvUrl);
  if (!response.ok) throw new Error(`could not load ${csvUrl}: HTTP ${response.status}`);
  return response.text();
}

async function openDatabase(): Promise<duckdb.AsyncDuckDBConnection> {
  // The CSV downloads while the wasm engine compiles.
  const csvText = fetchCsv();
  csvText.catch(() => undefined); // rejection is reported where it is awaited
  const bundle = await duckdb.selectBundle({
    mvp: { mainModule: new URL(mvpWasm, location.href).href, mainWorker: new URL(mvpWorker, location.href).href },
    eh: { mainModule: new URL(ehWasm, location.href).href, mainWorker: new URL(ehWorker, location.href).href },
  });
  const worker = new Worker(bundle.mainWorker!);
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await db.instantiate(bundle.mainModule, bundle.pthreadWorker);
  performance.mark("samebox:wasm-instantiated");
  await db.open({ query: { castBigIntToDouble: true, castDecimalToDouble: true } });
  const c = await db.connect();
  // Extensions would be downloaded from another origin: never try.
  await c.query("SET autoinstall_known_extensions = false");
  await c.query("SET autoload_known_extensions = false");
  await db.registerFileText("results.csv", await csvText);
  performance.mark("samebox:csv-fetched");
  const columns = Object.entries(columnTypes).map(([name, type]) => `'${name}': '${type}'`).join(", ");
  await c.query(`CREATE TABLE results AS SELECT * FROM read_csv('results.csv', header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', columns = {${columns}})`);
  performance.mark("samebox:table-loaded");
  const count = await c.query("SELECT count(*) AS n FROM results");
  statusEl.textContent = `Ready: ${Number(count.toArray()[0].n).toLocaleString("en-US")} records loaded into table results.`;
  return c;
}

function isNumericType(typeId: number): boolean {
  // Arrow type ids: Int = 2, Float = 3, Decimal = 7.
  return typeId === 2 || typeId === 3 || typeId === 7;
}

async function runQuery(text: string) {
  if (!conn || !text.trim()) return;
  errorEl.hidden = true;
  setState("running");
  runBtn.disabled = true;
  statusEl.textContent = "Running…";
  const url = new URL(location.href);
  url.searchParams.set("q", text);
  history.replaceState(null, "", url);
  const started = performance.now();
  try {
    const table = await conn.query(text);
    const columns: Column[] = table.schema.fields.map((f) => ({ name: f.name, numeric: isNumericType(f.type.typeId) }));
    const rows: Row[] = table.toArray().map((r) => {
      const o = r.toJSON() as Row;
      for (const k of Object.keys(o)) if (typeof o[k] === "bigint") o[k] = Number(o[k]);
      return o;
    });
    lastResult = { columns, rows };
    renderTable(columns, rows);
    renderChart(columns, rows);
    const ms = performance.now() - started;
    summaryEl.textContent = `${rows.length.toLocaleString("en-US")} row${rows.length === 1 ? "" : "s"} in ${ms.toFixed(0)} ms${rows.length > TABLE_ROW_LIMIT ? `; the table shows the first ${TABLE_ROW_LIMIT}, the CSV download has all` : ""}.`;
    resultEl.hidden = false;
    downloadBtn.disabled = false;
    statusEl.textContent = "Done.";
    setState("done");
    if (!firstResultMarked) {
      firstResultMarked = true;
      performance.mark("samebox:first-result");
    }
  } catch (e) {
    lastResult = undefined;
    downloadBtn.disabled = true;
    resultEl.hidden = true;
    statusEl.textContent = "The query failed.";
    showError(`Query failed: ${(e as Error).message}`);
  } finally {
    runBtn.disabled = false;
  }
}

function formatCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) ? v.toLocaleString("en-US") : v.toLocaleString("en-US", { maximumSignificantDigits: 6 });
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function renderTable(columns: Column[], rows: Row[]) {
  const table = document.createElement("table");
  const caption = table.createCaption();
  caption.textContent = "Query result";
  const head = table.createTHead().insertRow();
  for (const c of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = c.name;
    if (c.numeric) th.className = "num";
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const row of rows.slice(0, TABLE_ROW_LIMIT)) {
    const tr = body.insertRow();
    for (const c of columns) {
      const td = tr.insertCell();
      td.textContent = formatCell(row[c.name]);
      if (c.numeric) td.className = "num";
    }
  }
  tableEl.replaceChildren(table);
}

/** Picks a mark from the result's shape: a series over t → lines; category + number → bars; two numbers → dots; one number → histogram. */
function renderChart(columns: Column[], rows: Row[]) {
  const numeric = columns.filter((c) => c.numeric).map((c) => c.name);
  const categorical = columns.filter((c) => !c.numeric).map((c) => c.name);
  const data = rows.slice(0, CHART_ROW_LIMIT);
  let options: Plot.PlotOptions | undefined;
  let description = "";
  const xName = numeric.includes("t") ? "t" : undefined;
  if (data.length === 0) {
    chartEl.replaceChildren(Object.assign(document.createElement("p"), { textContent: "No chart: the result has no rows." }));
    return;
  }
  if (xName && numeric.length >= 2) {
    const y = numeric.find((n) => n !== xName)!;
    const stroke = categorical[0];
    description = `Line chart of ${y} over ${xName}${stroke ? `, one line per ${stroke}` : ""}.`;
    options = {
      y: { grid: true, label: `↑ ${y}` },
      color: stroke ? { legend: true } : undefined,
      marks: [Plot.lineY(data, { x: xName, y, stroke: stroke, tip: true }), Plot.ruleY([0])],
    };
  } else if (categorical.length >= 1 && numeric.length >= 1) {
    const [cat1, cat2] = categorical;
    const x = numeric.find((n) => !["repetitions", "records", "samples", "n"].includes(n)) ?? numeric[0];
    description = `Bar chart of ${x}${cat2 ? ` by ${cat2}, grouped by ${cat1}` : ` by ${cat1}`}.`;
    const categories = new Set(data.map((d) => String(d[cat1])));
    options = cat2
      ? {
          marginLeft: 110,
          marginRight: 150,
          height: Math.min(1600, 40 + data.length * 20 + categories.size * 10),
          x: { grid: true, label: `${x} →` },
          fy: { label: null },
          y: { label: null },
          color: { legend: true },
          marks: [Plot.barX(data, { fy: cat1, y: cat2, x, fill: cat2, tip: true }), Plot.ruleX([0])],
        }
      : {
          marginLeft: 160,
          height: Math.min(1600, 40 + categories.size * 22),
          x: { grid: true, label: `${x} →` },
          y: { label: null },
          marks: [Plot.barX(data, { y: cat1, x, fill: "#2f6db5", tip: true }), Plot.ruleX([0])],
        };
  } else if (numeric.length >= 2) {
    description = `Scatter plot of ${numeric[1]} against ${numeric[0]}.`;
    options = { grid: true, marks: [Plot.dot(data, { x: numeric[0], y: numeric[1], tip: true })] };
  } else if (numeric.length === 1) {
    description = `Histogram of ${numeric[0]}.`;
    options = { y: { grid: true }, marks: [Plot.rectY(data, Plot.binX({ y: "count" }, { x: numeric[0] })), Plot.ruleY([0])] };
  }
  if (!options) {
    chartEl.replaceChildren(Object.assign(document.createElement("p"), { textContent: "No chart: the result has no numeric column." }));
    return;
  }
  const node = Plot.plot({ width: Math.min(900, chartEl.clientWidth || 800), ...options, ariaLabel: "Chart of the query result", ariaDescription: description });
  const svg = node.tagName.toLowerCase() === "svg" ? node : node.querySelector(":scope > svg");
  if (svg) {
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = `Chart of the query result: ${description}`;
    svg.insertBefore(title, svg.firstChild);
    svg.setAttribute("role", "img");
  }
  const caption = document.createElement("figcaption");
  caption.textContent = `${description}${rows.length > CHART_ROW_LIMIT ? ` First ${CHART_ROW_LIMIT} rows.` : ""} The mark is chosen from the result's columns.`;
  chartEl.replaceChildren(node, caption);
}

function downloadCsv() {
  if (!lastResult) return;
  const text = csvFormat(lastResult.rows.map((r) => Object.fromEntries(lastResult!.columns.map((c) => [c.name, r[c.name] === null || r[c.name] === undefined ? "" : String(r[c.name])]))), lastResult.columns.map((c) => c.name));
  const blob = new Blob([text + "\n"], { type: "text/csv" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = "samebox-query.csv";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

presetEl.addEventListener("change", () => {
  const p = presets.find((x) => x.id === presetEl.value);
  if (p) {
    setSql(p.sql);
    void runQuery(p.sql);
  }
});
document.getElementById("query-form")!.addEventListener("submit", (e) => {
  e.preventDefault();
  void runQuery(currentSql());
});
downloadBtn.addEventListener("click", downloadCsv);
copyBtn.addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(location.href);
    statusEl.textContent = "Link copied.";
  } catch {
    statusEl.textContent = `Copy this link: ${location.href}`;
  }
});

// Start: the query from the URL if there is one, else the first preset.
const fromUrl = new URL(location.href).searchParams.get("q");
if (fromUrl) setSql(fromUrl);
else {
  presetEl.value = presets[0].id;
  setSql(presets[0].sql);
}
openDatabase()
  .then((c) => {
    conn = c;
    runBtn.disabled = false;
    copyBtn.disabled = false;
    setState("ready");
    return runQuery(currentSql());
  })
  .catch((e) => {
    statusEl.textContent = "DuckDB could not start.";
    showError(`Could not load the data: ${(e as Error).message}`);
  });
