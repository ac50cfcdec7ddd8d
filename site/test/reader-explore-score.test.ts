// Explore's score: changing the metric ticks every system of the new metric except those the reader unticked
// (only the previous metric's ticked systems stayed ticked, so a metric measured on other systems
// gave a 1-row ranking).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, type Preview } from "./harness.ts";

let preview: Preview;
let browser: Browser;
let page: Page;
before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
  await preview?.stop();
});
const boxes = (name: string) =>
  page.$$eval(`#score-form input[name=${name}]`, (is) =>
    is.map((i) => [(i as HTMLInputElement).value, (i as HTMLInputElement).checked] as [string, boolean]),
  );
async function pickMetric(m: string) {
  await page.selectOption("#score-metric", m);
  await page.waitForFunction((mm) => new URL(location.href).searchParams.get("metric") === mm, m);
}

test("a new metric ticks all its systems but those the reader unticked", async (t) => {
  await page.goto(`${preview.root}explore/`);
  await page.waitForFunction(() => document.getElementById("score")?.dataset.state === "ready", null, {
    timeout: 120_000,
  });
  const metrics = await page.$$eval("#score-metric option", (os) => os.map((o) => (o as HTMLOptionElement).value));
  const first = await page.$eval("#score-metric", (s) => (s as HTMLSelectElement).value);
  const firstSystems = new Set((await boxes("sys")).map(([v]) => v));
  // A metric measured on a system the first one lacks (e.g. analytical times vs OLTP throughput).
  let other: string | undefined;
  for (const m of metrics.filter((x) => x !== first)) {
    await pickMetric(m);
    const sys = await boxes("sys");
    if (sys.length >= 2 && sys.some(([v]) => !firstSystems.has(v))) {
      other = m;
      break;
    }
  }
  if (!other) return t.skip("no metric measured on systems the default metric lacks");
  await pickMetric(first);
  await pickMetric(other);
  const sys = await boxes("sys");
  assert.deepEqual(
    sys.filter(([, c]) => !c),
    [],
    `after switching to ${other}, unticked: ${sys
      .filter(([, c]) => !c)
      .map(([v]) => v)
      .join(", ")}`,
  );
  // Untick one, go away and back: it stays unticked, the others ticked.
  const dropped = sys[0][0];
  await page.click(`#score-form input[name=sys][value="${dropped}"]`);
  await pickMetric(first);
  await pickMetric(other);
  const after = await boxes("sys");
  assert.deepEqual(
    after.filter(([, c]) => !c).map(([v]) => v),
    [dropped],
  );
});
