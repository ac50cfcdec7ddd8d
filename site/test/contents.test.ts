// Long pages made navigable (the analytical page was ~50,000 px long with 60 sections and no
// contents): every study page opens with "On this page", a link to each of its h2 sections (and the h3s
// under them); every link's target exists once on the page, and following one scrolls to it. No script.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
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

test("every study page lists its sections under 'On this page', each link leading to a heading that exists once", async () => {
  const failures: string[] = [];
  let links = 0;
  for (const s of studies) {
    const html = await (await fetch(`${preview.root}studies/${s.name}/`)).text();
    const { document } = parseHTML(html);
    const main = document.querySelector("main") ?? document;
    const h2s = [...main.querySelectorAll("h2")].filter((h) => !h.closest("nav"));
    if (h2s.length < 3) continue; // a short page needs no contents
    const nav = main.querySelector('nav[aria-label="On this page"]');
    if (!nav) {
      failures.push(`${s.name}: ${h2s.length} sections and no "On this page"`);
      continue;
    }
    assert.equal(
      nav.querySelectorAll("script").length + document.querySelectorAll("script").length,
      0,
      `${s.name}: a study page ships a script`,
    );
    const hrefs = [...nav.querySelectorAll("a")].map((a) => a.getAttribute("href") ?? "");
    for (const h of h2s) {
      const id = h.getAttribute("id");
      if (!id) failures.push(`${s.name}: h2 "${h.textContent?.trim()}" has no id`);
      else if (!hrefs.includes(`#${id}`))
        failures.push(`${s.name}: h2 "${h.textContent?.trim()}" is not in the contents`);
    }
    for (const href of hrefs) {
      const n = document.querySelectorAll(`[id="${href.slice(1)}"]`).length;
      if (n !== 1) failures.push(`${s.name}: ${href} matches ${n} elements`);
      links++;
    }
    // The nav comes before the first section it lists.
    const all = [...main.querySelectorAll("nav[aria-label='On this page'], h2")];
    if (all[0] !== nav) failures.push(`${s.name}: "On this page" is not before the first section`);
  }
  assert.deepEqual(failures, []);
  assert.ok(links > 0, "no study page long enough to need contents");
});

test("following a contents link scrolls to its section", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
  let tried = 0;
  for (const s of studies) {
    await page.goto(`${preview.root}studies/${s.name}/`);
    const last = page.locator('nav[aria-label="On this page"] > details > ol > li > a').last();
    if ((await last.count()) === 0) continue;
    const href = (await last.getAttribute("href"))!;
    await last.click();
    await page.waitForTimeout(100);
    const [top, y] = await page.evaluate(
      (id) => [document.getElementById(id)!.getBoundingClientRect().top, window.scrollY],
      href.slice(1),
    );
    // In view (the last section may sit lower when the page ends below it), and the page moved to it.
    assert.ok(
      top >= -1 && top < 800 - 20,
      `${s.name}: after following ${href} its heading is ${Math.round(top)} px from the top`,
    );
    assert.ok(y > 0, `${s.name}: following ${href} did not scroll`);
    tried++;
  }
  await page.close();
  assert.ok(tried > 0, "no contents link followed");
});

test("no study page repeats the same sentence of prose more than twice (the mcp-servers page gave one skip reason 17 times)", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures: string[] = [];
  for (const s of studies) {
    await page.goto(`${preview.root}studies/${s.name}/`);
    // Prose only: paragraphs and list items (tables list one fact per row), not the command listings of what ran (pre/code) and the per-workload file lists of what ran.
    const texts = await page.$$eval("main p, main li", (els) =>
      els
        .filter((e) => !e.closest("pre, nav, details.ran, td"))
        .map((e) => (e.textContent ?? "").split(/\s+/).join(" ").trim())
        .filter((t) => t.length >= 60),
    );
    const counts = new Map<string, number>();
    for (const t of texts) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, n] of counts) if (n > 2) failures.push(`${s.name}: ${n}× "${t.slice(0, 80)}"`);
  }
  await page.close();
  assert.deepEqual(failures, []);
});
