// The results board's run and metric selectors (issue 21: "selectors for study, machine, run, metric …,
// all in the URL"): /board/<study>/ links every run that measured the study (/board/<study>/<run>/) and
// each selectable metric of the featured run (/board/<study>/metric/<metric>/); each linked page shows
// that run (named) and that metric in every row, its medians equal a recomputation from records.json,
// the current choice is marked aria-current, and no page ships a script.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { startPreview, type Preview } from "./harness.ts";
import { records, runs, studies, featuredRunOf, median } from "./expectations.ts";

let preview: Preview;
before(async () => {
  preview = await startPreview();
});
after(async () => {
  await preview?.stop();
});

const measuredStudies = studies.filter((s) => featuredRunOf(s.name));

async function doc(p: string): Promise<Document> {
  const r = await fetch(p.startsWith("http") ? p : `${preview.root}${p}`);
  assert.equal(r.status, 200, `${p} answered ${r.status}`);
  return parseHTML(await r.text()).document as unknown as Document;
}

/** Every data-median cell of the page equals the median of its records in RUN (one value per repetition). */
function checkCells(d: Document, study: string, runId: string, metric?: string): number {
  let n = 0;
  for (const tr of d.querySelectorAll("tr[data-workload]")) {
    const workload = tr.getAttribute("data-workload")!;
    const m = tr.getAttribute("data-metric")!;
    if (metric) assert.equal(m, metric, `${study} ${runId} ${workload}: row metric ${m}, selected ${metric}`);
    assert.notEqual(workload, "conformance", "the conformance check is not a board row");
    for (const td of tr.querySelectorAll("td[data-median]")) {
      const [system, ...v] = td.getAttribute("data-column")!.split(" ");
      const rs = records.filter((r) => r.source === "measured" && r.run_id === runId && r.study === study && r.workload === workload && r.metric === m && r.t === null
        && r.system === system && (v.length === 0 || r.variant === v.join(" ")) && r.concurrency === Number(td.getAttribute("data-concurrency")));
      assert.ok(rs.length > 0, `${study} ${runId} ${workload} ${m} ${system}: no records`);
      const want = median(rs.map((r) => r.value));
      assert.ok(Math.abs(Number(td.getAttribute("data-median")) / want - 1) < 1e-9, `${study} ${runId} ${workload} ${m} ${system}: ${td.getAttribute("data-median")} vs ${want}`);
      n++;
    }
  }
  return n;
}

test("each study's board offers every run that measured the study, each in its own URL, showing that run's figures", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  let pages = 0;
  for (const s of measuredStudies) {
    const featured = featuredRunOf(s.name)!;
    const d = await doc(`board/${s.name}/`);
    const nav = d.querySelector('nav[aria-label="Run"]');
    assert.ok(nav, `/board/${s.name}/ has no run selector`);
    assert.equal(nav.querySelector('[aria-current="page"]')?.getAttribute("data-run"), featured.run_id, `${s.name}: the featured run is the current choice`);
    const offered = [...nav.querySelectorAll("[data-run]")].map((e) => e.getAttribute("data-run")!);
    // Runs with a positive headline-able figure of the study outside the conformance check.
    const expected = runs.filter((m) => m.status !== "running" && records.some((r) => r.run_id === m.run_id && r.source === "measured" && r.study === s.name && r.t === null && r.workload !== "conformance" && r.value > 0)).map((m) => m.run_id);
    assert.ok(offered.includes(featured.run_id));
    for (const id of offered) assert.ok(expected.includes(id), `${s.name}: run ${id} offered but has no figure`);
    for (const a of nav.querySelectorAll("a[data-run]")) {
      const id = a.getAttribute("data-run")!;
      const href = a.getAttribute("href")!;
      assert.ok(href.endsWith(`board/${s.name}/${id}/`), `${s.name}: run link ${href} does not carry the run in its URL`);
      const p = await doc(`${preview.origin}${href}`);
      assert.equal(p.querySelectorAll("script").length, 0, `${href} ships a script`);
      assert.equal(p.querySelector("[data-board-run]")?.getAttribute("data-board-run"), id, `${href}: shows run ${p.querySelector("[data-board-run]")?.getAttribute("data-board-run")}`);
      assert.equal(p.querySelector('nav[aria-label="Run"] [aria-current="page"]')?.getAttribute("data-run"), id, `${href}: current run marked`);
      checkCells(p, s.name, id);
      pages++;
    }
  }
  assert.ok(pages > 0 || measuredStudies.every((s) => runs.filter((m) => records.some((r) => r.run_id === m.run_id && r.study === s.name && r.source === "measured")).length < 2), "no other run's board was reached");
});

test("each study's board offers its metrics, each in its own URL, every row showing the chosen metric", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  let cells = 0;
  for (const s of measuredStudies) {
    const featured = featuredRunOf(s.name)!;
    const d = await doc(`board/${s.name}/`);
    const nav = d.querySelector('nav[aria-label="Metric"]');
    assert.ok(nav, `/board/${s.name}/ has no metric selector`);
    assert.equal(nav.querySelector('[aria-current="page"]')?.getAttribute("data-metric"), "", `${s.name}: the headline metric is the current choice`);
    for (const a of nav.querySelectorAll("a[data-metric]")) {
      const metric = a.getAttribute("data-metric")!;
      const href = a.getAttribute("href")!;
      assert.ok(href.endsWith(`board/${s.name}/metric/${metric}/`), `${s.name}: metric link ${href} does not carry the metric in its URL`);
      const p = await doc(`${preview.origin}${href}`);
      assert.equal(p.querySelectorAll("script").length, 0, `${href} ships a script`);
      assert.equal(p.querySelector('nav[aria-label="Metric"] [aria-current="page"]')?.getAttribute("data-metric"), metric, `${href}: current metric marked`);
      assert.ok(p.querySelectorAll("tr[data-workload]").length > 0, `${href}: no row`);
      cells += checkCells(p, s.name, featured.run_id, metric);
    }
  }
  assert.ok(cells > 0, "no metric board cell checked");
});
