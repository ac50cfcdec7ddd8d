// `samebox cost`: the cloud's cost goes into manifest.json through the pipeline, its one writer.
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { cli, repoRoot, tempDir } from "./helpers.ts";

const RUN = "20261123T102446Z-quick-vm"; // a small committed run: the real schema
const block = (usd: number | null) => ({
  usd,
  usd_per_hour: 0.612,
  instance_type: "c6a.4xlarge",
  region: "us-east-1",
  billed_seconds: 1500,
  basis: "EC2 Linux on-demand, per second",
});

function copyRun(): string {
  const dir = path.join(tempDir("samebox-cost-"), RUN);
  cpSync(path.join(repoRoot, "data", "runs", RUN), dir, { recursive: true });
  return dir;
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));

test("samebox cost stores the block once; a second block never re-prices the run; the manifest stays valid", () => {
  const dir = copyRun();
  const file = path.join(dir, "..", "cost.json");
  writeFileSync(file, JSON.stringify(block(0.255)));
  const first = cli(["cost", dir, "--block", file]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /cost stored/);
  assert.equal(manifestOf(dir).cost.usd, 0.255);
  writeFileSync(file, JSON.stringify(block(9.99)));
  const second = cli(["cost", dir, "--block", file]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /already has a cost, kept/);
  assert.equal(manifestOf(dir).cost.usd, 0.255);
  assert.equal(cli(["validate", dir]).code, 0);
});

test("samebox cost refuses a block the schema rejects or that is not JSON, naming what is wrong, and writes nothing", () => {
  const dir = copyRun();
  const before = readFileSync(path.join(dir, "manifest.json"), "utf8");
  const file = path.join(dir, "..", "cost.json");
  writeFileSync(file, JSON.stringify({ usd: "cheap" }));
  const bad = cli(["cost", dir, "--block", file]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /with this cost is invalid/);
  writeFileSync(file, "{not json");
  const notJson = cli(["cost", dir, "--block", file]);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /not JSON/);
  assert.equal(readFileSync(path.join(dir, "manifest.json"), "utf8"), before);
});
