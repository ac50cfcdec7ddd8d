import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { percentileFromBuckets } from "../lib/stats.ts";
import { publishable } from "./percentiles.ts";
import { warmupFromCell } from "./warmup.ts";

// sysbench 1.0.20 text output of an OLTP lua script run with --histogram and --report-interval.
// Final statistics exclude --warmup-time; p50/p99 come from the latency histogram because sysbench
// prints only one percentile (--percentile, 95 by default).

function num(text: string, re: RegExp, what: string): number {
  const m = text.match(re);
  if (!m) throw new ParseError(`sysbench output has no '${what}' line`);
  return Number(m[1]);
}

export function parseSysbench(stdout: string): Measurement[] {
  const fatal = stdout.match(/^FATAL: .*$/m);
  if (!stdout.includes("SQL statistics:")) {
    throw new ParseError(
      fatal ? `sysbench failed: ${fatal[0]}` : "sysbench output has no 'SQL statistics:' section (did the run finish?)",
    );
  }
  const out: Measurement[] = [];
  const add = (metric: string, value: number, unit: Measurement["unit"], t: number | null = null) => {
    if (!Number.isFinite(value)) throw new ParseError(`sysbench ${metric} is not a number`);
    out.push({ metric, value, unit, t });
  };

  add("tps", num(stdout, /^\s*transactions:\s+\d+\s+\(([\d.]+) per sec\.\)/m, "transactions"), "tx/s");
  add("qps", num(stdout, /^\s*queries:\s+\d+\s+\(([\d.]+) per sec\.\)/m, "queries"), "q/s");
  const transactions = num(stdout, /^\s*transactions:\s+(\d+)/m, "transactions");
  add("transactions", transactions, "count");
  add("errors", num(stdout, /^\s*ignored errors:\s+(\d+)/m, "ignored errors"), "count");
  add("reconnects", num(stdout, /^\s*reconnects:\s+(\d+)/m, "reconnects"), "count");
  add("duration", num(stdout, /^\s*total time:\s+([\d.]+)s/m, "total time"), "s");

  const lat = stdout.slice(stdout.indexOf("Latency (ms):"));
  add("latency_min", num(lat, /^\s*min:\s+([\d.]+)/m, "Latency min"), "ms");
  add("latency_avg", num(lat, /^\s*avg:\s+([\d.]+)/m, "Latency avg"), "ms");
  add("latency_max", num(lat, /^\s*max:\s+([\d.]+)/m, "Latency max"), "ms");
  const pct = lat.match(/^\s*(\d+)th percentile:\s+([\d.]+)/m);
  // A percentile needs at least 10/(1-p) transactions in its sample (percentiles.ts).
  if (pct && publishable(`p${pct[1]}`, transactions)) add(`latency_p${pct[1]}`, Number(pct[2]), "ms");

  const hist = stdout.match(/Latency histogram \(values are in milliseconds\)\n[^\n]*\n([\s\S]*?)\n\s*\n/);
  if (hist) {
    const buckets = hist[1]
      .split("\n")
      .map((l) => l.match(/^\s*([\d.]+)\s*\|[*\s]*\s(\d+)\s*$/))
      .filter((m): m is RegExpMatchArray => m !== null)
      .map((m) => ({ value: Number(m[1]), count: Number(m[2]) }));
    if (buckets.length) {
      const n = buckets.reduce((s, b) => s + b.count, 0);
      if (publishable("p50", n)) add("latency_p50", percentileFromBuckets(buckets, 50), "ms");
      if (pct?.[1] !== "99" && publishable("p99", n)) add("latency_p99", percentileFromBuckets(buckets, 99), "ms");
    }
  }

  // Interim reports: "[ 1s ] thds: 2 tps: 345.89 qps: 6939.75 (r/w/o: ...) lat (ms,95%): 8.13 err/s: 0.00 reconn/s: 0.00"
  for (const m of stdout.matchAll(
    /^\[\s*([\d.]+)s\s*\] thds: \d+ tps: ([\d.]+) qps: ([\d.]+).*?lat \(ms,\d+%\): ([\d.]+) err\/s: ([\d.]+)/gm,
  )) {
    const t = Number(m[1]);
    add("tps_series", Number(m[2]), "tx/s", t);
    add("qps_series", Number(m[3]), "q/s", t);
    add("latency_p95_series", Number(m[4]), "ms", t);
  }
  return out;
}

export function parse(ctx: { stdout: string; cellDir?: string }): Measurement[] {
  // The steady-state warm-up the run verb did before the measured run (warmup.json, lib/steady.sh).
  return [...parseSysbench(ctx.stdout), ...warmupFromCell(ctx.cellDir)];
}
