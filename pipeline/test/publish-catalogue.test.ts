// A study is its folder, and a run keeps the catalogue it ran with: the runner copies each
// study's study.json and claims.json into the run folder when the run starts (snapshotCatalogue), and
// publish hands the site, per run and study, the claims that run ran with (runCatalogues); a run from
// before snapshots gets the study folder's claims and says so. The catalogue publish writes carries the
// study's site facts (seed attribution, headline metrics, presets with their SQL, claims).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./helpers.ts";
import { createHash } from "node:crypto";
import { CLAIM_SPECS, loadStudy, snapshotCatalogue } from "../lib/catalog.ts";
import { canonicalClaim, specChanges } from "../lib/claim-spec.ts";
import { claimsFile } from "../lib/claims.ts";
import { runCatalogues, siteStudy } from "../publish/site-catalog.ts";

const manifest = (run_id: string) =>
  ({ run_id, cells: [{ study: "oltp" }, { study: "oltp" }] }) as unknown as Parameters<typeof runCatalogues>[0][number];

test("a run keeps the claims it ran with; a run from before snapshots gets the study folder's, saying so", () => {
  const runs = tempDir();
  snapshotCatalogue(path.join(runs, "r-kept"), ["oltp"]);
  const kept = path.join(runs, "r-kept", "catalogue", "oltp", "claims.json");
  assert.equal(
    readFileSync(kept, "utf8"),
    readFileSync(claimsFile("oltp"), "utf8"),
    "the snapshot is the study's claims.json as it was",
  );
  assert.equal(
    readFileSync(path.join(runs, "r-kept", "catalogue", "oltp", "study.json"), "utf8"),
    readFileSync(path.join(loadStudy("oltp").dir, "study.json"), "utf8"),
  );
  // Each claim's specification is named by its hash, whatever the key order it is written in.
  const specs = JSON.parse(readFileSync(path.join(runs, "r-kept", "catalogue", "oltp", CLAIM_SPECS), "utf8"));
  const claims = JSON.parse(readFileSync(claimsFile("oltp"), "utf8")).claims as Array<Record<string, unknown>>;
  const sha = (t: string) => createHash("sha256").update(t).digest("hex");
  assert.equal(specs.file_sha256, sha(readFileSync(claimsFile("oltp"), "utf8")));
  assert.match(specs.file_commit ?? "", /^[0-9a-f]{40}$/, "the commit that last changed claims.json");
  assert.deepEqual(
    Object.keys(specs.claims),
    claims.map((c) => c.id),
  );
  const reversed = Object.fromEntries(Object.entries(claims[0]).reverse());
  assert.equal(specs.claims[claims[0].id as string], sha(canonicalClaim(reversed)));
  assert.deepEqual(specChanges(claims[0], { ...claims[0], kind: "size" }), ["kind"]);
  assert.deepEqual(specChanges(claims[0], reversed), []);
  // The study's claims change after the run: the run's copy is what it ran with.
  const doc = JSON.parse(readFileSync(kept, "utf8"));
  doc.claims[0].published = { a: 1, b: 2 };
  writeFileSync(kept, JSON.stringify(doc));
  const out = runCatalogues([manifest("r-kept"), manifest("r-old")], runs);
  assert.equal(out["r-kept"].oltp.from, "run");
  assert.deepEqual(out["r-kept"].oltp.claims?.claims[0].published, { a: 1, b: 2 });
  assert.equal(out["r-old"].oltp.from, "study folder");
  assert.deepEqual(out["r-old"].oltp.claims, JSON.parse(readFileSync(claimsFile("oltp"), "utf8")));
});

test("a malformed kept claims.json fails publish naming the file", () => {
  const runs = tempDir();
  snapshotCatalogue(path.join(runs, "r-bad"), ["oltp"]);
  const kept = path.join(runs, "r-bad", "catalogue", "oltp", "claims.json");
  writeFileSync(kept, JSON.stringify({ claims: [{ id: "x" }] }));
  assert.throws(
    () => runCatalogues([manifest("r-bad")], runs),
    (e: Error) => e.message.includes(kept),
  );
});

test("the site's catalogue carries the study folder's site facts", () => {
  const s = siteStudy(loadStudy("oltp"));
  assert.ok(s.seed_attribution?.source && s.seed_attribution.setup, "seed attribution");
  assert.deepEqual(s.headline_metrics, { select_random_points: "qps" });
  assert.ok(s.claims && s.claims.claims.length > 0, "claims");
  assert.deepEqual(
    s.explore_presets.map((p) => p.id),
    ["latency", "series"],
  );
  for (const p of s.explore_presets)
    assert.equal(p.sql, readFileSync(path.join(loadStudy("oltp").dir, p.file), "utf8").trimEnd());
  const a = siteStudy(loadStudy("analytical"));
  assert.equal(a.category_order?.[0], "baseline");
  assert.equal(siteStudy(loadStudy("mcp-db")).display_order?.[0], "client_ceiling");
});

// An edit of oltp's study.json and the error loadStudy must then give.
const badStudyEdits: Array<[string, (d: Record<string, unknown>) => void, RegExp]> = [
  [
    "headline metric of an unknown workload",
    (d) => {
      d.headline_metrics = { nope: "qps" };
    },
    /'nope' \(display_order or headline_metrics\) is not a workload of study oltp; valid: .*oltp_read_write/,
  ],
  [
    "unknown category",
    (d) => {
      d.category_order = ["nope"];
    },
    /category_order: 'nope' is no workload's category/,
  ],
  [
    "preset file missing",
    (d) => {
      d.presets = [{ id: "x", label: "x", file: "presets/missing.sql" }];
    },
    /preset 'x': file presets\/missing.sql is not a file in the study's folder/,
  ],
  [
    "seed condition scoped to no workload",
    (d) => {
      (d.seed_conditions as { rows: Array<Record<string, unknown>> }).rows[0].workloads = ["nope_*"];
    },
    /seed_conditions row 'cpus': 'nope_\*' matches no workload of study oltp; valid: .*oltp_read_write/,
  ],
  [
    "seed condition id twice",
    (d) => {
      const rows = (d.seed_conditions as { rows: unknown[] }).rows;
      rows.push(rows[0]);
    },
    /seed_conditions: row id 'cpus' appears twice/,
  ],
  [
    "seed condition read from nowhere",
    (d) => {
      (d.seed_conditions as { rows: Array<Record<string, unknown>> }).rows[0].ours = { machine: "gpus" };
    },
    /seed_conditions\/rows\/0\/ours/,
  ],
  [
    "seed without attribution",
    (d) => {
      delete d.seed_attribution;
    },
    /seed_attribution \{source, setup\} is needed with \/seed/,
  ],
];

test("a study's site facts must name what exists: the error names the file, the field and what is valid", async () => {
  const { execFileSync } = await import("node:child_process");
  const { cpSync } = await import("node:fs");
  for (const [what, edit, want] of badStudyEdits) {
    const bench = tempDir();
    cpSync(loadStudy("oltp").dir, path.join(bench, "studies", "oltp"), { recursive: true });
    const file = path.join(bench, "studies", "oltp", "study.json");
    const d = JSON.parse(readFileSync(file, "utf8"));
    edit(d);
    writeFileSync(file, JSON.stringify(d));
    const catalog = path.resolve(import.meta.dirname, "../lib/catalog.ts");
    let err = "";
    try {
      execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { loadStudy } = await import(${JSON.stringify(catalog)}); loadStudy("oltp");`,
        ],
        { env: { ...process.env, SAMEBOX_BENCH_SCRIPTS: bench }, stdio: "pipe" },
      );
    } catch (e) {
      err = String((e as { stderr: Buffer }).stderr);
    }
    assert.match(err, want, what);
    assert.ok(err.includes(file), `${what}: names ${file}`);
  }
});
