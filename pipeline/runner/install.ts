// Installs, before anything is started: every system's install verb, then every study's (a study's
// tools may build on a system's client, e.g. pgbench), then each study's `versions` verb. A study's
// install gets the plan's SYSTEMS, WORKLOADS and VARIANTS so it installs only what the selected cells need.
import { existsSync } from "node:fs";
import path from "node:path";
import { loadSystem } from "../lib/catalog.ts";
import type { RunContext } from "./context.ts";
import { markCells, pending, tail, unavailableReason, verbLog } from "./context.ts";
import type { Cell } from "./plan.ts";
import { plannedList } from "./plan.ts";
import { EXIT_UNAVAILABLE, parseKeyValues, runVerb } from "./verbs.ts";

async function installSystem(ctx: RunContext, system: string): Promise<void> {
  const systemsOut = ctx.writer.manifest.systems;
  systemsOut[system] = { version: null, config: {}, status: "pending", reason: "" };
  ctx.progress.note(`${system}: install`);
  const r = await runVerb(path.join(loadSystem(system).dir, "install"), [], {
    timeoutS: 1800,
    ...verbLog(ctx, `${system}.install`),
  });
  if (r.code === EXIT_UNAVAILABLE) {
    const why = unavailableReason(r) || "not available on this machine";
    markCells(
      ctx,
      (c) => c.system === system,
      "skipped",
      `${system} not available here: ${why}`,
      `logs/${system}.install.err`,
      r.code,
    );
    Object.assign(systemsOut[system], { status: "skipped", reason: why });
  } else if (r.code !== 0) {
    const why = `install failed (${r.timedOut ? "timed out" : `exit ${r.code}`}): ${tail(r.stderr)}`;
    markCells(ctx, (c) => c.system === system, "failed", `${system}: ${why}`, `logs/${system}.install.err`, r.code);
    Object.assign(systemsOut[system], { status: "failed", reason: why });
  }
}

const planEnv = (ctx: RunContext, cells: Cell[]) => ({
  SAMEBOX_RUN_DIR: ctx.runDir,
  SYSTEMS: plannedList(cells, "system"),
  WORKLOADS: plannedList(cells, "workload"),
  VARIANTS: plannedList(cells, "variant"),
});

async function installStudy(ctx: RunContext, studyName: string): Promise<void> {
  const ps = ctx.plan.studies[studyName];
  const ofStudy = (c: Cell) => c.study === studyName;
  const cells = ctx.plan.cells.filter((c) => ofStudy(c) && pending(c));
  const script = path.join(ps.study.dir, "install");
  if (cells.length === 0 || !existsSync(script)) return;
  ctx.progress.note(`${studyName}: install`);
  const logName = `study.${studyName}.install`;
  const r = await runVerb(script, [], {
    env: { ...ps.env, ...planEnv(ctx, cells) },
    timeoutS: 3600,
    ...verbLog(ctx, logName),
  });
  const installsOut = ctx.writer.manifest.study_installs ?? {};
  ctx.writer.manifest.study_installs = installsOut;
  const entry: (typeof installsOut)[string] = {
    status: "ok",
    reason: "",
    log: `logs/${logName}.err`,
    seconds: Math.round(r.seconds * 10) / 10,
  };
  if (r.code === EXIT_UNAVAILABLE) {
    entry.status = "skipped";
    entry.reason = unavailableReason(r) || "not available on this machine";
    markCells(ctx, ofStudy, "skipped", `${studyName} tools not available here: ${entry.reason}`, entry.log, r.code);
  } else if (r.code !== 0) {
    entry.status = "failed";
    entry.reason = `install ${studyName} ${r.timedOut ? "timed out" : `exited ${r.code}`}: ${tail(r.stderr)}`;
    markCells(ctx, ofStudy, "failed", entry.reason, entry.log, r.code);
  }
  installsOut[studyName] = entry;
  ctx.writer.write();
}

export async function installAll(ctx: RunContext): Promise<void> {
  for (const system of ctx.plan.systems) {
    if (ctx.interrupted()) return;
    await installSystem(ctx, system);
  }
  for (const studyName of Object.keys(ctx.plan.studies)) {
    if (ctx.interrupted()) return;
    await installStudy(ctx, studyName);
  }
}

/** Versions of the study's own tools (MCP servers, load generators built by its install): each study's optional `versions` verb prints tool=version lines. */
export async function readStudyVersions(ctx: RunContext): Promise<void> {
  for (const [studyName, ps] of Object.entries(ctx.plan.studies)) {
    const script = path.join(ps.study.dir, "versions");
    if (!existsSync(script)) continue;
    const cells = ctx.plan.cells.filter((c) => c.study === studyName);
    const r = await runVerb(script, [], {
      env: { ...ps.env, ...planEnv(ctx, cells) },
      timeoutS: 120,
      ...verbLog(ctx, `study.${studyName}.versions`),
    });
    for (const [k, v] of Object.entries(parseKeyValues(r.stdout))) ctx.writer.manifest.tools[k] = v || null;
  }
  ctx.writer.write();
}
