// Explore's tunable relative score: the reader picks a metric, systems and workloads; the ranking and the URL follow.
import type { AsyncDuckDBConnection } from "@duckdb/duckdb-wasm";
import { inComparedRuns } from "../lib/presets.ts";
import { relativeScores, formulaText, MISSING_RATIO, type ScoreInput, type ScoreSelection } from "../lib/score.ts";
import { csvParam, setParams } from "./explore-url.ts";

const $ = (id: string) => document.getElementById(id)!;
let scoreRows: ScoreInput[] = [];
const scoreForm = $("score-form") as HTMLFormElement;
const scoreMetric = $("score-metric") as HTMLSelectElement;

/** Reads the medians the score ranks (compared runs, no published figures) and rebuilds the controls. */
export async function refreshScoreData(c: AsyncDuckDBConnection) {
  const { rows } = await (async () => {
    const t = await c.query(`SELECT workload, system, metric, any_value(unit) AS unit, median(value) AS value
      FROM results WHERE ${inComparedRuns} AND t IS NULL AND source <> 'published'
      GROUP BY workload, system, metric ORDER BY workload, system, metric`);
    return { rows: t.toArray().map((r) => r.toJSON() as unknown as ScoreInput) };
  })();
  scoreRows = rows.map((r) => ({ ...r, value: Number(r.value) }));
  buildScoreControls();
}

function checkboxes(containerId: string, name: string, values: string[], checked: Set<string>) {
  const box = $(containerId);
  box.replaceChildren(
    ...values.map((v) => {
      const label = document.createElement("label");
      const input = Object.assign(document.createElement("input"), {
        type: "checkbox",
        name,
        value: v,
        checked: checked.has(v),
      });
      label.append(input, ` ${v}`);
      return label;
    }),
  );
}

function selection(): ScoreSelection {
  const picked = (name: string) =>
    [...scoreForm.querySelectorAll<HTMLInputElement>(`input[name=${name}]:checked`)].map((i) => i.value);
  return { metric: scoreMetric.value, systems: picked("sys"), workloads: picked("wl") };
}

function buildScoreControls() {
  const metrics = [...new Set(scoreRows.map((r) => r.metric))].sort();
  const urlMetric = new URL(location.href).searchParams.get("metric");
  const metric =
    urlMetric && metrics.includes(urlMetric)
      ? urlMetric
      : metrics.includes(scoreMetric.value)
        ? scoreMetric.value
        : (["tps", "time_median", "throughput", "qps"].find((m) => metrics.includes(m)) ?? metrics[0]);
  scoreMetric.replaceChildren(
    ...metrics.map((m) =>
      Object.assign(document.createElement("option"), { value: m, textContent: m, selected: m === metric }),
    ),
  );
  fillScoreChoices(metric, true);
}

// Systems the reader unticked (or the URL left out): kept unticked across metrics, while every other system of a
// newly chosen metric is ticked (ticking only the previous metric's systems left a 1-row ranking).
const untickedSystems = new Set<string>();

/** Systems and workloads that have the metric; checked = the URL's choice (when given) plus any new '(yours)' system; else every system not unticked. */
function fillScoreChoices(metric: string, fromUrl: boolean) {
  const rows = scoreRows.filter((r) => r.metric === metric);
  const systems = [...new Set(rows.map((r) => r.system))].sort();
  const workloads = [...new Set(rows.map((r) => r.workload))].sort();
  const urlSys = fromUrl ? csvParam("sys") : undefined;
  const urlWl = fromUrl ? csvParam("wl") : undefined;
  if (urlSys) for (const s of systems) if (!urlSys.includes(s) && !s.endsWith(" (yours)")) untickedSystems.add(s);
  const kept = systems.filter((s) => !untickedSystems.has(s));
  const sysChecked = new Set(
    urlSys
      ? [...urlSys, ...systems.filter((s) => s.endsWith(" (yours)") && !urlSys.includes(s))]
      : kept.length
        ? kept
        : systems,
  );
  checkboxes("score-systems", "sys", systems, sysChecked);
  checkboxes("score-workloads", "wl", workloads, new Set(urlWl ?? workloads));
  renderScore(false);
}

function renderScore(updateUrl: boolean) {
  const sel = selection();
  const { scores, unit, workloads } = relativeScores(scoreRows, sel);
  if (updateUrl) setParams({ metric: sel.metric, sys: sel.systems.join(","), wl: sel.workloads.join(",") });
  $("score-formula").textContent = formulaText(sel.metric, unit);
  const out = $("score-result");
  if (!sel.systems.length || !workloads.length) {
    out.replaceChildren(
      Object.assign(document.createElement("p"), {
        textContent: "Pick at least one system and one workload that has this metric.",
      }),
    );
    out.dataset.scores = "";
    return;
  }
  const table = document.createElement("table");
  table.id = "score-table";
  table.createCaption().textContent = `Relative score on ${sel.metric} over ${workloads.length} workload${workloads.length === 1 ? "" : "s"} (1 = best on every selected workload)`;
  const head = table.createTHead().insertRow();
  for (const [h, num] of [
    ["rank", true],
    ["system", false],
    ["score", true],
    ["workloads measured", true],
    [`missing (counted as ${MISSING_RATIO}×)`, true],
  ] as const) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    if (num) th.className = "num";
    head.appendChild(th);
  }
  const body = table.createTBody();
  scores.forEach((s, i) => {
    const tr = body.insertRow();
    tr.dataset.system = s.system;
    tr.dataset.score = String(s.score);
    for (const [v, num] of [
      [String(i + 1), true],
      [s.system, false],
      [`${s.score.toFixed(3)}×`, true],
      [String(s.measured), true],
      [String(s.missing), true],
    ] as const) {
      const td = tr.insertCell();
      td.textContent = v;
      if (num) td.className = "num";
    }
  });
  const wrap = document.createElement("div");
  wrap.className = "table-wrap";
  wrap.tabIndex = 0; // a sideways-scrolling table must be reachable by keyboard (axe: scrollable-region-focusable)
  wrap.append(table);
  out.replaceChildren(wrap);
  out.dataset.scores = JSON.stringify(Object.fromEntries(scores.map((s) => [s.system, s.score])));
}
scoreForm.addEventListener("change", (e) => {
  const box = e.target as HTMLInputElement;
  if (box.name === "sys") {
    if (box.checked) untickedSystems.delete(box.value);
    else untickedSystems.add(box.value);
  }
  if (e.target === scoreMetric) {
    fillScoreChoices(scoreMetric.value, false);
    // A new metric has other workloads: select all of them.
    for (const i of scoreForm.querySelectorAll<HTMLInputElement>("input[name=wl]")) i.checked = true;
  }
  renderScore(true);
});
scoreForm.addEventListener("submit", (e) => e.preventDefault());
