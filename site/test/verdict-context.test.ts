// What each verdict row says beside its verdict, recomputed here. The seed's conditions: each /reproduce/<study>/ row judged from a run lists exactly the
// conditions (study.json seed_conditions) that matter and differ from the seed's for that run and the claim's
// workloads, each numeric one with its factor ours ÷ seed; the study page's table has every condition row.
// Ours is recomputed here from the run's manifest (machine, profile env, else the study's parameter
// defaults), the records' concurrency and the row's repetitions, not read from the site's modules. Also: how
// many of its cells were generator-bound, which way ours points against the seed's ratio, and whether the
// claim it was judged under has been reworded since its run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { startPreview, type Preview } from "./harness.ts";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { records, runs, siteDir, studies } from "./expectations.ts";
import type { Claim, SeedCondition } from "../../pipeline/schema/types.ts";

let preview: Preview;
before(async () => {
  preview = await startPreview();
});
after(async () => {
  await preview?.stop();
});
const doc = async (p: string) => parseHTML(await (await fetch(`${preview.root}${p}`)).text()).document;

const matchOne = (p: string, w: string) => (p.endsWith("*") ? w.startsWith(p.slice(0, -1)) : p === w);
function applies(row: SeedCondition, ws: string[] | "*"): boolean {
  if (ws === "*") return !row.workloads && !row.not_workloads;
  return ws.every(
    (w) =>
      (!row.workloads || row.workloads.some((p) => matchOne(p, w))) && !row.not_workloads?.some((p) => matchOne(p, w)),
  );
}

/** Ours as a number (a range: its bounds), or a text, or undefined; read from the manifest and records. */
function ours(
  row: SeedCondition,
  study: (typeof studies)[number],
  run: (typeof runs)[number],
  concurrency: number[],
  n: number,
): number | [number, number | undefined] | string | undefined {
  const o = row.ours;
  const gib = run.machine.memory_bytes / 2 ** 30;
  const machine = (k: string) => (k === "cores" ? run.machine.cores : gib);
  const env =
    (run.config as { studies?: Record<string, { env?: Record<string, unknown> }> }).studies?.[study.name]?.env ?? {};
  if ("text" in o) return o.text;
  if ("machine" in o) return machine(o.machine) * (o.times ?? 1);
  if ("cpu_sets" in o) {
    const sut = env.SAMEBOX_SUT_CPUS ? String(env.SAMEBOX_SUT_CPUS) : undefined;
    if (!o.cpu_sets.count) return sut ? `isolated ${sut}` : o.cpu_sets.shared;
    if (sut)
      return sut
        .split(",")
        .reduce((k, p) => k + (p.includes("-") ? Number(p.split("-")[1]) - Number(p.split("-")[0]) + 1 : 1), 0);
    return Number(env.SAMEBOX_MCP_CPUS) > 0 ? Number(env.SAMEBOX_MCP_CPUS) : run.machine.cores;
  }
  if ("cell" in o) {
    if (o.cell === "repetitions") return n;
    const lo = Math.min(...concurrency);
    const hi = Math.max(...concurrency);
    return concurrency.length === 0 ? undefined : lo === hi ? lo : [lo, hi];
  }
  const value = (k: string) => {
    const raw = env[k] ?? study.parameters?.[k]?.default;
    return raw === undefined || raw === "" || !Number.isFinite(Number(raw)) ? undefined : Number(raw);
  };
  const parts = o.env.map(value);
  if (parts.some((p) => p === undefined)) return o.else_machine ? machine(o.else_machine) : undefined;
  const v = parts.reduce((a, b) => a! * b!, 1)! * (o.times ?? 1);
  if (!o.max_env) return v;
  const hi = value(o.max_env);
  return hi === v ? v : [v, hi];
}

test("every verdict judged from a run lists the conditions that differ from the seed's, each numeric one with ours ÷ seed", async (t) => {
  let checked = 0;
  for (const s of studies.filter((x) => x.claims && x.seed_conditions)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const runId = tr.getAttribute("data-run");
      if (!runId) {
        assert.equal(
          tr.querySelectorAll(".conditions li").length,
          0,
          `${s.name} ${tr.getAttribute("data-claim")}: conditions without a run`,
        );
        continue;
      }
      const claim = s.claims!.claims.find((c: Claim) => c.id === tr.getAttribute("data-claim"))!;
      const run = runs.find((m) => m.run_id === runId)!;
      const ws = claim.workload === "*" ? "*" : (claim.each_of ?? [claim.workload]);
      const pinned = [claim.a.concurrency, claim.b.concurrency].filter((c): c is number => c !== undefined);
      const concurrency = pinned.length
        ? pinned
        : records
            .filter(
              (r) =>
                r.run_id === runId &&
                r.study === s.name &&
                r.source === "measured" &&
                r.metric === claim.metric &&
                [claim.a.system, claim.b.system].includes(r.system) &&
                (ws === "*" || ws.includes(r.workload)),
            )
            .map((r) => r.concurrency);
      const n = Number(tr.getAttribute("data-n"));
      const want = new Map<string, number | undefined>();
      for (const row of s.seed_conditions!.rows.filter((r) => applies(r, ws) && r.matters !== false)) {
        const o = ours(row, s, run, concurrency, n);
        const same =
          typeof o === "string"
            ? "matches_seed" in row.ours && row.ours.matches_seed === true
            : typeof o === "number" && o === row.seed;
        if (!same)
          want.set(
            row.id,
            typeof o === "number" && typeof row.seed === "number" && row.seed !== 0 ? o / row.seed : undefined,
          );
      }
      const shown = new Map(
        [...tr.querySelectorAll(".conditions li")].map((li) => [
          li.getAttribute("data-condition")!,
          li.getAttribute("data-factor")!,
        ]),
      );
      const where = `${s.name} ${claim.id} (run ${runId})`;
      assert.deepEqual([...shown.keys()].sort(), [...want.keys()].sort(), `${where}: the conditions that differ`);
      for (const [id, f] of want) {
        if (f === undefined) assert.equal(shown.get(id), "", `${where} ${id}: a factor where the seed's is no number`);
        else
          assert.ok(
            Math.abs(Number(shown.get(id)) / f - 1) < 1e-9,
            `${where} ${id}: factor ${shown.get(id)}, want ${f}`,
          );
      }
      checked++;
    }
  }
  if (checked === 0) t.skip("no verdict row judged from a run");
});

test("each study page has the whole conditions table, one row per seed condition, linked from its verdicts", async () => {
  for (const s of studies.filter((x) => x.seed_conditions)) {
    const d = await doc(`studies/${s.name}/`);
    const table = d.querySelector(`#conditions-${s.name}`);
    assert.ok(table, `studies/${s.name}/: no conditions table`);
    assert.ok(d.getElementById("conditions"), `studies/${s.name}/: no #conditions heading for the verdicts to link`);
    const ids = [...table!.querySelectorAll("tbody tr")].map((tr) => tr.getAttribute("data-condition"));
    assert.deepEqual(
      ids,
      s.seed_conditions!.rows.map((r) => r.id),
      `studies/${s.name}/: the table's rows`,
    );
    for (const tr of table!.querySelectorAll("tbody tr")) {
      const f = tr.getAttribute("data-factor");
      if (f) assert.equal(tr.querySelector("td.num")!.textContent, `×${String(Number(Number(f).toPrecision(2)))}`);
    }
  }
});

test("each verdict says in how many of its cells the load generator spent at least the server's CPU per call", async (t) => {
  let bound = 0;
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const runId = tr.getAttribute("data-run");
      const claim = s.claims!.claims.find((c: Claim) => c.id === tr.getAttribute("data-claim"))!;
      const ws = claim.workload === "*" ? undefined : (claim.each_of ?? [claim.workload]);
      const cells = new Map<string, Record<string, number>>();
      for (const r of records) {
        if (r.run_id !== runId || r.study !== s.name || r.source !== "measured" || r.t !== null) continue;
        if (ws && !ws.includes(r.workload)) continue;
        const side = [claim.a, claim.b].some(
          (x) =>
            x.system === r.system &&
            (x.server === undefined || x.server === r.server) &&
            (x.variant === undefined || x.variant === r.variant) &&
            (x.concurrency === undefined || x.concurrency === r.concurrency),
        );
        if (!side) continue;
        const k = [r.workload, r.system, r.server, r.variant, r.concurrency, r.repetition].join("|");
        (cells.get(k) ?? cells.set(k, {}).get(k)!)[r.metric] = r.value;
      }
      const want = [...cells.values()].filter((m) => {
        const gen = m.loadgen_cpu_per_call ?? m.client_cpu_per_call;
        return gen !== undefined && m.server_cpu_per_1k_calls !== undefined && gen >= 1000 * m.server_cpu_per_1k_calls;
      }).length;
      const shown = tr.querySelector(".generator");
      assert.equal(
        Number(shown?.getAttribute("data-bound") ?? 0),
        want,
        `${s.name} ${claim.id}: generator-bound cells`,
      );
      bound += want;
    }
  }
  if (bound === 0) t.skip("no verdict's cells were generator-bound in these runs");
});

test("each verdict with an interval says which way ours points against the seed's ratio, and by how much", async (t) => {
  let checked = 0;
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const lo = tr.getAttribute("data-lo");
      const label = tr.querySelector(".direction")?.getAttribute("data-direction");
      const where = `${s.name} ${tr.getAttribute("data-claim")}`;
      if (!lo) {
        assert.equal(label, undefined, `${where}: a direction without an interval`);
        continue;
      }
      const claim = s.claims!.claims.find((c: Claim) => c.id === tr.getAttribute("data-claim"))!;
      const [l, h, p] = [Number(lo), Number(tr.getAttribute("data-hi")), Number(tr.getAttribute("data-published"))];
      const tol = claim.kind === "size" ? claim.size!.tolerance : 0.25;
      const want =
        h < 1
          ? "the other way round"
          : l <= 1
            ? "no clear difference"
            : l > p * (1 + tol)
              ? "ahead by more than claimed"
              : h < p / (1 + tol)
                ? "ahead by less than claimed"
                : "ahead by about as much as claimed";
      assert.equal(label, want, where);
      checked++;
    }
  }
  if (checked === 0) t.skip("no verdict with an interval");
});

test("a verdict judged under a claim its run kept in other words says which fields have changed since", async () => {
  const file = path.join(siteDir, "src/generated/catalogues.json");
  const catalogues = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const canon = (v: unknown): string =>
    JSON.stringify(v, (_k, x) =>
      x && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
        : x,
    );
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const runId = tr.getAttribute("data-run");
      const current = s.claims!.claims.find((c: Claim) => c.id === tr.getAttribute("data-claim"))!;
      const kept = runId
        ? catalogues[runId]?.[s.name]?.claims?.claims.find((c: Claim) => c.id === current.id)
        : undefined;
      const want = kept
        ? [...new Set([...Object.keys(kept), ...Object.keys(current)])]
            .filter((k) => canon(kept[k] ?? null) !== canon((current as Record<string, unknown>)[k] ?? null))
            .sort()
            .join(",")
        : "";
      assert.equal(
        tr.querySelector(".spec-changed")?.getAttribute("data-changed") ?? "",
        want,
        `${s.name} ${current.id}`,
      );
    }
  }
});

test("each verdict judged from a run names the replicates it rests on, that run among them; leave-one-run-out coverage is at least 90 %", async () => {
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const runId = tr.getAttribute("data-run");
      const claim = s.claims!.claims.find((c: Claim) => c.id === tr.getAttribute("data-claim"))!;
      if (!runId || claim.each_of) continue;
      const rep = tr.querySelector(".replicates");
      const where = `${s.name} ${claim.id}`;
      assert.ok(rep, `${where}: no replicates line`);
      const ids = rep!.getAttribute("data-runs")!.split(" ").filter(Boolean);
      assert.ok(rep!.textContent!.includes("host type"), `${where}: the host types are not named`);
      if (Number(tr.getAttribute("data-n")) < 5) {
        // the run judged has too few repetitions to be a replicate: it is not among them
        assert.ok(!ids.includes(runId), `${where}: a run below 5 repetitions counted as a replicate`);
        continue;
      }
      assert.ok(ids.includes(runId), `${where}: its run ${runId} is not among its replicates`);
      assert.equal(Number(rep!.getAttribute("data-k")), ids.length);
      for (const id of ids)
        assert.ok(
          runs.some((m) => m.run_id === id),
          `${where}: replicate ${id} is no published run`,
        );
      assert.ok(rep!.textContent!.includes(`host type`), `${where}: the host types are not named`);
    }
  }
  const m = await doc("methodology/");
  const all = m.querySelector('#replicate-coverage tr[data-study="all"]');
  if (!all) return; // no claim with 4 runs of one experiment in this data
  const inside = Number(all.getAttribute("data-inside"));
  const cases = Number(all.getAttribute("data-cases"));
  assert.ok(inside / cases >= 0.9, `leave-one-run-out coverage ${inside}/${cases} is below 90 %`);
  assert.ok(
    Number(all.getAttribute("data-within-inside")) < inside,
    "the within-run intervals alone cover more than the model",
  );
});

test("every claim with 2 or more replicates has its forest plot, one row per replicate run, linked from its verdict", async () => {
  const label = (id: string) => id.replace(/^\d{4}(\d\d)(\d\d)T(\d\d)(\d\d)\d\dZ-.*$/, "$1-$2 $3:$4");
  let plots = 0;
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const rep = tr.querySelector(".replicates");
      const k = Number(rep?.getAttribute("data-k") ?? 0);
      const claim = tr.getAttribute("data-claim")!;
      const fig = d.getElementById(`forest-${claim}`);
      if (k < 2) {
        assert.equal(fig, null, `${s.name} ${claim}: a forest plot for ${k} replicate(s)`);
        continue;
      }
      plots++;
      assert.ok(fig, `${s.name} ${claim}: ${k} replicates and no forest plot`);
      assert.ok(
        tr.querySelector(`a[href="#forest-${claim}"]`),
        `${s.name} ${claim}: the row does not link its forest plot`,
      );
      const desc = fig!.querySelector("svg desc")?.textContent ?? "";
      for (const id of rep!.getAttribute("data-runs")!.split(" "))
        assert.ok(desc.includes(label(id)), `${s.name} ${claim}: run ${id} missing from its forest plot`);
      assert.ok(desc.includes("combined"), `${s.name} ${claim}: no combined estimate`);
      assert.ok(fig!.textContent!.includes(`${k} runs`), `${s.name} ${claim}: caption does not give ${k} runs`);
    }
  }
  if (plots === 0) return; // no claim with 2 replicates in this data
});

test("a claim measured under other settings shows each experiment's estimate beside its own; scale-dependent when they differ beyond both intervals", async () => {
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    for (const tr of d.querySelectorAll("table.verdicts tbody tr")) {
      const box = tr.querySelector(".other-settings");
      const rep = tr.querySelector(".replicates");
      const where = `${s.name} ${tr.getAttribute("data-claim")}`;
      if (!box) continue;
      assert.ok(rep, `${where}: other experiments without this row's own`);
      const half = (e: Element) => Math.log(Number(e.getAttribute("data-hi")) / Number(e.getAttribute("data-ratio")));
      const m = Math.log(Number(rep!.getAttribute("data-ratio")));
      const items = [...box.querySelectorAll("li")];
      assert.ok(items.length > 0 && items.length <= 3, `${where}: ${items.length} experiments listed`);
      for (const li of items as Element[]) {
        const want: boolean =
          Math.abs(Math.log(Number(li.getAttribute("data-ratio"))) - m) > Math.hypot(half(li), half(rep!));
        assert.equal(li.getAttribute("data-disagrees"), String(want), `${where}: ${li.textContent}`);
        assert.match(li.textContent ?? "", /\(here [^)]+\)/, `${where}: the settings that differ are not named`);
      }
      const dependent = items[0].getAttribute("data-disagrees") === "true";
      assert.equal(box.getAttribute("data-scale-dependent"), String(dependent), where);
      assert.equal(tr.querySelector(".scale-dependent") !== null, dependent, `${where}: the verdict's mark`);
    }
  }
});

test("the decided verdicts each study keeps at a 5 % false discovery rate are Benjamini–Hochberg's, recomputed", async () => {
  const m = await doc("methodology/");
  for (const s of studies.filter((x) => x.claims)) {
    const d = await doc(`reproduce/${s.name}/`);
    const rows = [...d.querySelectorAll("table.verdicts tbody tr")].filter((tr) => tr.getAttribute("data-fdr-p"));
    const ps = rows.map((tr) => Number(tr.getAttribute("data-fdr-p")));
    // step-up: the largest k whose k-th smallest p is at most k · 0.05 / m
    const sorted = [...ps].sort((a, b) => a - b);
    const k = Math.max(0, ...sorted.map((p, i) => (p <= ((i + 1) * 0.05) / ps.length ? i + 1 : 0)));
    const cutoff = k ? sorted[k - 1] : -1;
    let decided = 0;
    let kept = 0;
    rows.forEach((tr, i) => {
      const want = ps[i] <= cutoff;
      assert.equal(
        tr.getAttribute("data-fdr-kept"),
        String(want),
        `${s.name} ${tr.getAttribute("data-claim")}: p ${ps[i]}`,
      );
      const v = tr.getAttribute("data-verdict")!;
      if (v === "undecided") {
        assert.ok(ps[i] > 0.05 - 1e-9, `${s.name} ${tr.getAttribute("data-claim")}: undecided at p ${ps[i]}`);
        return;
      }
      assert.ok(ps[i] <= 0.05 + 1e-9, `${s.name} ${tr.getAttribute("data-claim")}: ${v} at p ${ps[i]}`);
      decided++;
      if (want) kept++;
      assert.ok(
        tr.querySelector(".fdr")?.textContent?.includes(want ? "Kept" : "Not kept"),
        `${s.name} ${tr.getAttribute("data-claim")}: no FDR line`,
      );
    });
    const row = m.querySelector(`#fdr-control tr[data-study="${s.name}"]`);
    if (!rows.length) continue;
    assert.ok(row, `methodology: no FDR row for ${s.name}`);
    assert.equal(Number(row!.getAttribute("data-decided")), decided, `${s.name}: decided`);
    assert.equal(Number(row!.getAttribute("data-kept")), kept, `${s.name}: kept`);
  }
});
