// Our Go modules build with one Go: every go.mod in the repository names the same `go` version, and the
// modules that require pgx directly require the same one (a system under test's own indirect
// requirements, e.g. Faucet's, stay as its upstream pins them).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";
import { repoRoot } from "./helpers.ts";

const mods = execFileSync("git", ["ls-files", "*go.mod"], { cwd: repoRoot, encoding: "utf8" })
  .split("\n")
  .filter(Boolean);

/** The `go` directive and the direct (not `// indirect`) requirement of a module path, from a go.mod's text. */
export function goModFacts(text: string, dep: string): { go: string | undefined; direct: string | undefined } {
  const go = text.match(/^go (\S+)$/m)?.[1];
  const line = text.split("\n").find((l) => l.trim().startsWith(`${dep} `) || l.trim().startsWith(`require ${dep} `));
  const direct =
    line && !line.includes("// indirect")
      ? line
          .trim()
          .replace(/^require /, "")
          .split(/\s+/)[1]
      : undefined;
  return { go, direct };
}

test("the facts are read from go.mod text (the check can fail)", () => {
  const t =
    "module m\n\ngo 1.25.0\n\nrequire (\n\tgithub.com/jackc/pgx/v5 v5.8.0\n\tgithub.com/x/y v1.0.0 // indirect\n)\n";
  assert.deepEqual(goModFacts(t, "github.com/jackc/pgx/v5"), { go: "1.25.0", direct: "v5.8.0" });
  assert.deepEqual(goModFacts(t, "github.com/x/y"), { go: "1.25.0", direct: undefined });
});

test("every Go module names one go version and one direct pgx", () => {
  assert.ok(mods.length >= 10, `only ${mods.length} go.mod files found`);
  const facts = mods.map((m) => ({
    m,
    ...goModFacts(readFileSync(path.join(repoRoot, m), "utf8"), "github.com/jackc/pgx/v5"),
  }));
  const gos = new Set(facts.map((f) => f.go));
  assert.equal(gos.size, 1, `go versions: ${facts.map((f) => `${f.m}: ${f.go}`).join(", ")}`);
  const pgx = facts.filter((f) => f.direct);
  assert.ok(pgx.length >= 2);
  assert.equal(new Set(pgx.map((f) => f.direct)).size, 1, `pgx: ${pgx.map((f) => `${f.m}: ${f.direct}`).join(", ")}`);
});
