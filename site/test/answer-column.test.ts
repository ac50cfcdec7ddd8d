// The answer column of a wide table is visible without scrolling sideways, at 1280 and at 390 px (
// OLTP's "Best pick", the reproduce page's "Verdict" and the diff page's "Later" values were off-screen; a
// diff page's folded tables are opened before measuring).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startPreview, launchBrowser, type Preview } from "./harness.ts";
import { studies } from "./expectations.ts";

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

// page, the header text of its answer column
const targets: Array<[string, string]> = [
  ["studies/oltp/", "Best pick"],
  ...studies.map((s) => [`reproduce/${s.name}/`, "Verdict"] as [string, string]),
];

test("the answer column's header is inside the viewport at 1280 and 390 px", async () => {
  const failures: string[] = [];
  // The diff pages the chooser links first (each study's significant table, and the folded rest).
  const chooser = await browser.newPage();
  await chooser.goto(`${preview.root}diff/`);
  const diffs = (
    await chooser.$$eval("#diff-chooser a", (as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname))
  ).slice(0, 2);
  await chooser.close();
  for (const d of diffs)
    targets.push(
      [d.slice(new URL(preview.root).pathname.length), "Later"],
      [d.slice(new URL(preview.root).pathname.length), "Change"],
    );
  let measured = 0;
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    for (const [p, header] of targets) {
      const r = await page.goto(`${preview.root}${p}`);
      if (r?.status() !== 200) continue; // no such page in this data set (study without claims)
      await page.$$eval("details", (ds) => {
        for (const d of ds) (d as HTMLDetailsElement).open = true;
      });
      const boxes = await page.$$eval(
        "th",
        (ths, h) =>
          ths
            .filter((th) => (th.textContent ?? "").trim() === h)
            .map((th) => {
              const b = th.getBoundingClientRect();
              return [b.left, b.right];
            }),
        header,
      );
      const vw = await page.evaluate(() => document.documentElement.clientWidth);
      measured += boxes.length;
      for (const [left, right] of boxes)
        if (right > vw + 1 || left < 0)
          failures.push(
            `${p} at ${width}: "${header}" spans ${Math.round(left)}–${Math.round(right)} px, viewport ${vw}`,
          );
    }
    await page.close();
  }
  assert.deepEqual(failures, []);
  assert.ok(measured > 0, "no answer column found on any page");
});
