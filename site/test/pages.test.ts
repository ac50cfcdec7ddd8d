// Every page of the built site in a real browser: renders without console errors, links resolve under
// the configured base, charts carry accessible titles, analysis pages load no script or wasm, and
// nothing is requested from another origin.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, recordedContext, base, type Preview, type Recorder } from "./harness.ts";
import { existsSync } from "node:fs";
import path from "node:path";
import { parseHTML } from "linkedom";
import { records, runs, leaders, featuredRunOf, newerUnmeasuredOf, studies, siteDir } from "./expectations.ts";

let preview: Preview;
let browser: Browser;
let rec: Recorder;
const visited = new Map<string, { title: string; scripts: string[]; text: string }>();

// Pages the crawl loads at once: page loads wait on the preview server and the renderer in turn, so a few in
// flight keep both cores busy; more only queue behind each other on 2 cores.
const CRAWL_PAGES = 3;

before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  const ctx = await recordedContext(browser, preview.origin);
  rec = ctx.rec;
  // Crawl of every internal page reachable from the home page (bounded), CRAWL_PAGES tabs taking the next
  // URL from one queue; each page's text, scripts and charts are read on the one visit.
  const queue = [preview.root];
  const seen = new Set(queue);
  let busy = 0;
  const visit = async (page: Page, u: string) => {
    const scriptsSeen: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (/\.(m?js|wasm)(\.gz)?(\?|$)/.test(r.url())) scriptsSeen.push(r.url());
    };
    page.on("request", onRequest);
    const resp = await page.goto(u, { waitUntil: "load", timeout: 60_000 });
    assert.equal(resp?.status(), 200, `${u} answered ${resp?.status()}`);
    if (u.includes("/explore/"))
      await page.waitForFunction(
        () => ["done", "error"].includes(document.getElementById("explore")?.dataset.state ?? ""),
        null,
        { timeout: 120_000 },
      );
    page.off("request", onRequest);
    visited.set(u, { title: await page.title(), scripts: scriptsSeen, text: await page.locator("main").innerText() });
    if (!u.includes("/explore/")) chartsByPage.set(u, await chartsOf(page));
    const links = await page.$$eval("a[href]", (as) => as.map((a) => (a as HTMLAnchorElement).href));
    const dataLinks: string[] = [];
    for (const l of links) {
      const clean = l.split("#")[0];
      if (!clean.startsWith(preview.root) || seen.has(clean)) continue;
      seen.add(clean);
      if (/\/data\//.test(clean)) dataLinks.push(clean);
      else queue.push(clean);
    }
    for (const d of dataLinks) {
      const r = await fetch(d, { method: "HEAD" });
      assert.equal(r.status, 200, `data link ${d} answered ${r.status}`);
    }
  };
  const tab = async () => {
    const page = await ctx.context.newPage();
    ctx.watch(page);
    // A tab stops when the queue is empty and no other tab is still visiting (which could add links).
    for (;;) {
      const u = visited.size + busy < 300 ? queue.shift() : undefined;
      if (u === undefined) {
        if (busy === 0) break;
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      busy++;
      try {
        await visit(page, u);
      } finally {
        busy--;
      }
    }
  };
  await Promise.all(Array.from({ length: CRAWL_PAGES }, tab));
});

after(async () => {
  await browser?.close();
  await preview?.stop();
});

async function chartsOf(page: Page) {
  return page.$$eval("figure.chart", (figs) =>
    figs.map((f) => {
      const svg = f.querySelector(":scope > svg, :scope > figure > svg, :scope > div > svg") as SVGElement | null;
      const titleId = svg?.getAttribute("aria-labelledby");
      const title = titleId ? document.getElementById(titleId) : null;
      return {
        id: f.id,
        hasSvg: !!svg,
        role: svg?.getAttribute("role"),
        title: title?.tagName.toLowerCase() === "title" && title.parentElement === svg ? (title.textContent ?? "") : "",
        desc: svg?.querySelector(":scope > desc")?.textContent ?? "",
        caption: f.querySelector("figcaption")?.textContent ?? "",
        marks: svg ? svg.querySelectorAll("rect, circle, path, line").length : 0,
      };
    }),
  );
}
const chartsByPage = new Map<
  string,
  Array<{
    id: string;
    hasSvg: boolean;
    role: string | null | undefined;
    title: string;
    desc: string;
    caption: string;
    marks: number;
  }>
>();

test("the crawl reached every kind of page under the base path", () => {
  const paths = [...visited.keys()].map((u) => new URL(u).pathname);
  for (const p of ["", "studies/", "runs/", "methodology/", "explore/"])
    assert.ok(paths.includes(`${base}${p}`), `page ${base}${p} not reached; reached ${paths.join(", ")}`);
  for (const m of runs) assert.ok(paths.includes(`${base}runs/${m.run_id}/`), `run page for ${m.run_id} not linked`);
  const studies = new Set(records.map((r) => r.study));
  for (const s of studies) assert.ok(paths.includes(`${base}studies/${s}/`), `study page for ${s} not linked`);
});

test("no page logs a console error or fails to load a resource", () => {
  assert.deepEqual(rec.consoleErrors, []);
  assert.deepEqual(rec.failed, []);
});

test("nothing is requested from another origin", () => {
  assert.ok(rec.requests.length > visited.size, "the recorder saw too few requests to be trusted");
  assert.deepEqual(rec.foreign, []);
});

test("analysis pages load no JavaScript or wasm; Explore does", () => {
  for (const [u, v] of visited) {
    if (u.includes("/explore/")) {
      assert.ok(
        v.scripts.some((s) => /\.wasm(\.gz)?$/.test(s)),
        "Explore loaded no wasm",
      );
    } else {
      assert.deepEqual(v.scripts, [], `${u} loaded scripts`);
    }
  }
});

test("every chart is an SVG with a <title>, <desc> and a caption", () => {
  let total = 0;
  for (const [u, charts] of chartsByPage) {
    for (const c of charts) {
      total++;
      assert.ok(c.hasSvg, `${u} #${c.id}: no svg`);
      assert.equal(c.role, "img", `${u} #${c.id}: svg without role=img`);
      assert.ok(c.title.length > 10, `${u} #${c.id}: svg has no <title> referenced by aria-labelledby`);
      assert.ok(c.desc.length > 10, `${u} #${c.id}: svg has no <desc>`);
      assert.ok(c.caption.length > 10, `${u} #${c.id}: no figcaption`);
      assert.ok(c.marks > 3, `${u} #${c.id}: svg draws nothing`);
    }
  }
  // A study page features its newest finished run (featuredRunOf); a run still in progress is not featured.
  const measuredStudies = new Set(records.filter((r) => r.source === "measured").map((r) => r.study));
  for (const s of measuredStudies) {
    const featured = featuredRunOf(s);
    if (!featured) continue;
    const charts = chartsByPage.get(`${preview.root}studies/${s}/`) ?? [];
    const workloads = new Set(
      records
        .filter((r) => r.run_id === featured.run_id && r.study === s && (r.metric === "tps" || r.metric === "qps"))
        .map((r) => r.workload),
    );
    assert.ok(
      charts.length >= workloads.size + 1,
      `study ${s}: ${charts.length} charts for ${workloads.size} measured workloads`,
    );
  }
  if (records.length > 0) assert.ok(total > 0, "records exist but no page has a chart");
});

test("the home page states each study's leader per workload from that study's featured run, naming the run", async () => {
  const home = visited.get(preview.root)!;
  const measuredStudies = studies.filter((s) => featuredRunOf(s.name));
  if (measuredStudies.length === 0) {
    assert.match(home.text, /No measured runs yet/);
    return;
  }
  const { document } = parseHTML(await (await fetch(preview.root)).text());
  for (const s of measuredStudies) {
    const run = featuredRunOf(s.name)!;
    const section = document.querySelector(`section.leaders[data-study="${s.name}"]`);
    assert.ok(section, `home has no "Leaders per workload" section for ${s.name} (featured run ${run.run_id})`);
    const text = section.textContent ?? "";
    assert.ok(text.includes(run.run_id), `${s.name}: the section does not name its run ${run.run_id}`);
    // The leaders by tps/qps recomputed here; the study's other metrics (times, calls/s) are ranked by the same code.
    const expected = leaders(run.run_id, s.name);
    for (const l of expected) {
      const item = [...section.querySelectorAll("li")]
        .map((li) => (li.textContent ?? "").replace(/\s+/g, " "))
        .find((x) => x.includes(`(${l.workload})`));
      assert.ok(item, `${s.name}: no finding for ${l.workload}`);
      assert.ok(
        item.includes(`${l.best} has the highest`),
        `${s.name} ${l.workload}: expected ${l.best} to lead, page says: ${item}`,
      );
      if (l.ratio)
        assert.ok(
          item.includes(`${l.ratio.toFixed(2)}× ${l.second}`),
          `${s.name} ${l.workload}: expected ratio ${l.ratio.toFixed(2)}× ${l.second}: ${item}`,
        );
    }
  }
});

test("study pages label measured vs published numbers and explain systems not measured", () => {
  for (const s of new Set(records.filter((r) => r.source === "published").map((r) => r.study))) {
    const page = visited.get(`${preview.root}studies/${s}/`)!;
    // Each study view words it its own way; every one must say the published figures are from elsewhere, on other hardware.
    assert.match(page.text, /published/i, `${s}: published figures are not labelled`);
    assert.match(
      page.text,
      /other hardware/i,
      `${s}: the page does not say the published figures come from other hardware`,
    );
  }
  for (const s of new Set(records.filter((r) => r.source === "measured").map((r) => r.study))) {
    const page = visited.get(`${preview.root}studies/${s}/`)!;
    assert.match(page.text, /Exact commands and configuration/);
    const featured = featuredRunOf(s);
    if (!featured) {
      // Its only measurements belong to a run still in progress: the page does not feature it.
      assert.match(page.text, /Not yet measured/);
      continue;
    }
    assert.match(page.text, /measured by samebox/);
    const measuredSystems = new Set(
      records
        .filter((r) => r.source === "measured" && r.study === s && r.run_id === featured.run_id)
        .map((r) => r.system),
    );
    const studyHasMysql = studies.find((x) => x.name === s)?.systems.includes("mysql") ?? true;
    if (studyHasMysql && !measuredSystems.has("mysql"))
      assert.match(page.text, /mysql[^\n]*cloud box/i, "the page must say MySQL is measured only on the cloud box");
    // A system the run never planned for this study is said to be left out by the plan, not lost.
    for (const sys of studies.find((x) => x.name === s)?.systems ?? [])
      if (!measuredSystems.has(sys) && !featured.cells.some((c) => c.study === s && c.system === sys))
        assert.ok(
          page.text.includes(`${sys}: not in this run's plan`),
          `${s}: ${sys} was not planned in ${featured.run_id}; the page does not say so`,
        );
  }
});

test("the quick decision table is derived from the data", () => {
  const study = records.find((r) => r.source === "measured" && r.workload === "oltp_read_write")?.study;
  const runId = study ? featuredRunOf(study)?.run_id : undefined;
  const oltp = records.find((r) => r.source === "measured" && r.workload === "oltp_read_write" && r.run_id === runId);
  if (!oltp) return; // no OLTP measurement in a finished run of this data set
  const page = visited.get(`${preview.root}studies/${oltp.study}/`)!;
  const rw = leaders(runId!).find((l) => l.workload === "oltp_read_write")!;
  const row = page.text.split("\n").find((x) => x.startsWith("Mixed read-write OLTP"));
  assert.ok(row, "decision table has no mixed read-write row");
  assert.ok(row.includes(`\t${rw.best}`), `decision row should pick ${rw.best}: ${row}`);
});

test("run pages show every cell, failed cells first", () => {
  for (const m of runs) {
    const page = visited.get(`${preview.root}runs/${m.run_id}/`)!;
    for (const c of m.cells) assert.ok(page.text.includes(c.id), `${m.run_id}: cell ${c.id} missing`);
    const failed = m.cells.filter((c) => c.status === "failed");
    if (failed.length) {
      assert.match(page.text, /failed and \d+ wrong-answer cell/);
      const firstCellLine = page.text.split("\n").findIndex((l) => l.includes(failed[0].id));
      const firstOk = page.text
        .split("\n")
        .findIndex((l) => m.cells.some((c) => c.status === "ok" && l.includes(c.id)));
      assert.ok(firstCellLine < firstOk || firstOk < 0, "failed cells are not listed first");
    }
  }
});

test("run pages keep the visit order (one line per run, hundreds of visits) folded under its count", () => {
  for (const m of runs) {
    const visits = (m as unknown as { order?: { visits?: unknown[] } }).order?.visits;
    if (!visits) continue;
    const page = visited.get(`${preview.root}runs/${m.run_id}/`)!;
    assert.ok(page.text.includes(`The ${visits.length} visits in the order they ran`), m.run_id);
  }
});

test("run pages state the noise guard and how the guest idled, as the manifest recorded them", () => {
  for (const m of runs) {
    const page = visited.get(`${preview.root}runs/${m.run_id}/`)!;
    assert.ok(page.text.includes(m.machine.cpuidle ?? "not recorded"), `${m.run_id}: CPU idle`);
    assert.ok(
      page.text.includes(m.machine.cpu_identity ?? "not recorded (this run recorded only the model name"),
      `${m.run_id}: CPU`,
    );
    const g = m.noise_guard;
    if (!g) {
      assert.ok(
        page.text.includes("not recorded (this run has no noise guard record)"),
        `${m.run_id}: no noise guard, yet the page states one`,
      );
      continue;
    }
    assert.ok(
      page.text.includes(
        `${g.mode}: ${g.flagged} cell attempt(s) disturbed, ${g.reruns} re-run, ${g.noisy} left noisy`,
      ),
      m.run_id,
    );
    const rtt = g.before_run?.wakeup_rtt_us;
    if (rtt) assert.ok(page.text.includes(`${rtt.same_cpu} µs on one vCPU, ${rtt.cross_cpu} µs across two`), m.run_id);
  }
});

test("the methodology page goes through the fair-benchmarking checklist", () => {
  const page = visited.get(`${preview.root}methodology/`)!;
  assert.match(page.text, /Raasveldt/);
  for (const item of [
    "Hardware configuration is reported",
    "Cold runs flush OS and CPU caches",
    "Robust metrics are reported",
    "Several runs reduce interference",
  ])
    assert.ok(page.text.includes(item), item);
  assert.match(page.text, /MySQL and SQL Server are measured only on the cloud box/);
  assert.match(page.text, /mskql and pgvector are built from their upstream source/);
});

test("a study page features the newest run that measured it and names every newer run that could not", () => {
  for (const st of studies) {
    const page = visited.get(`${preview.root}studies/${st.name}/`);
    if (!page) continue;
    const featured = featuredRunOf(st.name);
    if (featured)
      assert.ok(
        page.text.includes(featured.run_id),
        `${st.name}: page does not name its featured run ${featured.run_id}`,
      );
    const newer = newerUnmeasuredOf(st.name);
    if (newer.length === 0) {
      assert.doesNotMatch(
        page.text,
        /newer runs? could not measure this study/,
        `${st.name}: no newer unmeasured run, yet the page says so`,
      );
      continue;
    }
    assert.match(
      page.text,
      new RegExp(`${newer.length} newer runs? could not measure this study`),
      `${st.name}: the note on newer runs is missing`,
    );
    for (const m of newer)
      assert.ok(
        page.text.includes(m.run_id),
        `${st.name}: newer run ${m.run_id} that could not measure it is not named`,
      );
  }
});

test("run pages link each cell's raw output and log where publish copied them", () => {
  let linked = 0;
  for (const m of runs) {
    const page = visited.get(`${preview.root}runs/${m.run_id}/`)!;
    const published = m.cells.filter((c) =>
      existsSync(path.join(siteDir, "public", "data", "runs", m.run_id, "cells", c.id, "stdout.txt")),
    );
    if (published.length) assert.match(page.text, /\boutput\b/, `${m.run_id}: published raw output is not linked`);
    linked += published.length;
  }
  // the crawl fetched every /data/ link and required 200, so every linked file exists
  if (records.some((r) => r.source === "measured") && existsSync(path.join(siteDir, "public", "data", "runs")))
    assert.ok(linked > 0, "raw files were published but no run page links one");
});

test("the decision table states each pick's 95 % interval (or range below 2 repetitions) and calls overlapping intervals within noise", () => {
  for (const st of studies) {
    const page = visited.get(`${preview.root}studies/${st.name}/`);
    if (!page) continue;
    const rows = page.text.split("\n").filter((l) => / \(n=\d+, /.test(l));
    for (const row of rows) {
      const n = Number(row.match(/\(n=(\d+), /)![1]);
      assert.match(row, n >= 2 ? /\(n=\d+, 95 % CI / : /\(n=\d+, range /, `${st.name}: ${row}`);
      if (/not clear/i.test(row) && / vs /.test(row))
        assert.match(
          row,
          /within (run-to-run )?noise/,
          `${st.name}: an unclear pick must say it is within noise: ${row}`,
        );
    }
  }
});
