import { spawn } from "node:child_process";
import { createWriteStream, existsSync } from "node:fs";
import path from "node:path";

export interface VerbResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  seconds: number;
}

// Exit codes shared by every verb (bench-scripts/README.md).
export const EXIT_UNAVAILABLE = 3; // not available on this OS/machine: cell skipped
export const EXIT_WRONG_ANSWER = 4; // result checksum mismatch: cell wrong_answer

// Runs one verb script in its own process group, so a timeout kills the tool and everything it
// started. stdout/stderr are kept in memory and, when files are given, streamed there as they come.
export function runVerb(
  script: string,
  args: string[],
  opts: { env?: Record<string, string>; timeoutS: number; stdoutFile?: string; stderrFile?: string; cwd?: string },
): Promise<VerbResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    if (!existsSync(script)) {
      resolve({ code: 127, stdout: "", stderr: `missing verb script ${script}\n`, timedOut: false, seconds: 0 });
      return;
    }
    const child = spawn("bash", [script, ...args], {
      cwd: opts.cwd ?? path.dirname(script),
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const outFile = opts.stdoutFile ? createWriteStream(opts.stdoutFile) : null;
    const errFile = opts.stderrFile ? createWriteStream(opts.stderrFile) : null;
    child.stdout.on("data", (b: Buffer) => {
      out.push(b);
      outFile?.write(b);
    });
    child.stderr.on("data", (b: Buffer) => {
      err.push(b);
      errFile?.write(b);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        /* already gone */
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          /* gone */
        }
      }, 5000).unref();
    }, opts.timeoutS * 1000);
    const finish = (code: number | null) => {
      clearTimeout(timer);
      const done = () =>
        resolve({
          code: timedOut ? null : code,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr:
            Buffer.concat(err).toString("utf8") +
            (timedOut ? `\nsamebox: timed out after ${opts.timeoutS}s and was killed\n` : ""),
          timedOut,
          seconds: (performance.now() - started) / 1000,
        });
      let pending = (outFile ? 1 : 0) + (errFile ? 1 : 0);
      if (!pending) return done();
      if (timedOut) errFile?.write(`\nsamebox: timed out after ${opts.timeoutS}s and was killed\n`);
      for (const f of [outFile, errFile])
        f?.end(() => {
          if (--pending === 0) done();
        });
    };
    child.on("error", (e) => {
      err.push(Buffer.from(String(e)));
      finish(127);
    });
    child.on("close", (code) => finish(code));
  });
}

// Parses `KEY=VALUE` lines (the env and config verbs).
export function parseKeyValues(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = line.match(/^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/);
    if (m) out[m[1]] = m[2];
  }
  return out;
}
