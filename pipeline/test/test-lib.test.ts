// The one counter of the test command (pipeline/bin/test-lib.sh): every suite's count comes from it, so it
// must read each runner's summary exactly and turn a lost summary or a silent non-zero exit into a failure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const lib = path.resolve(import.meta.dirname, "../bin/test-lib.sh");

/** Runs `fn rc` of test-lib.sh on a log holding `text`; returns the pass and fail it added. */
function counted(fn: string, rc: number, text: string): { pass: number; fail: number; out: string } {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "test-lib-")), "log");
  writeFileSync(file, text);
  const r = spawnSync(
    "bash",
    ["-c", `source "$1"; pass=2; fail=0; ${fn} label ${rc} "$2" >/dev/null; echo "$pass $fail"`, "_", lib, file],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const [pass, fail] = r.stdout.trim().split(/\s+/).map(Number);
  return { pass, fail, out: r.stdout };
}

test("count_node adds node:test's last summary and counts a lost summary or a silent non-zero exit as one failure", () => {
  const spec = "✔ a (1ms)\n✖ b (2ms)\nℹ tests 9\nℹ suites 0\nℹ pass 7\nℹ fail 2\nℹ cancelled 0\n";
  assert.deepEqual(pick(counted("count_node", 1, spec)), { pass: 9, fail: 2 });
  assert.deepEqual(pick(counted("count_node", 0, "ℹ pass 5\nℹ fail 0\n")), { pass: 7, fail: 0 });
  assert.deepEqual(pick(counted("count_node", 1, "ℹ pass 5\nℹ fail 0\n")), { pass: 7, fail: 1 });
  assert.deepEqual(pick(counted("count_node", 134, "Segmentation fault\n")), { pass: 2, fail: 1 });
});

test("count_pytest reads passed, failed and errors from pytest's summary line", () => {
  assert.deepEqual(pick(counted("count_pytest", 1, "....F.E\n=== 5 passed, 1 failed, 1 error in 2.1s ===\n")), {
    pass: 7,
    fail: 2,
  });
  assert.deepEqual(pick(counted("count_pytest", 0, "......\n6 passed in 0.5s\n")), { pass: 8, fail: 0 });
  assert.deepEqual(pick(counted("count_pytest", 2, "ImportError: no module named moto\n")), { pass: 2, fail: 1 });
});

test("count_go_json counts every test and subtest event, and a package that failed without a failing test as one", () => {
  const ev = (o: object) => JSON.stringify(o);
  const events = [
    ev({ Action: "run", Package: "p", Test: "TestA" }),
    ev({ Action: "pass", Package: "p", Test: "TestA" }),
    ev({ Action: "pass", Package: "p", Test: "TestA/sub" }),
    ev({ Action: "fail", Package: "p", Test: "TestB" }),
    ev({ Action: "fail", Package: "p" }),
  ].join("\n");
  assert.deepEqual(pick(counted("count_go_json", 1, `${events}\n`)), { pass: 4, fail: 1 });
  const buildFail = [
    ev({ Action: "build-output", Output: "x.go:1: syntax error\n" }),
    ev({ Action: "fail", Package: "q" }),
  ].join("\n");
  assert.deepEqual(pick(counted("count_go_json", 1, `${buildFail}\n`)), { pass: 2, fail: 1 });
});

function pick(r: { pass: number; fail: number }): { pass: number; fail: number } {
  return { pass: r.pass, fail: r.fail };
}
