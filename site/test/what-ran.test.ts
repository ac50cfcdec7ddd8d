// The site shows what ran, never a re-rendering: every what-ran file a cell folder of
// a study's featured run kept (command.txt, sql/*.sql, args.json, ...) must appear on the study page,
// under its workload and naming its system and variant, byte for byte; a long one as its first lines
// plus a link whose download is the file byte for byte. And nothing else is shown as what ran: every
// block on the page equals a file some listed cell kept. The expected bytes are read here from the
// cell folders themselves (data/runs, or the fixture's fixture-runs), not from what publish wrote.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, recordedContext, repoRoot, type Preview, type Recorder } from "./harness.ts";
import { studies, featuredRunOf, siteDir } from "./expectations.ts";

// The file names the studies keep (bench-scripts/studies/*/README.md); publish shows these.
const RAN_FILES = ["command.txt", "sql/setup.sql", "sql/batch.sql", "sql/check.sql", "sql/meta.json", "args.json"];
const fixtureRuns = path.join(siteDir, "fixture-runs");
const runsRoot = existsSync(fixtureRuns)
  ? fixtureRuns
  : path.join(process.env.SAMEBOX_DATA_DIR ?? path.join(repoRoot, "data"), "runs");

let preview: Preview;
let browser: Browser;
let rec: Recorder;
let page: Page;
before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  const ctx = await recordedContext(browser, preview.origin);
  rec = ctx.rec;
  page = await ctx.context.newPage();
  ctx.watch(page);
});
after(async () => {
  await browser?.close();
  await preview?.stop();
});

interface Kept {
  workload: string;
  system: string;
  variant: string;
  cell: string;
  name: string;
  bytes: Buffer;
}
function keptFiles(
  runId: string,
  cells: Array<{ id: string; study: string; workload: string; system: string; variant: string }>,
  study: string,
): Kept[] {
  const out: Kept[] = [];
  for (const c of cells) {
    if (c.study !== study) continue;
    for (const name of RAN_FILES) {
      const f = path.join(runsRoot, runId, "cells", c.id, name);
      if (existsSync(f) && statSync(f).isFile())
        out.push({
          workload: c.workload,
          system: c.system,
          variant: c.variant,
          cell: c.id,
          name,
          bytes: readFileSync(f),
        });
    }
  }
  return out;
}

interface Shown {
  workload: string;
  name: string;
  systems: string[];
  variants: string[];
  cut: boolean;
  text: string;
  whole: string | null;
}
async function shownOn(): Promise<Shown[]> {
  return page.$$eval("details.ran pre[data-ran-file]", (pres) =>
    pres.map((p) => ({
      workload: p.closest("details.ran")?.getAttribute("data-workload") ?? "",
      name: p.getAttribute("data-ran-file") ?? "",
      systems: (p.getAttribute("data-ran-systems") ?? "").split(" "),
      variants: (p.getAttribute("data-ran-variants") ?? "").split(" "),
      cut: p.getAttribute("data-ran-cut") === "1",
      text: p.textContent ?? "",
      whole: p.parentElement?.querySelector("a[data-ran-whole]")?.getAttribute("href") ?? null,
    })),
  );
}

test("each study page shows the exact what-ran files of its featured run's cell folders, byte for byte", async () => {
  let checked = 0;
  let cutChecked = 0;
  for (const st of studies) {
    const run = featuredRunOf(st.name);
    if (!run) continue;
    const kept = keptFiles(run.run_id, run.cells, st.name);
    const resp = await page.goto(`${preview.root}studies/${st.name}/`, { waitUntil: "load", timeout: 60_000 });
    assert.equal(resp?.status(), 200);
    const shown = await shownOn();
    const wholeCache = new Map<string, Buffer>();
    const whole = async (href: string) => {
      if (!wholeCache.has(href)) {
        const r = await page.request.get(`${preview.origin}${href}`);
        assert.equal(r.status(), 200, `${href}: the whole file is not served`);
        wholeCache.set(href, await r.body());
      }
      return wholeCache.get(href)!;
    };
    const same = async (s: Shown, bytes: Buffer) => {
      if (!s.cut) return Buffer.from(s.text, "utf8").equals(bytes);
      return (
        bytes.subarray(0, Buffer.byteLength(s.text, "utf8")).equals(Buffer.from(s.text, "utf8")) &&
        s.whole !== null &&
        (await whole(s.whole)).equals(bytes)
      );
    };
    // Every kept file is on the page under its workload, naming its system and variant, byte for byte.
    for (const k of kept) {
      const candidates = shown.filter(
        (s) =>
          s.workload === k.workload &&
          s.name === k.name &&
          s.systems.includes(k.system) &&
          s.variants.includes(k.variant),
      );
      let found: Shown | undefined;
      for (const s of candidates)
        if (await same(s, k.bytes)) {
          found = s;
          break;
        }
      assert.ok(
        found,
        `${st.name}: ${k.cell}/${k.name} (${k.bytes.length} bytes) is not shown byte for byte under workload ${k.workload} naming ${k.system} ${k.variant || "(default)"} (${candidates.length} candidate block(s))`,
      );
      checked++;
      if (found.cut) cutChecked++;
    }
    // Nothing else: every block equals a file that one of the cells it names kept.
    for (const s of shown) {
      const sources = kept.filter(
        (k) => k.workload === s.workload && k.name === s.name && s.systems.includes(k.system),
      );
      let ok = false;
      for (const k of sources)
        if (await same(s, k.bytes)) {
          ok = true;
          break;
        }
      assert.ok(
        ok,
        `${st.name}: a what-ran block (${s.workload} ${s.name}, ${s.systems.join(",")}) matches no file its cells kept`,
      );
    }
  }
  // Not vacuous: the fixture always keeps files (one longer than the head cap); real data has them once the studies write them.
  if (runsRoot === fixtureRuns) {
    assert.ok(checked > 0, "the fixture's cell folders kept files, yet no page showed one");
    assert.ok(cutChecked > 0, "the fixture's long batch was not shown as first lines + whole file");
  }
  console.log(
    `what-ran: ${checked} kept files checked byte for byte (${cutChecked} via the whole-file link) from ${runsRoot}`,
  );
});

test("the what-ran pages log no console error and fetch nothing from another origin", () => {
  assert.deepEqual(rec.consoleErrors, []);
  assert.deepEqual(rec.foreign, []);
  assert.deepEqual(rec.failed, []);
});
