// The results board: for every study with a measured run, /board/<study>/ (and /board/ across
// studies) shows systems as columns and workloads as rows; each cell's median, ratio to the row's best and
// colour band equal a recomputation from the featured run's records; the study is chosen by the URL; the
// page ships no script file (only board-selectors' inline workload filter); cells without a figure carry the manifest's status.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import type { Browser } from "playwright-core";
import { startPreview, launchBrowser, type Preview } from "./harness.ts";
import { records, studies, featuredRunOf, median } from "./expectations.ts";
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
const BANDS = [1.1, 1.5, 2, 4];
const bandOf = (ratio: number) => (BANDS.findIndex((b) => ratio <= b) + 1 || BANDS.length + 1) - 1;
const HIGHER = new Set(["tx/s", "q/s", "calls/s", "rows"]);
const measuredStudies = studies.filter((s) => featuredRunOf(s.name));

test("each study's board cells equal a recomputation from its featured run's records", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  let cells = 0;
  for (const s of measuredStudies) {
    const run = featuredRunOf(s.name)!;
    const html = await (await fetch(`${preview.root}board/${s.name}/`)).text();
    const { document } = parseHTML(html);
    assert.ok(html.includes(run.run_id), `${s.name}: the board does not name its run ${run.run_id}`);
    // The only script: the inline workload filter (board-selectors.test.ts), no file, no wasm.
    for (const sc of document.querySelectorAll("script"))
      assert.ok(
        !sc.getAttribute("src") && (sc.textContent ?? "").length < 2048,
        `${s.name}: the board ships a script file or a large script`,
      );
    for (const tr of document.querySelectorAll("tr[data-workload]")) {
      const workload = tr.getAttribute("data-workload")!;
      const metric = tr.getAttribute("data-metric")!;
      const shown = [...tr.querySelectorAll("td[data-median]")];
      const want = shown.map((td) => {
        const [system, ...v] = td.getAttribute("data-column")!.split(" ");
        const rs = records.filter(
          (r) =>
            r.source === "measured" &&
            r.run_id === run.run_id &&
            r.study === s.name &&
            r.workload === workload &&
            r.metric === metric &&
            r.t === null &&
            r.system === system &&
            (v.length === 0 || sv(r) === v.join(" ")) &&
            r.concurrency === Number(td.getAttribute("data-concurrency")),
        );
        // one value per repetition (the mean of a repetition's values), then the median over repetitions
        const byRep = new Map<number, number[]>();
        for (const r of rs) (byRep.get(r.repetition) ?? byRep.set(r.repetition, []).get(r.repetition)!).push(r.value);
        const values = [...byRep.values()].flat();
        return { td, median: median(values), unit: rs[0]?.unit };
      });
      if (!want.length) continue;
      const hb = HIGHER.has(want[0].unit ?? "");
      const best = hb ? Math.max(...want.map((w) => w.median)) : Math.min(...want.map((w) => w.median));
      for (const w of want) {
        const col = w.td.getAttribute("data-column");
        assert.ok(
          Math.abs(Number(w.td.getAttribute("data-median")) / w.median - 1) < 1e-9,
          `${s.name} ${workload} ${col}: median ${w.td.getAttribute("data-median")} vs ${w.median} from records`,
        );
        const ratio = hb ? best / w.median : w.median / best;
        assert.ok(
          Math.abs(Number(w.td.getAttribute("data-ratio")) / ratio - 1) < 1e-9,
          `${s.name} ${workload} ${col}: ratio ${w.td.getAttribute("data-ratio")} vs ${ratio}`,
        );
        assert.equal(
          Number(w.td.getAttribute("data-band")),
          bandOf(ratio),
          `${s.name} ${workload} ${col}: colour band`,
        );
        assert.ok(w.td.classList.contains(`band-${bandOf(ratio)}`));
        cells++;
      }
    }
  }
  assert.ok(cells > 0, "no measured cell on any board");
});

test("cells without a figure are badged with the run's status; the across-studies board has every measured study", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  const { document } = parseHTML(await (await fetch(`${preview.root}board/`)).text());
  for (const s of measuredStudies) {
    const rows = document.querySelectorAll(`tr[data-study="${s.name}"]`);
    const runId = featuredRunOf(s.name)!.run_id;
    if (records.some((r) => r.source === "measured" && r.run_id === runId && r.study === s.name))
      assert.ok(rows.length > 0, `/board/ has no row of ${s.name}`);
  }
  for (const td of document.querySelectorAll("td.missing")) {
    assert.ok(td.getAttribute("data-status"), "a missing cell without a status");
    assert.ok(
      (td.querySelector(".reason")?.textContent ?? "").trim().length > 0,
      `a ${td.getAttribute("data-status")} cell without a reason`,
    );
  }
});

test("every board cell links the verdict of each claim that reads it, and the link leads to that claim's row on the reproduce page", async (t) => {
  const withClaims = measuredStudies.filter((s) => s.claims?.claims.length);
  if (!withClaims.length) return t.skip("no measured study with claims");
  let links = 0;
  for (const s of withClaims) {
    const { document } = parseHTML(await (await fetch(`${preview.root}board/${s.name}/`)).text());
    const reproduce = parseHTML(await (await fetch(`${preview.root}reproduce/${s.name}/`)).text()).document;
    for (const td of document.querySelectorAll("tr[data-workload] td[data-column]")) {
      const tr = td.closest("tr")!;
      const [workload, metric] = [tr.getAttribute("data-workload")!, tr.getAttribute("data-metric")!];
      const [system, ...v] = td.getAttribute("data-column")!.split(" ");
      const variant = v.join(" ");
      // From claims.json: a side reads the cell when its system is the column's and its workload the row's
      // ("*": only on a row showing the claim's metric; each_of: any listed one), its variant (if pinned) the column's.
      const want = s
        .claims!.claims.filter((c) =>
          [c.a, c.b].some(
            (side) =>
              side.system === system &&
              (c.workload === "*" ? c.metric === metric : (c.each_of ?? [c.workload]).includes(workload)) &&
              (!variant || side.variant === undefined || sv(side) === variant),
          ),
        )
        .map((c) => c.id);
      const shown = [...td.querySelectorAll("a[data-claim]")];
      assert.deepEqual(
        shown.map((a) => a.getAttribute("data-claim")),
        want,
        `${s.name} ${workload} ${td.getAttribute("data-column")}: the claims linked`,
      );
      for (const a of shown) {
        const id = a.getAttribute("data-claim")!;
        assert.equal(a.getAttribute("href"), `${new URL(preview.root).pathname}reproduce/${s.name}/#claim-${id}`);
        const row = reproduce.getElementById(`claim-${id}`);
        assert.ok(row, `${s.name}: /reproduce/${s.name}/ has no row #claim-${id}`);
        assert.equal(
          a.getAttribute("data-verdict"),
          row.getAttribute("data-verdict"),
          `${s.name} ${id}: the board's verdict differs from the reproduce page's`,
        );
        assert.equal(a.parentElement!.querySelector(".verdict")?.textContent, row.getAttribute("data-verdict"));
        links++;
      }
    }
  }
  assert.ok(links > 0, "no board cell links a claim's verdict");
});

test("the board's colours render and the page fits the viewport at 1280 and 390 px", async (t) => {
  if (!measuredStudies.length) return t.skip("no measured run");
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 }, javaScriptEnabled: false });
    await page.goto(`${preview.root}board/${measuredStudies[0].name}/`);
    const colours = await page.$$eval("td[data-band]", (tds) =>
      tds.map((td) => [
        td.getAttribute("data-band"),
        td.classList.contains("noisy"),
        getComputedStyle(td).backgroundColor,
      ]),
    );
    const byBand = new Map<string, Set<string>>();
    for (const [band, noisy, bg] of colours)
      if (!noisy) (byBand.get(String(band)) ?? byBand.set(String(band), new Set()).get(String(band))!).add(String(bg));
    for (const [band, set] of byBand)
      assert.equal(set.size, 1, `band ${band} has several colours: ${[...set].join(", ")}`);
    assert.equal(new Set([...byBand.values()].map((s) => [...s][0])).size, byBand.size, "two bands share a colour");
    const [sw, vw] = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      document.documentElement.clientWidth,
    ]);
    assert.ok(sw <= vw, `at ${width} px the board page is ${sw} px wide`);
    await page.close();
  }
});
