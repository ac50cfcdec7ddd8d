import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { fixtures, nodeBin, repoRoot, tempDir } from "./helpers.ts";
import { describeErrors, validateStudy, validateSystem, validateWorkload } from "../lib/schema.ts";
import { loadStudy, loadSystem, studyMismatch, studyNames, systemNames } from "../lib/catalog.ts";
import { parsers } from "../parsers/index.ts";

// The contract files between bench-scripts, pipeline and site (study.json, system.json, workloads/*.json)
// against pipeline/schema/{study,system,workload}.schema.json: every file in the tree must pass, and a
// broken file must be refused by catalog.ts with one line naming the file, the field and what is valid.

const benchScripts = path.join(repoRoot, "bench-scripts");
const catalogTs = path.join(repoRoot, "pipeline", "lib", "catalog.ts");

function jsonFiles(): { kind: "study" | "system" | "workload"; file: string }[] {
  const out: { kind: "study" | "system" | "workload"; file: string }[] = [];
  for (const root of [benchScripts, path.join(fixtures, "fake-bench")]) {
    const systems = path.join(root, "systems");
    for (const s of readdirSync(systems)) {
      const f = path.join(systems, s, "system.json");
      if (existsSync(f)) out.push({ kind: "system", file: f });
    }
    const studies = path.join(root, "studies");
    for (const st of readdirSync(studies)) {
      const f = path.join(studies, st, "study.json");
      if (!existsSync(f)) continue;
      out.push({ kind: "study", file: f });
      const wdir = path.join(studies, st, "workloads");
      if (existsSync(wdir))
        for (const w of readdirSync(wdir).filter((n) => n.endsWith(".json")))
          out.push({ kind: "workload", file: path.join(wdir, w) });
    }
  }
  return out;
}

const validators: Record<string, ValidateFunction> = {
  study: validateStudy,
  system: validateSystem,
  workload: validateWorkload,
};

test("every study.json, system.json and workload file in the tree (and the runner's fixtures) passes its schema", () => {
  const files = jsonFiles();
  const count = (k: string) => files.filter((f) => f.kind === k && f.file.startsWith(benchScripts)).length;
  // Five studies, their ~100 workloads and every system folder: an empty glob must not pass silently.
  assert.ok(
    count("study") >= 5 && count("workload") >= 90 && count("system") >= 16,
    `found ${count("study")} studies, ${count("workload")} workloads, ${count("system")} systems`,
  );
  const bad: string[] = [];
  for (const { kind, file } of files) {
    const v = validators[kind];
    if (!v(JSON.parse(readFileSync(file, "utf8"))))
      bad.push(`${path.relative(repoRoot, file)}: ${describeErrors(v.errors)}`);
  }
  assert.deepEqual(bad, []);
});

test("catalog.ts loads every study and system in the tree (schema plus the cross-checks: names match folders, every study has systems that can run it, workload_order names workloads)", () => {
  for (const s of systemNames()) assert.equal(loadSystem(s).name, s);
  const external = systemNames()
    .map(loadSystem)
    .filter((s) => s.kind === "external");
  assert.ok(
    external.some((s) => s.name === "pgwire"),
    "pgwire is a system of kind external",
  );
  for (const st of studyNames()) {
    const def = loadStudy(st);
    assert.ok(def.workloads.length > 0, `${st} has workloads`);
    // no study is orphaned: some system in the tree has what it requires
    assert.ok(
      systemNames().some((s) => studyMismatch(loadSystem(s), def) === null),
      `${st}: some system can run it`,
    );
  }
});

test("the schema's tool list is exactly the parsers' (a new tool needs its parser, a parser its schema entry)", () => {
  const schema = JSON.parse(readFileSync(path.join(repoRoot, "pipeline", "schema", "workload.schema.json"), "utf8"));
  assert.deepEqual([...schema.properties.tool.enum].sort(), Object.keys(parsers).sort());
});

// A private copy of the fixture bench-scripts with one file broken, loaded by catalog.ts in a child
// process (paths.ts reads SAMEBOX_BENCH_SCRIPTS when it is imported).
function loadBroken(
  edit: (bench: string) => void,
  call: string,
): { code: number | null; stderr: string; bench: string } {
  const bench = path.join(tempDir("samebox-contracts-"), "bench");
  cpSync(path.join(fixtures, "fake-bench"), bench, { recursive: true });
  edit(bench);
  const script = `import { loadStudy, loadSystem } from ${JSON.stringify(catalogTs)};
try { ${call}; } catch (e) { process.stderr.write(e.message + "\\n"); process.exit(2); }`;
  const r = spawnSync(nodeBin, ["--disable-warning=ExperimentalWarning", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, SAMEBOX_BENCH_SCRIPTS: bench },
    timeout: 60_000,
  });
  return { code: r.status, stderr: r.stderr, bench };
}

function editJson(file: string, change: (doc: Record<string, unknown>) => void): void {
  const doc = JSON.parse(readFileSync(file, "utf8"));
  change(doc);
  writeFileSync(file, JSON.stringify(doc));
}

const cases: { what: string; edit: (bench: string) => void; call: string; file: string; message: RegExp }[] = [
  {
    what: "a workload without tool",
    edit: (b) => editJson(path.join(b, "studies/toy/workloads/good.json"), (d) => delete d.tool),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/good.json",
    message: /is invalid: \(top\) must have required property 'tool'/,
  },
  {
    what: "a workload with a tool no parser knows",
    edit: (b) => editJson(path.join(b, "studies/toy/workloads/good.json"), (d) => (d.tool = "jmeter")),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/good.json",
    message: /\/tool must be equal to one of the allowed values \(sysbench, pgbench, hyperfine, .*\); got "jmeter"/,
  },
  {
    what: "a workload whose name is not its file name",
    edit: (b) => editJson(path.join(b, "studies/toy/workloads/good.json"), (d) => (d.name = "better")),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/good.json",
    message: /name 'better' does not match its file name/,
  },
  {
    what: "a workload naming systems (profiles pick systems; workloads say what they need)",
    edit: (b) => editJson(path.join(b, "studies/toy/workloads/good.json"), (d) => (d.systems = ["fakedb", "oracle"])),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/good.json",
    message: /\/systems is no longer read: a workload says what it needs in \/requires/,
  },
  {
    what: "a workload requiring an unknown capability",
    edit: (b) => editJson(path.join(b, "studies/toy/workloads/good.json"), (d) => (d.requires = ["telepathy"])),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/good.json",
    message:
      /\/requires\/0 must be equal to one of the allowed values \(sql, pgwire, sysbench, pgbench, parquet, vector, mcp-server, result-cache\); got "telepathy"/,
  },
  {
    what: "a workload whose concurrency is not a list of whole numbers",
    edit: (b) => editJson(path.join(b, "studies/toy/workloads/slow.json"), (d) => (d.concurrency = ["many"])),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/slow.json",
    message: /\/concurrency\/0 must be integer; got "many"/,
  },
  {
    what: "a system of an unknown kind",
    edit: (b) => editJson(path.join(b, "systems/fakedb/system.json"), (d) => (d.kind = "database")),
    call: `loadSystem("fakedb")`,
    file: "systems/fakedb/system.json",
    message: /\/kind must be equal to one of the allowed values \(server, embedded, external\); got "database"/,
  },
  {
    what: "a system whose name is not its folder",
    edit: (b) => editJson(path.join(b, "systems/fakedb/system.json"), (d) => (d.name = "fakedb3")),
    call: `loadSystem("fakedb")`,
    file: "systems/fakedb/system.json",
    message: /name 'fakedb3' does not match its folder 'fakedb'/,
  },
  {
    what: "a system with a misspelt field",
    edit: (b) => editJson(path.join(b, "systems/fakedb/system.json"), (d) => (d.sysbench_drvier = "pgsql")),
    call: `loadSystem("fakedb")`,
    file: "systems/fakedb/system.json",
    message:
      /must NOT have additional properties: 'sysbench_drvier'; valid: name, label, memory_only, kind, capabilities, capability_notes, port, sql, drivers, color, notes/,
  },
  {
    what: "a system with capability sysbench but no sysbench driver",
    edit: (b) => editJson(path.join(b, "systems/fakedb/system.json"), (d) => delete d.drivers),
    call: `loadSystem("fakedb")`,
    file: "systems/fakedb/system.json",
    message: /must have required property 'drivers'/,
  },
  {
    what: "a SQL system without its dialect",
    edit: (b) =>
      editJson(path.join(b, "systems/fakedb/system.json"), (d) => delete (d.sql as Record<string, unknown>).dialect),
    call: `loadSystem("fakedb")`,
    file: "systems/fakedb/system.json",
    message: /\/sql must have required property 'dialect'/,
  },
  {
    what: "a study whose name is not its folder",
    edit: (b) => editJson(path.join(b, "studies/toy/study.json"), (d) => (d.name = "game")),
    call: `loadStudy("toy")`,
    file: "studies/toy/study.json",
    message: /name 'game' does not match its folder 'toy'/,
  },
  {
    what: "a study without requires",
    edit: (b) => editJson(path.join(b, "studies/toy/study.json"), (d) => delete d.requires),
    call: `loadStudy("toy")`,
    file: "studies/toy/study.json",
    message: /must have required property 'requires'/,
  },
  {
    what: "a study listing systems (profiles pick them)",
    edit: (b) => editJson(path.join(b, "studies/toy/study.json"), (d) => (d.systems = ["fakedb"])),
    call: `loadStudy("toy")`,
    file: "studies/toy/study.json",
    message: /\/systems was replaced by \/requires/,
  },
  {
    what: "a study ordering a workload that does not exist",
    edit: (b) => editJson(path.join(b, "studies/toy/study.json"), (d) => (d.workload_order = ["good", "gone"])),
    call: `loadStudy("toy")`,
    file: "studies/toy/study.json",
    message:
      /\/workload_order: 'gone' is not a workload of study toy; valid: burn, burninside, fails, garbage, good, measured, nap, slow, wrong/,
  },
  {
    what: "a study with a malformed seed",
    edit: (b) => editJson(path.join(b, "studies/toy/study.json"), (d) => (d.seed = "two")),
    call: `loadStudy("toy")`,
    file: "studies/toy/study.json",
    message: /\/seed must match pattern .*; got "two"/,
  },
  {
    what: "a workload file that is not JSON",
    edit: (b) => writeFileSync(path.join(b, "studies/toy/workloads/good.json"), "{ name: good"),
    call: `loadStudy("toy")`,
    file: "studies/toy/workloads/good.json",
    message: /is not valid JSON/,
  },
];

for (const c of cases) {
  test(`refused with one line naming the file and the field: ${c.what}`, () => {
    const r = loadBroken(c.edit, c.call);
    try {
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.trim().split("\n");
      assert.equal(lines.length, 1, r.stderr);
      assert.ok(lines[0].startsWith(path.join(r.bench, c.file)), `names the file ${c.file}: ${lines[0]}`);
      assert.match(lines[0], c.message);
    } finally {
      rmSync(path.dirname(r.bench), { recursive: true, force: true });
    }
  });
}

test("the unbroken fixture copy loads (so the refusals above come from the edits)", () => {
  const r = loadBroken(() => {}, `loadStudy("toy"); loadSystem("fakedb"); process.stdout.write("ok")`);
  rmSync(path.dirname(r.bench), { recursive: true, force: true });
  assert.equal(r.code, 0, r.stderr);
});
