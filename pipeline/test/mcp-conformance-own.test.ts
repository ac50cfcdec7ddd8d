// The own checks (bench-scripts/studies/mcp-servers/own_checks.py) and the revision negotiation,
// run through suite-conformance against stub servers in this process.
import { test } from "node:test";
import { spawnSync } from "node:child_process";
import { parse } from "../parsers/mcp-conformance.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  script,
  scenariosFile,
  suiteMissing,
  pythonMissing,
  conformance,
  goodSchema,
  toolServer,
  withServer,
} from "./mcp-conformance-stubs.ts";

const ownOnly = "invalid-arguments-rejected,unknown-tool-rejected,protocol-negotiation";

test("own checks: a server that answers schema-violating and unknown-tool calls normally fails both, with what came back", {
  skip: pythonMissing || suiteMissing,
  timeout: 60_000,
}, async () => {
  const report = await withServer(toolServer(false), (url) => conformance(url, ownOnly, 10));
  const inv = report.scenarios.find((s: { scenario: string }) => s.scenario === "invalid-arguments-rejected");
  const unk = report.scenarios.find((s: { scenario: string }) => s.scenario === "unknown-tool-rejected");
  assert.equal(inv.status, "fail");
  assert.equal(inv.own, true);
  assert.match(inv.message, /get_user_cart with user_id as int: a normal result/);
  assert.match(inv.message, /get_user_cart with no user_id: a normal result/);
  assert.equal(unk.status, "fail");
  assert.match(unk.message, /samebox_no_such_tool: a normal result/);
  const ms = parse({ stdout: JSON.stringify(report) });
  assert.equal(ms.find((m) => m.metric === "conformance_invalid_arguments_rejected")?.value, 0);
  assert.equal(ms.find((m) => m.metric === "conformance_unknown_tool_rejected")?.value, 0);
});

test("own checks: a validating server passes both (isError for bad arguments, JSON-RPC error for an unknown tool)", {
  skip: pythonMissing || suiteMissing,
  timeout: 60_000,
}, async () => {
  const report = await withServer(toolServer(true), (url) => conformance(url, ownOnly, 10));
  for (const s of report.scenarios) assert.equal(s.status, "pass", `${s.scenario}: ${s.message}`);
  assert.equal(report.scenarios.length, 2);
  assert.equal(parse({ stdout: JSON.stringify(report) }).find((m) => m.metric === "conformance_passed")?.value, 2);
});

test("own check input-schema-valid: a tool whose inputSchema breaks JSON Schema 2020-12's forms fails it, each problem named; a well-formed one passes", {
  skip: pythonMissing || suiteMissing,
  timeout: 60_000,
}, async () => {
  const bad = {
    type: "object",
    properties: { user_id: { type: "str" }, tags: { type: "array", items: 5 } },
    required: "user_id",
    anyOf: [],
  };
  const report = await withServer(toolServer(true, bad), (url) => conformance(url, "input-schema-valid", 10));
  const s = report.scenarios.find((x: { scenario: string }) => x.scenario === "input-schema-valid");
  assert.equal(s.status, "fail");
  assert.equal(s.own, true);
  assert.match(s.message, /get_user_cart: inputSchema.required "user_id" is not an array of unique strings/);
  assert.match(s.message, /inputSchema.properties.user_id.type "str" is not a JSON type name/);
  assert.equal(
    parse({ stdout: JSON.stringify(report) }).find((m) => m.metric === "conformance_input_schema_valid")?.value,
    0,
  );
  const notObject = await withServer(toolServer(true, { type: "string" }), (url) =>
    conformance(url, "input-schema-valid", 10),
  );
  assert.match(notObject.scenarios[0].message, /inputSchema.type is "string", not "object"/);
  const good = await withServer(
    toolServer(true, { ...goodSchema, $defs: { id: { type: ["string", "null"] } }, additionalProperties: false }),
    (url) => conformance(url, "input-schema-valid", 10),
  );
  assert.equal(good.scenarios[0].status, "pass", good.scenarios[0].message);
});

test("negotiated revision: per client revision, the protocolVersion the server answered", {
  skip: pythonMissing || suiteMissing,
  timeout: 60_000,
}, async () => {
  const report = await withServer(toolServer(true), (url) => conformance(url, ownOnly, 10));
  const by = Object.fromEntries(
    report.negotiated.map((n: { requested: string; answered: string }) => [n.requested, n.answered]),
  );
  assert.deepEqual(by, {
    "2024-11-05": "2024-11-05",
    "2025-06-18": "2025-06-18",
    "2025-11-25": "2025-06-18",
    "2026-07-28": "2025-06-18",
  });
  assert.throws(
    () => parse({ stdout: JSON.stringify({ ...report, negotiated: [{ requested: 1 }] }) }),
    /negotiated must be/,
  );
});

test("conformance-scenarios.json own_checks are exactly the checks own_checks.py runs, each with why and failure", {
  skip: pythonMissing,
}, () => {
  const doc = JSON.parse(readFileSync(scenariosFile, "utf8"));
  const r = spawnSync(
    "python3",
    [
      "-c",
      "import sys, json; sys.path.insert(0, sys.argv[1]); import own_checks; print(json.dumps(own_checks.OWN_CHECKS))",
      path.dirname(script),
    ],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(
    doc.own_checks.checks.map((c: { scenario: string }) => c.scenario),
    JSON.parse(r.stdout),
  );
  for (const c of doc.own_checks.checks) assert.ok(c.why && c.failure, c.scenario);
  const suite = [
    ...doc.applicable.map((a: { scenario: string }) => a.scenario),
    ...doc.not_applicable.flatMap((n: { scenarios: string[] }) => n.scenarios),
  ];
  for (const c of doc.own_checks.checks)
    assert.ok(!suite.includes(c.scenario), `${c.scenario} is not a suite scenario name`);
});

// ---- mcp-load checked by the suite's client scenarios (bench-scripts/loadgen/mcp-load/client-conformance).
