// The study page's parameters table shows what its featured run used, from the run's manifest
// (config.studies[<study>].env, and THREADS = the run's concurrency), not only the profile defaults
// (DURATION 60 and 10 × 100,000 rows were shown beside a quick run of 3 s and 4 × 25,000).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { startPreview, type Preview } from "./harness.ts";
import { studies, featuredRunOf } from "./expectations.ts";

let preview: Preview;
before(async () => {
  preview = await startPreview();
});
after(async () => {
  await preview?.stop();
});

test("each study page's parameters table gives the featured run's own values", async (t) => {
  let checked = 0;
  for (const s of studies) {
    const run = featuredRunOf(s.name);
    const cfg = (
      run?.config as { studies?: Record<string, { env?: Record<string, string>; concurrency?: number[] }> } | undefined
    )?.studies?.[s.name];
    if (!run || !cfg?.env || Object.keys(cfg.env).length === 0) continue;
    const { document } = parseHTML(await (await fetch(`${preview.root}studies/${s.name}/`)).text());
    const want: Record<string, string> = Object.fromEntries(Object.entries(cfg.env).map(([k, v]) => [k, String(v)]));
    if (s.parameters && "THREADS" in s.parameters && cfg.concurrency?.length) want.THREADS = cfg.concurrency.join(", ");
    for (const [k, v] of Object.entries(want)) {
      const row = document.querySelector(`tr[data-parameter="${k}"]`);
      assert.ok(row, `${s.name}: the parameters table has no row for ${k} (run ${run.run_id} used ${k}=${v})`);
      const cells = [...row.querySelectorAll("td")].map((c) => (c.textContent ?? "").trim());
      assert.equal(cells[0], v, `${s.name} ${k}: the "This run" column shows ${cells[0]}, run ${run.run_id} used ${v}`);
      checked++;
    }
    const caption =
      document.querySelector(`tr[data-parameter] `)?.closest("table")?.querySelector("caption")?.textContent ?? "";
    assert.ok(
      caption.includes(run.run_id),
      `${s.name}: the parameters table's caption does not name run ${run.run_id}: ${caption}`,
    );
  }
  if (checked === 0) t.skip("no featured run sets study parameters");
});
