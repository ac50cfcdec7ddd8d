import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { repoRoot, tempDir } from "./helpers.ts";
import {
  raw,
  script,
  scenariosFile,
  suiteBin,
  node,
  suiteMissing,
  pythonMissing,
  run,
  openServer,
  listen,
  conformance,
} from "./mcp-conformance-stubs.ts";
import { parse, scenarioMetric } from "../parsers/mcp-conformance.ts";
import { parserFor } from "../parsers/index.ts";
import { ParseError } from "../lib/errors.ts";

// the official MCP conformance suite (@modelcontextprotocol/conformance) on the servers the
// MCP studies measure. Fixtures are real cells captured from dev runs of the conformance workload
// (fixtures/raw/mcp-conformance/<system>/stdout.txt). The end-to-end tests start stub servers in this
// process and run bench-scripts/studies/mcp-servers/suite-conformance against them.

test("parser: every captured cell gives one 0/1 record per scenario, passed and applicable", () => {
  const cells = readdirSync(raw).filter((d) => existsSync(path.join(raw, d, "stdout.txt")));
  assert.ok(cells.length >= 2, "at least two captured cells");
  for (const c of cells) {
    const stdout = readFileSync(path.join(raw, c, "stdout.txt"), "utf8");
    const report = JSON.parse(stdout);
    const ms = parserFor("mcp-conformance")({ cellDir: path.join(raw, c), stdout, workload: {} });
    for (const s of report.scenarios) {
      const m = ms.find((x) => x.metric === scenarioMetric(s.scenario));
      assert.equal(m?.value, s.status === "pass" ? 1 : 0, `${c}: ${s.scenario}`);
    }
    assert.equal(
      ms.find((x) => x.metric === "conformance_passed")?.value,
      report.scenarios.filter((s: { status: string }) => s.status === "pass").length,
    );
    assert.equal(ms.find((x) => x.metric === "conformance_applicable")?.value, report.scenarios.length);
  }
});

test("parser: a failing captured server (faucet) reports dns-rebinding-protection as 0", () => {
  const stdout = readFileSync(path.join(raw, "faucet-sqlite", "stdout.txt"), "utf8");
  const ms = parse({ stdout });
  assert.equal(ms.find((m) => m.metric === "conformance_dns_rebinding_protection")?.value, 0);
  assert.equal(ms.find((m) => m.metric === "conformance_server_initialize")?.value, 1);
});

test("parser: bad reports are rejected with what was wrong", () => {
  assert.throws(() => parse({ stdout: "no json" }), ParseError);
  assert.throws(() => parse({ stdout: '{"tool":"k6"}' }), /expected "mcp-conformance"/);
  assert.throws(() => parse({ stdout: '{"tool":"mcp-conformance","scenarios":[]}' }), /no scenarios/);
  assert.throws(
    () => parse({ stdout: '{"tool":"mcp-conformance","scenarios":[{"scenario":"ping","status":"ok"}]}' }),
    /valid: pass, fail/,
  );
});

test("applicable + not-applicable scenarios are exactly the pinned suite's server scenarios", {
  skip: suiteMissing,
}, () => {
  const r = spawnSync(node, [suiteBin, "list"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const server = r.stdout.split(/\n\s*\n|Client scenarios/)[0];
  const listed = [...server.matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1]).sort();
  const doc = JSON.parse(readFileSync(scenariosFile, "utf8"));
  const ours = [
    ...doc.applicable.map((a: { scenario: string }) => a.scenario),
    ...doc.not_applicable.flatMap((n: { scenarios: string[] }) => n.scenarios),
  ].sort();
  assert.ok(listed.length > 10, `the suite listed its server scenarios: ${listed.length}`);
  assert.deepEqual(ours, listed);
  for (const s of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"])
    assert.ok(
      doc.applicable.some((a: { scenario: string }) => a.scenario === s),
      s,
    );
});

test("--ensure-installed: the suite and Node at package-lock.json's versions; a missing or other version is named and exits 3", {
  skip: pythonMissing,
}, async () => {
  const lock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")).packages;
  const pinnedSuite = lock["node_modules/@modelcontextprotocol/conformance"].version;
  const pinnedNode = lock["node_modules/node"].version;
  const ok = spawnSync("python3", [script, "--ensure-installed", "--check-only"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (!suiteMissing) {
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), `mcp conformance suite ${pinnedSuite}, node ${pinnedNode}`);
  }
  // A repo whose lock pins the same versions but whose node_modules holds another suite and no Node.
  const repo = tempDir("h22-lock-");
  writeFileSync(
    path.join(repo, "package-lock.json"),
    JSON.stringify({
      packages: {
        "node_modules/@modelcontextprotocol/conformance": { version: pinnedSuite },
        "node_modules/node": { version: pinnedNode },
      },
    }),
  );
  mkdirSync(path.join(repo, "node_modules", "@modelcontextprotocol", "conformance"), { recursive: true });
  writeFileSync(
    path.join(repo, "node_modules", "@modelcontextprotocol", "conformance", "package.json"),
    JSON.stringify({ version: "0.0.1" }),
  );
  const wrong = spawnSync("python3", [script, "--ensure-installed", "--check-only", "--repo", repo], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(wrong.status, 3, wrong.stdout + wrong.stderr);
  assert.match(wrong.stdout, new RegExp(`conformance 0\\.0\\.1 \\(pinned ${pinnedSuite.replaceAll(".", "\\.")}\\)`));
  assert.match(wrong.stdout, new RegExp(`node not installed \\(pinned ${pinnedNode.replaceAll(".", "\\.")}\\)`));
  writeFileSync(path.join(repo, "package-lock.json"), JSON.stringify({ packages: {} }));
  const unpinned = spawnSync("python3", [script, "--ensure-installed", "--check-only", "--repo", repo], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(unpinned.status, 3);
  assert.match(unpinned.stdout, /pins no node_modules\/@modelcontextprotocol\/conformance, node_modules\/node/);
});

test("both MCP studies' install verbs ensure the pinned suite when a conformance cell is planned", () => {
  for (const study of ["mcp-servers", "mcp-db"]) {
    const text = readFileSync(path.join(repoRoot, "bench-scripts", "studies", study, "install"), "utf8");
    assert.match(text, /suite-conformance" --ensure-installed\)" \|\| not_available/, study);
    assert.match(
      text,
      /if [^\n]*(conformance "\$\{WORKLOADS|WORKLOADS[^\n]*\}" conformance)[^\n]*; then\n[^\n]*--ensure-installed/,
      `${study}: only when the plan has conformance`,
    );
  }
});

test("a stub server answering 200 to a foreign Host fails dns-rebinding-protection", {
  skip: suiteMissing || pythonMissing,
  timeout: 120_000,
}, async () => {
  const server = openServer();
  try {
    const report = await conformance(await listen(server), "dns-rebinding-protection", 30);
    const s = report.scenarios[0];
    assert.equal(s.status, "fail");
    assert.match(s.message, /4xx|got 200/);
    assert.equal(report.passed, 0);
    assert.equal(
      parse({ stdout: JSON.stringify(report) }).find((m) => m.metric === "conformance_dns_rebinding_protection")?.value,
      0,
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("a hung scenario ends as failed within its bound", {
  skip: suiteMissing || pythonMissing,
  timeout: 120_000,
}, async () => {
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer(() => {}); // accepts, never answers
  server.on("connection", (s) => sockets.add(s));
  try {
    const bound = 4;
    const started = Date.now();
    const report = await conformance(await listen(server), "ping", bound);
    const elapsed = (Date.now() - started) / 1000;
    const s = report.scenarios[0];
    assert.equal(s.status, "fail");
    assert.equal(s.timed_out, true);
    assert.match(s.message, /timed out after 4s/);
    assert.ok(elapsed < bound + 3 + 10, `ended in ${elapsed.toFixed(1)} s (bound ${bound} s + 3 s kill grace)`);
  } finally {
    for (const s of sockets) s.destroy();
    server.close();
  }
});

// ---- samebox's own checks (own_checks.py via suite-conformance) and the negotiated revision.

const goMissing = spawnSync("go", ["version"]).status === 0 ? false : "go is not available";
const clientScript = path.join(repoRoot, "bench-scripts", "loadgen", "mcp-load", "client-conformance");

test("mcp-load --conformance-client passes the suite's initialize and tools_call, and fails initialize when it offers a revision the suite rejects", {
  skip: suiteMissing || pythonMissing || goMissing,
  timeout: 240_000,
}, async () => {
  const bin = path.join(tempDir("h22-mcpload-"), "mcp-load");
  await run("go", ["build", "-o", bin, "./cmd/mcp-load"], {
    cwd: path.join(repoRoot, "bench-scripts", "loadgen", "mcp-load"),
    timeout: 180_000,
  });
  const good = JSON.parse(
    (
      await run(
        "python3",
        [
          clientScript,
          "--mcp-load",
          bin,
          "--out",
          tempDir("h22-cc-"),
          "--only",
          "initialize,tools_call",
          "--timeout-s",
          "20",
        ],
        { timeout: 120_000 },
      )
    ).stdout,
  );
  for (const s of good.scenarios) assert.equal(s.status, "pass", `${s.scenario}: ${s.message}`);
  assert.equal(good.client, "mcp-load");
  // 2025-03-26 is a revision mcp-load speaks but the suite's initialize scenario does not accept.
  const old = JSON.parse(
    (
      await run(
        "python3",
        [
          clientScript,
          "--mcp-load",
          bin,
          "--out",
          tempDir("h22-cc-"),
          "--only",
          "initialize",
          "--protocol",
          "2025-03-26",
          "--timeout-s",
          "20",
        ],
        { timeout: 120_000 },
      )
    ).stdout,
  );
  assert.equal(old.scenarios[0].status, "fail");
  assert.match(old.scenarios[0].message, /Version mismatch/);
});

test("parser: captured cells with own checks — Quarkus accepts a schema-violating call; Toolbox fails dns-rebinding without --allowed-hosts and passes with it", () => {
  const read = (d: string) => parse({ stdout: readFileSync(path.join(raw, d, "stdout.txt"), "utf8") });
  const get = (ms: ReturnType<typeof parse>, m: string) => ms.find((x) => x.metric === m)?.value;
  const quarkus = read("mcp-quarkus");
  assert.equal(get(quarkus, "conformance_invalid_arguments_rejected"), 0);
  assert.equal(get(quarkus, "conformance_unknown_tool_rejected"), 1);
  assert.equal(get(read("toolbox-sqlite"), "conformance_dns_rebinding_protection"), 0);
  assert.equal(get(read("toolboxsafe-sqlite"), "conformance_dns_rebinding_protection"), 1);
  const report = JSON.parse(readFileSync(path.join(raw, "toolboxsafe-sqlite", "stdout.txt"), "utf8"));
  assert.ok(
    report.scenarios.some((s: { own?: boolean }) => s.own),
    "own checks are marked in the report",
  );
  assert.equal(
    report.negotiated.find((n: { requested: string }) => n.requested === "2025-06-18")?.answered,
    "2025-06-18",
  );
});

test("quick plans mcp-db's conformance for every server (Faucet, DBHub, Toolbox both ways) on each database, and the load cells on Faucet only (no claim reads Toolbox's speed)", async () => {
  const { planRun } = await import("../runner/plan.ts");
  const plan = planRun({ profile: "quick", studies: ["mcp-db"] });
  const variants = (workload: string, system: string) =>
    [...new Set(plan.cells.filter((c) => c.workload === workload && c.system === system).map((c) => c.variant))].sort();
  for (const system of plan.profile.studies["mcp-db"].systems) {
    assert.deepEqual(
      variants("conformance", system),
      ["dbhub-indexed", "faucet-indexed", "toolbox-indexed", "toolboxsafe-indexed"],
      system,
    );
    for (const workload of ["session_discovery", "point_reads", "concurrency_sweep"])
      assert.deepEqual(variants(workload, system), ["faucet-indexed"], `${workload} on ${system}`);
  }
});
