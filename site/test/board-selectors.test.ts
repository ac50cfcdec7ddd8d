// The results board's machine, run and metric selectors ("selectors for study, machine, run, metric …,
// all in the URL"): /board/<study>/ links every run that measured the study (/board/<study>/<run>/) and
// each selectable metric of the featured run (/board/<study>/metric/<metric>/); each linked page shows
// that run (named) and that metric in every row, its medians equal a recomputation from records.json,
// the current choice is marked aria-current, and no page ships a script.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, type Preview } from "./harness.ts";
import { records, runs, studies, featuredRunOf, median } from "./expectations.ts";
// A record's (or claim side's) server and variant as the board's column names them: faucet-indexed, or the variant alone.
const sv = (x: { server?: string; variant?: string }) => [x.server, x.variant].filter(Boolean).join("-");

let preview: Preview;
let browser: Browser;
before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await preview?.stop();
});

/** A board page's only script is the inline workload filter: no src, under 2 KB (no bundle, no wasm). */
function onlyFilterScript(d: Document, where: string) {
  const scripts = [...d.querySelectorAll("script")];
  assert.ok(scripts.length <= 1, `${where}: ${scripts.length} scripts`);
  for (const sc of scripts) {
    assert.equal(sc.getAttribute("src"), null, `${where}: a script loaded from a file`);
    assert.ok(
      (sc.textContent ?? "").length < 2048,
      `${where}: the inline script is ${(sc.textContent ?? "").length} characters`,
    );
  }
}

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
      const rs = records.filter(
        (r) =>
          r.source === "measured" &&
          r.run_id === runId &&
          r.study === study &&
          r.workload === workload &&
          r.metric === m &&
          r.t === null &&
          r.system === system &&
          (v.length === 0 || sv(r) === v.join(" ")) &&
          r.concurrency === Number(td.getAttribute("data-concurrency")),
      );
      assert.ok(rs.length > 0, `${study} ${runId} ${workload} ${m} ${system}: no records`);
      const want = median(rs.map((r) => r.value));
      assert.ok(
        Math.abs(Number(td.getAttribute("data-median")) / want - 1) < 1e-9,
        `${study} ${runId} ${workload} ${m} ${system}: ${td.getAttribute("data-median")} vs ${want}`,
      );
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
    assert.equal(
      nav.querySelector('[aria-current="page"]')?.getAttribute("data-run"),
      featured.run_id,
      `${s.name}: the featured run is the current choice`,
    );
    const offered = [...nav.querySelectorAll("[data-run]")].map((e) => e.getAttribute("data-run")!);
    // Runs with a positive headline-able figure of the study outside the conformance check.
    const expected = runs
      .filter(
        (m) =>
          m.status !== "running" &&
          records.some(
            (r) =>
              r.run_id === m.run_id &&
              r.source === "measured" &&
              r.study === s.name &&
              r.t === null &&
              r.workload !== "conformance" &&
              r.value > 0,
          ),
      )
      .map((m) => m.run_id);
    assert.ok(offered.includes(featured.run_id));
    for (const id of offered) assert.ok(expected.includes(id), `${s.name}: run ${id} offered but has no figure`);
    for (const a of nav.querySelectorAll("a[data-run]")) {
      const id = a.getAttribute("data-run")!;
      const href = a.getAttribute("href")!;
      assert.ok(
        href.endsWith(`board/${s.name}/${id}/`),
        `${s.name}: run link ${href} does not carry the run in its URL`,
      );
      const p = await doc(`${preview.origin}${href}`);
      onlyFilterScript(p, href);
      assert.equal(
        p.querySelector("[data-board-run]")?.getAttribute("data-board-run"),
        id,
        `${href}: shows run ${p.querySelector("[data-board-run]")?.getAttribute("data-board-run")}`,
      );
      assert.equal(
        p.querySelector('nav[aria-label="Run"] [aria-current="page"]')?.getAttribute("data-run"),
        id,
        `${href}: current run marked`,
      );
      checkCells(p, s.name, id);
      pages++;
    }
  }
  assert.ok(
    pages > 0 ||
      measuredStudies.every(
        (s) =>
          runs.filter((m) =>
            records.some((r) => r.run_id === m.run_id && r.study === s.name && r.source === "measured"),
          ).length < 2,
      ),
    "no other run's board was reached",
  );
});

test("each study's board offers its metrics, each in its own URL, every row showing the chosen metric", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  let cells = 0;
  for (const s of measuredStudies) {
    const featured = featuredRunOf(s.name)!;
    const d = await doc(`board/${s.name}/`);
    const nav = d.querySelector('nav[aria-label="Metric"]');
    assert.ok(nav, `/board/${s.name}/ has no metric selector`);
    assert.equal(
      nav.querySelector('[aria-current="page"]')?.getAttribute("data-metric"),
      "",
      `${s.name}: the headline metric is the current choice`,
    );
    for (const a of nav.querySelectorAll("a[data-metric]")) {
      const metric = a.getAttribute("data-metric")!;
      const href = a.getAttribute("href")!;
      assert.ok(
        href.endsWith(`board/${s.name}/metric/${metric}/`),
        `${s.name}: metric link ${href} does not carry the metric in its URL`,
      );
      const p = await doc(`${preview.origin}${href}`);
      onlyFilterScript(p, href);
      assert.equal(
        p.querySelector('nav[aria-label="Metric"] [aria-current="page"]')?.getAttribute("data-metric"),
        metric,
        `${href}: current metric marked`,
      );
      assert.ok(p.querySelectorAll("tr[data-workload]").length > 0, `${href}: no row`);
      cells += checkCells(p, s.name, featured.run_id, metric);
    }
  }
  assert.ok(cells > 0, "no metric board cell checked");
});

test("each study's board offers every machine that ran it, each linking its newest run's board, whose run choices are that machine's", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  let links = 0;
  for (const s of measuredStudies) {
    const featured = featuredRunOf(s.name)!;
    // Runs with a positive figure of the study outside the conformance check, newest first, by machine label.
    const withFigures = runs
      .filter(
        (m) =>
          m.status !== "running" &&
          records.some(
            (r) =>
              r.run_id === m.run_id &&
              r.source === "measured" &&
              r.study === s.name &&
              r.t === null &&
              r.workload !== "conformance" &&
              r.value > 0,
          ),
      )
      .sort((a, b) => b.started_at.localeCompare(a.started_at));
    const machines = new Set(withFigures.map((m) => m.machine.label));
    const d = await doc(`board/${s.name}/`);
    const nav = d.querySelector('nav[aria-label="Machine"]');
    assert.ok(nav, `/board/${s.name}/ has no machine selector`);
    assert.equal(
      nav.querySelector('[aria-current="page"]')?.getAttribute("data-machine"),
      featured.machine.label,
      `${s.name}: the featured run's machine is the current choice`,
    );
    assert.deepEqual(
      new Set([...nav.querySelectorAll("[data-machine]")].map((e) => e.getAttribute("data-machine"))),
      machines,
      `${s.name}: the machines offered`,
    );
    for (const a of nav.querySelectorAll("a[data-machine]")) {
      const machine = a.getAttribute("data-machine")!;
      const newest = withFigures.find((m) => m.machine.label === machine)!;
      const href = a.getAttribute("href")!;
      const p = await doc(`${preview.origin}${href}`);
      assert.equal(
        p.querySelector("[data-board-run]")?.getAttribute("data-board-run"),
        newest.run_id,
        `${s.name} ${machine}: shows the machine's newest run`,
      );
      assert.equal(
        p.querySelector('nav[aria-label="Machine"] [aria-current="page"]')?.getAttribute("data-machine"),
        machine,
        `${href}: current machine marked`,
      );
      const offered = [...p.querySelectorAll('nav[aria-label="Run"] [data-run]')].map(
        (e) => e.getAttribute("data-run")!,
      );
      assert.ok(offered.length > 0, `${href}: no run offered`);
      for (const id of offered)
        assert.equal(
          runs.find((m) => m.run_id === id)?.machine.label,
          machine,
          `${href}: run ${id} is on another machine`,
        );
      checkCells(p, s.name, newest.run_id);
      links++;
    }
  }
  assert.ok(
    links > 0 ||
      measuredStudies.every(
        (s) =>
          new Set(
            runs
              .filter((m) =>
                records.some((r) => r.run_id === m.run_id && r.study === s.name && r.source === "measured"),
              )
              .map((m) => m.machine.label),
          ).size < 2,
      ),
    "no other machine's board was reached",
  );
});

test("the workload selector puts the chosen rows in the URL (?w=), and that URL restores the view; without script every row shows", async (t) => {
  const s = measuredStudies[0];
  if (!s) return t.skip("no measured run");
  const visible = (p: Page) =>
    p.$$eval("tr[data-key]", (trs) =>
      trs.filter((tr) => (tr as HTMLElement).offsetParent !== null).map((tr) => (tr as HTMLElement).dataset.key!),
    );
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${preview.root}board/${s.name}/`);
  const all = await visible(page);
  if (all.length < 2) return t.skip(`${s.name}'s board has fewer than 2 rows`);
  const chosen = all.length > 2 ? [all[0], all.at(-1)!] : all;
  await page.goto(`${preview.root}board/${s.name}/?${chosen.map((k) => `w=${encodeURIComponent(k)}`).join("&")}`);
  assert.deepEqual(await visible(page), chosen, "?w= did not choose the rows");
  assert.deepEqual(
    await page.$$eval("form.board-workloads input[name=w]:checked", (xs) =>
      xs.map((x) => (x as HTMLInputElement).value),
    ),
    chosen,
    "the boxes do not say what is shown",
  );
  // Untick the first: the row goes and the URL says so; the other selectors' links keep the choice.
  await page.click("form.board-workloads summary");
  await page.click(`form.board-workloads input[value="${chosen[0]}"]`);
  const left = chosen.slice(1);
  assert.deepEqual(await visible(page), left);
  const u = new URL(page.url());
  assert.deepEqual(u.searchParams.getAll("w"), left, `URL after unticking: ${u.search}`);
  for (const href of await page.$$eval("nav.board-nav a[data-run], nav.board-nav a[data-metric]", (as) =>
    as.map((a) => (a as HTMLAnchorElement).href),
  )) {
    assert.deepEqual(new URL(href).searchParams.getAll("w"), left, `${href} drops the workload choice`);
  }
  // The URL alone restores it.
  await page.goto(page.url());
  assert.deepEqual(await visible(page), left, "reloading the URL did not restore the rows");
  // Across studies: study/workload keys, and a study's group heading only with a row shown.
  const key = `${s.name}/${all[0]}`;
  await page.goto(`${preview.root}board/?w=${encodeURIComponent(key)}`);
  assert.deepEqual(await visible(page), [key]);
  assert.deepEqual(
    await page.$$eval("tr.board-study", (trs) =>
      trs.filter((tr) => (tr as HTMLElement).offsetParent !== null).map((tr) => (tr as HTMLElement).dataset.study),
    ),
    [s.name],
  );
  await page.close();
  // Without script: the selector is hidden and every row shows, whatever the URL says.
  const plain = await browser.newPage({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
  await plain.goto(`${preview.root}board/${s.name}/?w=${encodeURIComponent(all[0])}`);
  assert.deepEqual(await visible(plain), all);
  assert.equal(await plain.isVisible("form.board-workloads"), false);
  await plain.close();
});
