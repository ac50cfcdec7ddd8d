// Accessibility: axe-core (Deque's rule engine, pinned in package.json) finds no WCAG 2.x A/AA
// violation on the home page, a study page, a reproduce page, the board and Explore (after its first result),
// at 1280 and 390 px. Earlier audits found Plot's aria-label on <g> elements (aria-prohibited-attr) and a
// sideways-scrolling table the keyboard could not reach (scrollable-region-focusable).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, type Preview } from "./harness.ts";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
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

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath });
  const found: Violation[] = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected as a global by the script tag above.
    const axe = (window as any).axe;
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] },
      resultTypes: ["violations"],
    });
    return r.violations.map((v: Violation) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return found.map((v) => `${v.id} (${v.impact}, ${v.nodes.length}×, e.g. ${v.nodes[0]?.target.join(" ")}): ${v.help}`);
}

const pages: { path: string; ready?: string }[] = [
  { path: "" },
  { path: "studies/oltp/" },
  { path: "reproduce/oltp/" },
  { path: "board/" },
  { path: "explore/", ready: "#explore[data-state='done']" },
];

for (const width of [1280, 390]) {
  test(`axe finds no WCAG A/AA violation at ${width} px on home, a study, a reproduce page, the board and Explore`, async () => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const failures: string[] = [];
    for (const p of pages) {
      const r = await page.goto(`${preview.root}${p.path}`);
      assert.equal(r?.status(), 200, `${p.path} answered ${r?.status()}`);
      if (p.ready) await page.waitForSelector(p.ready, { timeout: 30_000 });
      for (const v of await violations(page)) failures.push(`${p.path || "home"}: ${v}`);
    }
    await page.close();
    assert.deepEqual(failures, []);
  });
}
