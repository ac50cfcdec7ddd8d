// Chart text and contrast: at 1280 and 390 px no chart text renders smaller than 11 px (charts
// scaled down to the column gave 4.6–5.2 px text at 390 and 8.6 px on the home cards at 1280; a chart
// wider than its column now scrolls inside its figure, which the keyboard can reach), and every system
// colour drawn in a chart has at least 3:1 contrast against the page background (WCAG 1.4.11, non-text
// contrast). axe-core is not installed here, so the contrast is computed explicitly (WCAG relative
// luminance) from the rendered fills and strokes.
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

const pages = ["", ...studies.map((s) => `studies/${s.name}/`), ...studies.map((s) => `reproduce/${s.name}/`)];

function luminance([r, g, b]: number[]): number {
  const c = [r, g, b].map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}
function contrast(a: number[], b: number[]): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
const rgb = (s: string): number[] | undefined => {
  const m = s.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
  if (!m || (m[4] !== undefined && Number(m[4]) === 0)) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};

test("no chart text is smaller than 11 px at 1280 or 390 px, every chart fits its column at 1280, and one wider than its column at 390 scrolls within reach of the keyboard", async () => {
  const failures: string[] = [];
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    for (const p of pages) {
      const r = await page.goto(`${preview.root}${p}`);
      if (r?.status() !== 200) continue;
      const found = await page.$$eval("figure.chart svg text", (ts) =>
        ts.flatMap((t) => {
          const fs = Number.parseFloat(getComputedStyle(t).fontSize);
          const svg = t.closest("svg") as SVGSVGElement;
          const vb = svg.viewBox.baseVal;
          const px = fs * (vb?.width ? svg.getBoundingClientRect().width / vb.width : 1);
          return px > 0 && (t.textContent ?? "").trim()
            ? [
                [px, (t.textContent ?? "").trim().slice(0, 30), svg.closest("figure")?.id ?? ""] as [
                  number,
                  string,
                  string,
                ],
              ]
            : [];
        }),
      );
      const small = found.filter(([px]) => px < 11 - 1e-6);
      if (small.length)
        failures.push(
          `${p || "home"} at ${width}: ${small.length} of ${found.length} chart labels under 11 px, e.g. ${small
            .slice(0, 2)
            .map(([px, t, id]) => `"${t}" ${px.toFixed(1)} px in #${id}`)
            .join(", ")}`,
        );
      // Charts wider than their column: on a desktop none (a mark scrolled out of view is a result the reader
      // misses: the home cards hid every ratio above ~12x at 1280 px inside 518 px); on a phone they scroll, and
      // their figure must take focus so the keyboard can scroll it.
      const wide = await page.$$eval("figure.chart", (fs) =>
        fs
          .filter((f) => f.scrollWidth > f.clientWidth + 1)
          .map((f) => ({ id: f.id, focusable: f.tabIndex >= 0, px: `${f.scrollWidth} > ${f.clientWidth} px` })),
      );
      const unreachable = wide.filter((f) => !f.focusable).map((f) => f.id);
      if (unreachable.length)
        failures.push(
          `${p || "home"} at ${width}: charts scroll sideways but cannot take focus: ${unreachable.join(", ")}`,
        );
      if (width === 1280 && wide.length)
        failures.push(
          `${p || "home"} at 1280: charts wider than their column: ${wide.map((f) => `#${f.id} ${f.px}`).join(", ")}`,
        );
    }
    await page.close();
  }
  assert.deepEqual(failures, []);
});

test("at 1280 px each verdict table shows the answer, up to where the claim holds, without scrolling sideways", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures: string[] = [];
  for (const p of pages.filter((x) => x.startsWith("reproduce/"))) {
    const r = await page.goto(`${preview.root}${p}`);
    if (r?.status() !== 200) continue;
    const cut = await page.$$eval("table.verdicts", (ts) =>
      ts.flatMap((t) => {
        const wrap = t.parentElement!.getBoundingClientRect();
        const th = [...t.querySelectorAll("thead th")];
        const holds = th.findIndex((h) => (h.textContent ?? "").startsWith("Holds when"));
        return th
          .slice(0, holds + 1)
          .filter((h) => h.getBoundingClientRect().right > wrap.right + 1)
          .map(
            (h) =>
              `"${(h.textContent ?? "").trim()}" ends at ${Math.round(h.getBoundingClientRect().right - wrap.left)} of ${Math.round(wrap.width)} px`,
          );
      }),
    );
    if (cut.length) failures.push(`${p}: ${cut.join(", ")}`);
  }
  await page.close();
  assert.deepEqual(failures, []);
});

test("every system colour drawn in a chart has ≥ 3:1 contrast against the page background", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures = new Map<string, string>();
  let checked = 0;
  for (const p of pages) {
    const r = await page.goto(`${preview.root}${p}`);
    if (r?.status() !== 200) continue;
    const bg = rgb(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)) ?? [255, 255, 255];
    // Marks: Plot's dots, bars, lines and legend swatches (grey rules and axes are text-free decoration).
    const colours = await page.$$eval(
      "figure.chart svg [fill], figure.chart svg [stroke], figure.chart svg rect, figure.chart svg circle, figure.chart svg path",
      (els) => [
        ...new Set(
          els.flatMap((e) => {
            if (
              e.closest(
                "[aria-label$='axis'], [aria-label^='rule'], [aria-label='frame'], [aria-label^='tick'], [aria-label^='grid']",
              )
            )
              return [];
            const s = getComputedStyle(e);
            return [s.fill, s.stroke].filter((c) => c && c !== "none");
          }),
        ),
      ],
    );
    for (const c of colours) {
      const v = rgb(c);
      if (!v) continue;
      // Greys (axes, ranges, neutral marks) are not system colours.
      if (Math.max(...v) - Math.min(...v) < 24) continue;
      checked++;
      const k = contrast(v, bg);
      if (k < 3) failures.set(c, `${c} on ${p || "home"}: ${k.toFixed(2)}:1`);
    }
  }
  await page.close();
  assert.ok(checked > 0, "no coloured mark found");
  assert.deepEqual([...failures.values()], []);
});

test('no axis title is drawn over a tick label, and no axis prints SI sub-unit ticks (0.2 as "200m") at 1280 or 390 px', async () => {
  const failures: string[] = [];
  let axes = 0;
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    for (const p of pages) {
      const r = await page.goto(`${preview.root}${p}`);
      if (r?.status() !== 200) continue;
      const found = await page.$$eval("figure.chart svg", (svgs) =>
        svgs.flatMap((svg) => {
          const id = svg.closest("figure")?.id ?? "";
          const text = (e: Element) => (e.textContent ?? "").trim();
          const titles = [...svg.querySelectorAll("[aria-label$='axis label'] text")];
          const ticks = [...svg.querySelectorAll("[aria-label$='tick label'] text")];
          const out: string[] = [`axes ${titles.length}`];
          // d3's SI format on a log axis: "200m", "500µ" for 0.2 and 0.0005 (a reader sees metres, micro-units).
          for (const t of ticks) if (/^[−-]?\d+(\.\d+)?[mµn]$/.test(text(t))) out.push(`tick "${text(t)}" in #${id}`);
          for (const a of titles) {
            const ra = a.getBoundingClientRect();
            for (const t of ticks) {
              const rt = t.getBoundingClientRect();
              const overlap =
                Math.min(ra.right, rt.right) - Math.max(ra.left, rt.left) > 0.5 &&
                Math.min(ra.bottom, rt.bottom) - Math.max(ra.top, rt.top) > 0.5;
              if (overlap) out.push(`title "${text(a).slice(0, 30)}" over tick "${text(t)}" in #${id}`);
            }
          }
          return out;
        }),
      );
      for (const f of found) {
        if (f.startsWith("axes ")) axes += Number(f.slice(5));
        else failures.push(`${p || "home"} at ${width}: ${f}`);
      }
    }
    await page.close();
  }
  assert.ok(axes > 0, "no axis title found: the selectors no longer match Plot's output");
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} problems`);
});

// CIE L*a*b* (D65) from sRGB, for the colour-difference check below (CIE76 ΔE: Euclidean distance in Lab).
function lab(rgbv: number[]): number[] {
  const [r, g, b] = rgbv.map((v) => v / 255).map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const [x, y, z] = [
    (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
    0.2126 * r + 0.7152 * g + 0.0722 * b,
    (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
  ];
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}
const deltaE = (a: number[], b: number[]) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]));

test("the colours within one chart are distinguishable: every pair of distinct mark colours differs by ΔE76 ≥ 20", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures = new Set<string>();
  let pairs = 0;
  for (const p of pages) {
    const r = await page.goto(`${preview.root}${p}`);
    if (r?.status() !== 200) continue;
    const charts = await page.$$eval("figure.chart svg", (svgs) =>
      svgs.map((svg) => ({
        id: svg.closest("figure")?.id ?? "",
        colours: [
          ...new Set(
            [...svg.querySelectorAll("[fill], [stroke], rect, circle, path")].flatMap((e) => {
              if (
                e.closest(
                  "[aria-label$='axis'], [aria-label^='rule'], [aria-label='frame'], [aria-label^='tick'], [aria-label^='grid']",
                )
              )
                return [];
              const s = getComputedStyle(e);
              return [s.fill, s.stroke].filter((c) => c && c !== "none");
            }),
          ),
        ],
      })),
    );
    for (const c of charts) {
      const coloured = c.colours
        .map((x) => [x, rgb(x)] as const)
        .filter((x): x is readonly [string, number[]] => !!x[1] && Math.max(...x[1]) - Math.min(...x[1]) >= 24);
      for (let i = 0; i < coloured.length; i++)
        for (let j = i + 1; j < coloured.length; j++) {
          const d = deltaE(coloured[i][1], coloured[j][1]);
          pairs++;
          if (d > 0 && d < 20)
            failures.add(`${coloured[i][0]} vs ${coloured[j][0]} (ΔE ${d.toFixed(1)}) in #${c.id} on ${p || "home"}`);
        }
    }
  }
  await page.close();
  assert.ok(pairs > 0, "no pair of coloured marks found");
  assert.deepEqual([...failures], []);
});
