// The server dimension: mcp-db's records carry the MCP server and the schema state apart
// (server faucet, variant indexed) instead of variant faucet-indexed; runs from before the column are read
// with both derived, and their folders are never rewritten.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { csvParse } from "d3-dsv";
import { loadStudy } from "../lib/catalog.ts";
import { cellKey, fromCsv, toCsv } from "../lib/records.ts";
import type { ResultRecord } from "../lib/records.ts";
import { recordColumns } from "../lib/schema.ts";
import { cellIdentity, serverRule, splitServer } from "../lib/servers.ts";
import { legacyServer } from "../lib/servers-catalog.ts";
import { pairedSamples } from "../lib/verdicts.ts";
import type { Claim } from "../schema/types.ts";
import { planRun } from "../runner/plan.ts";
import { cli, fixtures, repoRoot, tempDir } from "./helpers.ts";

const OLD_RUN = "20261127T212045Z-quick-vm";
const oldRunDir = path.join(fixtures, "run-before-server");

test("mcp-db's variants split into server and state by its study folder; other studies have no server", () => {
  const rule = serverRule(loadStudy("mcp-db"));
  assert.deepEqual(splitServer(rule, "point_reads", "faucet-indexed"), { server: "faucet", variant: "indexed" });
  assert.deepEqual(splitServer(rule, "filtered_queries", "dbhub-baseline"), { server: "dbhub", variant: "baseline" });
  assert.deepEqual(splitServer(rule, "point_reads", "toolboxsafe-indexed"), {
    server: "toolboxsafe",
    variant: "indexed",
  });
  assert.deepEqual(splitServer(rule, "point_reads", "toolbox-indexed"), { server: "toolbox", variant: "indexed" });
  // the client ceiling pins variant trivial against its workload's trivial_server
  assert.deepEqual(splitServer(rule, "client_ceiling", "trivial"), { server: "mcp-null", variant: "trivial" });
  assert.equal(serverRule(loadStudy("oltp")), undefined);
  assert.deepEqual(legacyServer({ study: "oltp", workload: "oltp_read_only", variant: "warm" }), {
    server: "",
    variant: "warm",
  });
  assert.deepEqual(legacyServer({ study: "analytical", workload: "aggregate", variant: "hot" }), {
    server: "",
    variant: "hot",
  });
  // a cell keeps the variant its verbs take and names its server; its records give the same cell key
  const cell = {
    study: "mcp-db",
    workload: "point_reads",
    system: "sqlite",
    server: "faucet",
    variant: "faucet-indexed",
    concurrency: 1,
    repetition: 2,
  };
  assert.deepEqual(cellIdentity(cell), { ...cell, variant: "indexed" });
  assert.equal(cellKey(cell), cellKey({ ...cell, variant: "indexed" }));
  assert.notEqual(cellKey(cell), cellKey({ ...cell, server: "dbhub", variant: "indexed" }));
});

test("the plan gives mcp-db cells their server; ids stay as before (unique, <server>-<state>)", () => {
  const plan = planRun({ profile: "full", studies: ["mcp-db", "oltp"], systems: ["sqlite", "postgresql"] });
  const mcp = plan.cells.filter((c) => c.study === "mcp-db");
  assert.ok(mcp.length > 0);
  for (const c of mcp) {
    assert.equal(c.id, `mcp-db.${c.workload}.${c.system}.c${c.concurrency}.${c.variant}.r${c.repetition}`);
    if (c.workload.startsWith("client_ceiling")) assert.equal(c.server, "mcp-null", c.id);
    else assert.ok(c.server && c.variant.startsWith(`${c.server}-`), c.id);
  }
  assert.ok(mcp.some((c) => c.server === "dbhub") && mcp.some((c) => c.server === "toolboxsafe"));
  assert.equal(new Set(plan.cells.map((c) => c.id)).size, plan.cells.length, "cell ids are unique");
  assert.ok(
    plan.cells.filter((c) => c.study === "oltp").every((c) => c.server === undefined),
    "oltp has no server",
  );
});

test("records.csv from before the server column: mcp-db rows get server and state, others an empty server", () => {
  const text = readFileSync(path.join(oldRunDir, "records.csv"), "utf8");
  assert.ok(!text.split("\n")[0].split(",").includes("server"), "the fixture is in the old format");
  const recs = fromCsv(text, "records.csv");
  const old = csvParse(text);
  assert.equal(recs.length, old.length);
  for (const [i, r] of recs.entries()) {
    const v = old[i].variant!;
    if (r.study === "mcp-db") assert.equal(`${r.server}-${r.variant}`, v);
    else assert.deepEqual([r.server, r.variant], ["", v]);
  }
  assert.deepEqual([...new Set(recs.filter((r) => r.study === "mcp-db").map((r) => r.server))].sort(), [
    "dbhub",
    "faucet",
    "toolbox",
    "toolboxsafe",
  ]);
  assert.deepEqual([...new Set(recs.filter((r) => r.study === "mcp-db").map((r) => r.variant))], ["indexed"]);
  // the client ceiling's old rows: variant trivial, against mcp-null
  const ceiling = `${text.split("\n")[0]}\n${OLD_RUN},measured,mcp-db,client_ceiling,postgresql,15.18,trivial,8,1,throughput,1456.75,calls/s,,quick,m,c\n`;
  assert.deepEqual(
    fromCsv(ceiling, "c.csv").map((r) => [r.server, r.variant]),
    [["mcp-null", "trivial"]],
  );
  // written again, the file has the column, after system_version
  const again = toCsv(recs).split("\n")[0].split(",");
  assert.deepEqual(again, recordColumns);
  assert.equal(again.indexOf("server"), again.indexOf("system_version") + 1);
  assert.deepEqual(fromCsv(toCsv(recs), "new.csv"), recs);
});

test("a claim side pinned to a server reads that server's records only", () => {
  const rec = (server: string, system: string, repetition: number, value: number): ResultRecord => ({
    run_id: "20260101T000000Z-ci-x",
    source: "measured",
    study: "mcp-db",
    workload: "point_reads",
    system,
    system_version: "1",
    server,
    variant: "indexed",
    concurrency: 1,
    repetition,
    metric: "throughput",
    value,
    unit: "calls/s",
    t: null,
    profile: "ci",
    machine: "m",
    commit: "",
  });
  const records = [1, 2, 3].flatMap((r) => [
    rec("faucet", "postgresql", r, 100),
    rec("dbhub", "postgresql", r, 10),
    rec("faucet", "sqlite", r, 50),
    rec("toolbox", "sqlite", r, 500),
  ]);
  const claim = {
    id: "x",
    claim: "x",
    quote: "x",
    workload: "point_reads",
    metric: "throughput",
    better: "higher",
    kind: "ordering",
    published: { a: 2, b: 1 },
    a: { system: "postgresql", server: "faucet", variant: "indexed" },
    b: { system: "sqlite", server: "faucet", variant: "indexed" },
  } as Claim;
  assert.deepEqual(
    pairedSamples(records, claim).map((s) => [s.a, s.b]),
    [
      [100, 50],
      [100, 50],
      [100, 50],
    ],
  );
  const toolbox = { ...claim, b: { system: "sqlite", server: "toolbox", variant: "indexed" } } as Claim;
  assert.deepEqual(
    pairedSamples(records, toolbox).map((s) => s.b),
    [500, 500, 500],
  );
});

test("publish reads a run from before the server column: server derived in what it writes, the run folder unchanged", {
  timeout: 120_000,
}, () => {
  const data = tempDir();
  const site = tempDir();
  mkdirSync(path.join(data, "runs"), { recursive: true });
  cpSync(oldRunDir, path.join(data, "runs", OLD_RUN), { recursive: true });
  cpSync(path.join(repoRoot, "data", "published"), path.join(data, "published"), { recursive: true });
  const before = ["manifest.json", "records.csv"].map((f) => readFileSync(path.join(data, "runs", OLD_RUN, f), "utf8"));
  const r = cli(["publish"], { SAMEBOX_DATA_DIR: data, SAMEBOX_SITE_DIR: site });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    ["manifest.json", "records.csv"].map((f) => readFileSync(path.join(data, "runs", OLD_RUN, f), "utf8")),
    before,
    "the run folder is never rewritten",
  );

  const csv = csvParse(readFileSync(path.join(site, "public", "data", "results.csv"), "utf8"));
  assert.ok(csv.columns.includes("server"));
  const mcp = csv.filter(
    (x) => x.source === "measured" && x.study === "mcp-db" && x.workload === "point_reads" && x.metric === "throughput",
  );
  assert.deepEqual([...new Set(mcp.map((x) => `${x.server}/${x.variant}`))].sort(), [
    "faucet/indexed",
    "toolbox/indexed",
    "toolboxsafe/indexed",
  ]);
  // provenance still finds each record's cell (the cell keeps its <server>-<state> id)
  for (const x of mcp) assert.equal(x.cell, `mcp-db.point_reads.sqlite.c1.${x.server}-${x.variant}.r${x.repetition}`);
  assert.ok(csv.filter((x) => x.study === "oltp").every((x) => x.server === ""));
  // the seed's published figures (data/published, old format) are read the same way
  assert.ok(
    csv.some(
      (x) => x.source === "published" && x.study === "mcp-db" && x.server === "faucet" && x.variant === "indexed",
    ),
  );

  const runs = JSON.parse(readFileSync(path.join(site, "src", "generated", "runs.json"), "utf8"));
  const cells = runs[0].cells as Array<{ workload: string; variant: string; server?: string }>;
  assert.ok(
    cells.filter((c) => c.workload === "point_reads").every((c) => c.server && c.variant.startsWith(`${c.server}-`)),
    "old manifest cells get their server",
  );
  // the claims the run kept (catalogue/mcp-db/claims.json, sides with variant faucet-indexed) are read as server + state
  const kept = JSON.parse(readFileSync(path.join(site, "src", "generated", "catalogues.json"), "utf8"))[OLD_RUN][
    "mcp-db"
  ];
  assert.equal(kept.from, "run");
  const sides = (
    kept.claims.claims as Array<{ a: { server?: string; variant?: string }; b: { server?: string; variant?: string } }>
  ).flatMap((c) => [c.a, c.b]);
  assert.ok(
    sides.length > 0 &&
      sides.every((x) => x.server === "faucet" && (x.variant === "indexed" || x.variant === "baseline")),
    JSON.stringify(sides),
  );
  const aggs = JSON.parse(readFileSync(path.join(site, "public", "data", "aggregates.json"), "utf8"))
    .aggregates as Array<Record<string, string | number>>;
  const tp = aggs.filter((a) => a.study === "mcp-db" && a.workload === "point_reads" && a.metric === "throughput");
  assert.equal(tp.length, 3, "one aggregate per server");
  assert.ok(tp.every((a) => a.n === 2));
});
