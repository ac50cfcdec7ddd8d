import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Command, InvalidArgumentError } from "commander";
import {
  loadProfile,
  loadStudy,
  loadSystem,
  profileNames,
  studyMismatch,
  studyNames,
  systemNames,
} from "./lib/catalog.ts";
import { ParseError, UserError } from "./lib/errors.ts";
import { estimate, estimateMarkdown, MAX_LIMIT_MIN, parseInstanceType } from "./lib/estimate.ts";
import { fromCsv, fromJsonl } from "./lib/records.ts";
import { describeErrors, validateManifest } from "./lib/schema.ts";
import { parserFor } from "./parsers/index.ts";
import { publish } from "./publish/publish.ts";
import { deadRunnerReason } from "./lib/liveness.ts";
import { storeCost } from "./runner/manifest.ts";
import { runSuite } from "./runner/run.ts";
import { runReport, runReportMarkdown } from "./lib/run-report.ts";
import type { NoiseGuardMode } from "./runner/plan.ts";

// The `samebox` command. Every user mistake ends as one line on stderr and exit code 2.

const list = (v: string): string[] =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new InvalidArgumentError("expected a whole number from 1 to 50");
  return n;
};

const seedInt = (v: string): number => {
  const n = Number(v);
  if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n) || n > 0xffffffff)
    throw new InvalidArgumentError("expected a whole number from 0 to 4294967295");
  return n;
};

const program = new Command()
  .name("samebox")
  .description("Run benchmark suites, normalize every tool's output into one long-format table, publish site data.")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

const noiseGuardMode = (v: string): NoiseGuardMode => {
  if (v === "strict" || v === "warn" || v === "off") return v;
  throw new InvalidArgumentError("expected strict, warn or off");
};

program
  .command("run")
  .description("run a suite profile; writes data/runs/<run-id>/ (never overwrites one)")
  .option("-p, --profile <name>", `suite profile (${profileNames().join(", ")}) or a path to a profile .json`)
  .option("-s, --studies <list>", "comma-separated studies (default: all in the profile)", list)
  .option("-S, --systems <list>", "comma-separated systems (default: all in the profile)", list)
  .option("-w, --workloads <list>", "comma-separated workloads (default: all in the profile)", list)
  .option("-r, --repetitions <n>", "repetitions per cell (default: the profile's)", positiveInt)
  .option("--run-id <id>", "run id (default: <UTC timestamp>-<profile>-<host>)")
  .option("--skip-install", "do not run the systems' and studies' install verbs")
  .option("--order-seed <n>", "seed of the interleaved visit order (default: derived from the run id)", seedInt)
  .option(
    "--noise-guard <mode>",
    "strict: a cell disturbed by other work is re-run, then marked noisy, and a busy machine refuses to start; warn: recorded only; off (default: strict on the cloud box, warn elsewhere; SAMEBOX_NOISE_GUARD)",
    noiseGuardMode,
  )
  .option("--allow-busy", "start a strict run even when the machine is busy before it")
  .option("--no-sequential", "no claim-driven extra repetitions (only the profile's base repetitions)")
  .option(
    "--resume <run-id>",
    "continue an interrupted run (or one whose runner died): runs only the cells not yet done, in the same folder",
  )
  .option("--dry-run", "print the cells that would run and exit")
  .action(async (o) => {
    if (!o.profile && !o.resume)
      throw new UserError("run needs --profile <name> (or --resume <run-id>); profiles: " + profileNames().join(", "));
    if (o.resume && (o.profile || o.studies || o.systems || o.workloads || o.runId))
      throw new UserError(
        "--resume continues a run as it was planned: give no --profile, --studies, --systems, --workloads or --run-id with it",
      );
    const { runDir, manifest, exitCode } = await runSuite({
      profile: o.profile,
      studies: o.studies,
      systems: o.systems,
      workloads: o.workloads,
      repetitions: o.repetitions,
      runId: o.runId,
      skipInstall: o.skipInstall,
      dryRun: o.dryRun,
      orderSeed: o.orderSeed,
      noiseGuard: o.noiseGuard,
      allowBusy: o.allowBusy,
      noSequential: o.sequential === false,
      resume: o.resume,
    });
    if (!manifest) return; // a dry run
    const s = manifest.summary;
    const failed = manifest.cells.filter((c) => c.status === "failed" || c.status === "wrong_answer");
    for (const c of failed.slice(0, 20))
      process.stderr.write(`  ${c.status}: ${c.id}: ${c.reason} (log: ${path.join(runDir, c.log)})\n`);
    const noisy = s.noisy ? `, ${s.noisy} noisy` : "";
    process.stdout.write(
      `run ${manifest.run_id}: ${s.ok} ok, ${s.failed} failed, ${s.wrong_answer} wrong answer, ${s.skipped} skipped${noisy} in ${manifest.duration_s}s -> ${runDir}\n`,
    );
    process.exitCode = exitCode;
  });

program
  .command("estimate")
  .description(
    "cells, expected wall time and cost per study (one cloud box each) before a run, from measured cell durations",
  )
  .requiredOption("-p, --profile <name>", `suite profile (${profileNames().join(", ")}) or a path to a profile .json`)
  .option("-s, --studies <list>", "comma-separated studies (default: all in the profile)", list)
  .option("-S, --systems <list>", "comma-separated systems (default: all in the profile)", list)
  .option("--instance-type <type>", "EC2 instance type to price", parseInstanceType, "c6a.4xlarge")
  .option("--region <region>", "AWS region to price", "us-east-1")
  .option("--budget-usd <usd>", "refuse (exit 1) when the most the boxes can cost exceeds this", (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("expected a positive number of dollars");
    return n;
  })
  .option("--json", "print the estimate as JSON instead of a Markdown table")
  .action((o) => {
    const e = estimate({
      profile: o.profile,
      studies: o.studies,
      systems: o.systems,
      instanceType: o.instanceType,
      region: o.region,
    });
    process.stdout.write(o.json ? JSON.stringify(e, null, 2) + "\n" : estimateMarkdown(e));
    const tooLong = e.studies.filter((s) => !s.fits);
    if (tooLong.length) {
      process.stderr.write(
        `samebox: refused: ${tooLong.map((s) => `${s.study} needs ${s.limit_minutes} min`).join(", ")}; one box may run at most ${MAX_LIMIT_MIN} min (select fewer systems for that study, or a smaller profile)\n`,
      );
      process.exitCode = 1;
    }
    if (o.budgetUsd !== undefined) {
      if (e.total.usd_limit === null) {
        process.stderr.write(`samebox: refused: cannot check the budget: ${e.price_reason}\n`);
        process.exitCode = 1;
      } else if (e.total.usd_limit > o.budgetUsd) {
        process.stderr.write(
          `samebox: refused: the boxes may cost up to $${e.total.usd_limit.toFixed(2)} (expected $${e.total.usd_expected?.toFixed(2)}), over the budget of $${o.budgetUsd.toFixed(2)}\n`,
        );
        process.exitCode = 1;
      }
    }
  });

program
  .command("publish")
  .description("validate everything in data/ and write the site's data files (idempotent)")
  .action(async () => {
    const r = await publish();
    for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
    // name a few changed files, count the rest: a first publish changes thousands (raw outputs, what-ran texts)
    const shown = r.changed.slice(0, 8).join(", ");
    const more = r.changed.length > 8 ? ` and ${r.changed.length - 8} more` : "";
    process.stdout.write(
      `published ${r.records} records from ${r.runs} runs and data/published; changed: ${r.changed.length ? shown + more : "nothing"}\n`,
    );
  });

program
  .command("validate")
  .description("check a run folder (manifest and records) against the schemas")
  .argument("<run-dir...>", "data/runs/<run-id> folder(s)")
  .action((dirs: string[]) => {
    for (const dir of dirs) {
      const mfile = path.join(dir, "manifest.json");
      if (!existsSync(mfile)) throw new UserError(`${dir}: no manifest.json (is it a data/runs/<run-id> folder?)`);
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(readFileSync(mfile, "utf8"));
      } catch (e) {
        throw new UserError(`${mfile}: not JSON: ${(e as Error).message}`);
      }
      if (!validateManifest(m)) throw new UserError(`${mfile}: ${describeErrors(validateManifest.errors)}`);
      const dead = deadRunnerReason(m);
      if (dead)
        throw new UserError(
          `${mfile}: says "running" but ${dead}: the run was interrupted; continue it with: samebox run --resume ${String(m.run_id)}`,
        );
      if (m.run_id !== path.basename(path.resolve(dir)))
        throw new UserError(
          `${mfile}: run_id '${String(m.run_id)}' does not match folder name '${path.basename(path.resolve(dir))}'`,
        );
      const jsonl = path.join(dir, "records.jsonl");
      const csv = path.join(dir, "records.csv");
      const a = existsSync(jsonl) ? fromJsonl(readFileSync(jsonl, "utf8"), jsonl) : [];
      const b = existsSync(csv) ? fromCsv(readFileSync(csv, "utf8"), csv) : [];
      if (existsSync(jsonl) && existsSync(csv) && a.length !== b.length)
        throw new UserError(`${dir}: records.jsonl has ${a.length} records but records.csv has ${b.length}`);
      process.stdout.write(
        `${dir}: valid (${Math.max(a.length, b.length)} records, ${(m.cells as unknown[]).length} cells)\n`,
      );
    }
  });

program
  .command("report")
  .description(
    "every claim of a run's studies judged from that run alone (as the site judges it), the time each study took and what the noise guard did, as Markdown",
  )
  .argument("<run-dir>", "a data/runs/<run-id> folder")
  .option("--json", "print the report as JSON instead")
  .action((dir: string, opts: { json?: boolean }) => {
    const r = runReport(dir);
    process.stdout.write(
      opts.json ? `${JSON.stringify({ ...r, manifest: undefined }, null, 2)}\n` : runReportMarkdown(r),
    );
  });

program
  .command("cost")
  .description("store a cloud box's cost block (terraform/scripts/run_cost.py's output) as the run's cost, once")
  .argument("<run-dir>", "data/runs/<run-id> folder (or a collected copy of one)")
  .requiredOption("--block <file>", "the cost block as JSON: a file, or - for standard input")
  .action((dir: string, opts: { block: string }) => {
    const text = readFileSync(opts.block === "-" ? 0 : opts.block, "utf8");
    let block: unknown;
    try {
      block = JSON.parse(text);
    } catch (e) {
      throw new UserError(`${opts.block}: not JSON: ${(e as Error).message}`);
    }
    const stored = storeCost(dir, block);
    process.stdout.write(
      stored ? `${dir}: cost stored\n` : `${dir}: already has a cost, kept (a run is never re-priced)\n`,
    );
  });

program
  .command("list")
  .description("list studies (with workloads), systems and profiles")
  .action(() => {
    process.stdout.write(`profiles: ${profileNames().join(", ")}\nsystems: ${systemNames().join(", ")}\nstudies:\n`);
    for (const s of studyNames()) {
      const st = loadStudy(s);
      // which systems can run it is asked of the systems (their capabilities and dialect), never listed in the study
      const can = systemNames().filter((n) => studyMismatch(loadSystem(n), st) === null);
      process.stdout.write(
        `  ${s}: ${st.title}\n    needs: ${st.requires.join(", ")}${st.dialects ? ` (dialects ${st.dialects.join(", ")})` : ""}; systems that can: ${can.join(", ")}\n    workloads: ${st.workloads.map((w) => w.name + (w.requires?.length ? ` [${w.requires.join(", ")}]` : "")).join(", ")}\n`,
      );
    }
    for (const p of profileNames()) loadProfile(p); // fails loudly on a malformed profile
  });

program
  .command("parse")
  .description("parse one tool output (a cell folder or a stdout file) and print its measurements as JSON lines")
  .argument("<tool>", "parser name, e.g. sysbench, pgbench, hyperfine")
  .argument("<path>", "a cell folder (with stdout.txt) or a raw output file")
  .action((tool: string, p: string) => {
    const parser = parserFor(tool);
    if (!existsSync(p)) throw new UserError(`no such file or folder: ${p}`);
    const isDir = existsSync(path.join(p, "stdout.txt"));
    const stdout = readFileSync(isDir ? path.join(p, "stdout.txt") : p, "utf8");
    for (const m of parser({ cellDir: isDir ? p : path.dirname(p), stdout, workload: {} }))
      process.stdout.write(JSON.stringify(m) + "\n");
  });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof UserError || e instanceof ParseError) {
    process.stderr.write(`samebox: ${e.message}\n`);
    process.exit(2);
  }
  throw e;
}
