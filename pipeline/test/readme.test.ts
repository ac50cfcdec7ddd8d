// The README is a new user's only guide: every path it names exists, every command and option it
// shows is one the CLI accepts, its study table lists exactly the study folders, the test suites it
// points at exist, every time it gives is a profile's measured time, and it stays an entry (under 150
// lines, no issue numbers).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";
import { repoRoot } from "./helpers.ts";

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const TOP = ["bench-scripts/", "pipeline/", "site/", "data/", "terraform/", "docs/", ".github/", ".ci/"];

/** Every `code span` of the README (fenced blocks included, line by line). */
function codeSpans(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  for (const block of text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) spans.push(...block[1].split("\n"));
  return spans;
}

/** Repository paths named in the README, without placeholders (<study>) or globs. */
export function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const span of codeSpans(text)) {
    for (const word of span.split(/[\s,()]+/)) {
      const p = word.replace(/[.:;]+$/, "");
      if (!TOP.some((t) => p.startsWith(t)) || /[<*{]/.test(p)) continue;
      out.add(p);
    }
  }
  return [...out].sort();
}

test("every repository path the README names exists", () => {
  const paths = namedPaths(readme);
  assert.ok(paths.length >= 20, `only ${paths.length} paths found: the extraction broke`);
  const missing = paths.filter(
    (p) =>
      !existsSync(path.join(repoRoot, p)) &&
      !p.startsWith("site/dist/") &&
      !p.startsWith("site/public/data/") &&
      !p.startsWith("site/src/generated/"),
  );
  assert.deepEqual(missing, [], `README names paths that do not exist: ${missing.join(", ")}`);
});

test("the path extraction finds a wrong path (the check can fail)", () => {
  assert.deepEqual(namedPaths("built to `site/dst/` by `pipeline/bin/mian`, see `bench-scripts/studies/<study>/`"), [
    "pipeline/bin/mian",
    "site/dst/",
  ]);
});

test("the README's study table lists exactly the study folders", () => {
  const table = [...readme.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]).sort();
  const folders = readdirSync(path.join(repoRoot, "bench-scripts/studies"), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(repoRoot, "bench-scripts/studies", d.name, "study.json")))
    .map((d) => d.name)
    .sort();
  assert.deepEqual(table, folders);
});

test("every profile, samebox command and test suite the README names exists", () => {
  const profiles = readdirSync(path.join(repoRoot, "pipeline/profiles")).map((f) => f.replace(/\.json$/, ""));
  const named = readme.match(/--profile ([a-z0-9|]+)/g)!.flatMap((m) => m.slice("--profile ".length).split("|"));
  for (const p of named) assert.ok(profiles.includes(p), `README names profile ${p}; profiles: ${profiles.join(", ")}`);
  const help = execFileSync(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", path.join(repoRoot, "pipeline/cli.ts"), "--help"],
    { encoding: "utf8" },
  );
  const commands = [...help.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]);
  for (const m of readme.matchAll(/npm run samebox -- ([a-z][a-z-]*)/g))
    assert.ok(commands.includes(m[1]), `README shows 'samebox ${m[1]}'; commands: ${commands.join(", ")}`);
  const suites = readdirSync(path.join(repoRoot, "pipeline/bin/test.d"));
  for (const m of readme.matchAll(/pipeline\/bin\/test ((?:\d+ ?)+)/g)) {
    for (const prefix of m[1].trim().split(" "))
      assert.ok(
        suites.some((s) => s.startsWith(prefix)),
        `README runs suites '${prefix}': none starts so`,
      );
  }
});

/** Times the README gives ("N min", "N h") that are not some profile's `measured.minutes` named beside them. */
export function unsourcedTimes(text: string, measured: Record<string, number>): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(\d+(?:\.\d+)?) ?(min|minutes|h|hours)\b/g)) {
    const minutes = Number(m[1]) * (m[2].startsWith("h") ? 60 : 1);
    const near = text.slice(m.index, m.index + 240);
    const sourced = Object.entries(measured).some(
      ([name, value]) => value === minutes && near.includes(`pipeline/profiles/${name}.json`),
    );
    if (!sourced) out.push(m[0]);
  }
  return out;
}

test("every time the README gives is a profile's measured time, named beside it", () => {
  const measured: Record<string, number> = {};
  for (const f of readdirSync(path.join(repoRoot, "pipeline/profiles")).filter((f) => f.endsWith(".json"))) {
    const p = JSON.parse(readFileSync(path.join(repoRoot, "pipeline/profiles", f), "utf8"));
    if (p.measured) measured[f.replace(/\.json$/, "")] = p.measured.minutes;
  }
  assert.deepEqual(unsourcedTimes(readme, measured), []);
  assert.deepEqual(unsourcedTimes("takes about 8 min on 2 cores", measured), ["8 min"], "the check can fail");
  assert.deepEqual(
    unsourcedTimes("takes 1.0 min (`measured` in `pipeline/profiles/quick.json`)", { quick: 2 }),
    ["1.0 min"],
    "a time that differs from the profile's is caught",
  );
});

test("the README is an entry: under 150 lines, no issue numbers", () => {
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert.ok(lines < 150, `README has ${lines} lines`);
  assert.deepEqual(readme.match(/\bissues? #?\d+|(?<![\w&/])#\d+\b/gi) ?? [], []);
});
