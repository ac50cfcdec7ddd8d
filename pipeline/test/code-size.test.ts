// Small enough to read at once: no file in pipeline/ or site/src/ over 400 lines, no function
// in pipeline/ over 80 lines, counted on the committed files as Biome formats them (120 columns).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";
import ts from "typescript";
import { repoRoot } from "./helpers.ts";

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function tracked(...globs: string[]): string[] {
  return execFileSync("git", ["ls-files", ...globs], { cwd: repoRoot, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

/** Lines of every function, method and arrow function in a TypeScript source, longest first. */
export function functionLengths(file: string, text: string): Array<{ lines: number; at: string }> {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ lines: number; at: string }> = [];
  const visit = (n: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n)
    ) {
      const first = src.getLineAndCharacterOfPosition(n.getStart()).line;
      const last = src.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ lines: last - first + 1, at: `${file}:${first + 1}` });
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out.sort((a, b) => b.lines - a.lines);
}

test("function lengths are counted (the check can fail)", () => {
  const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  const [longest] = functionLengths("x.ts", `export function long() {\n${body}\n}\nconst short = () => 1;\n`);
  assert.deepEqual(longest, { lines: 92, at: "x.ts:1" });
});

test(`no file in pipeline/ or site/src/ over ${MAX_FILE_LINES} lines`, () => {
  const files = tracked("pipeline/*.ts", "pipeline/**/*.ts", "site/src/**/*.ts", "site/src/**/*.astro");
  assert.ok(files.length > 100, `only ${files.length} files found`);
  const long = files
    .map((f) => ({ f, n: readFileSync(path.join(repoRoot, f), "utf8").split("\n").length - 1 }))
    .filter((x) => x.n > MAX_FILE_LINES);
  assert.deepEqual(long, [], long.map((x) => `${x.f}: ${x.n} lines`).join(", "));
});

test(`no function in pipeline/ over ${MAX_FUNCTION_LINES} lines`, () => {
  const long = tracked("pipeline/*.ts", "pipeline/**/*.ts")
    .flatMap((f) => functionLengths(f, readFileSync(path.join(repoRoot, f), "utf8")))
    .filter((x) => x.lines > MAX_FUNCTION_LINES);
  assert.deepEqual(long, [], long.map((x) => `${x.at}: ${x.lines} lines`).join(", "));
});
