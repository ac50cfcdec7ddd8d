// The estimate as people read it (the CLI's table, docs/cloud.md's cost tables), and the CLI's
// instance-type argument.
import type { Estimate } from "../estimate.ts";
import { UserError } from "../errors.ts";
import { MAX_LIMIT_MIN } from "./boxes.ts";

const hm = (s: number) => {
  const minutes = Math.round(s / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
};
const usd = (x: number | null) => (x === null ? "n/a" : `$${x.toFixed(2)}`);

export function estimateMarkdown(e: Estimate): string {
  const lines = [
    `Estimate for profile \`${e.profile}\` on ${e.instance_type} (${e.region}), one box per study; ` +
      (e.price
        ? `$${e.price.usd_per_hour}/h (${e.price.date}, ${e.price.source_url})`
        : `no price: ${e.price_reason}`) +
      ".",
    "",
    "| study | cells | systems | boxes | cells time | setup | box bootstrap | expected box-hours | longest box limit | expected $ | at most $ | fits |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...e.studies.map(
      (s) =>
        `| ${s.study} | ${s.cells} | ${s.systems.join(", ")} | ${s.boxes.length} | ${hm(s.cell_seconds)} | ${hm(s.setup_seconds)} | ${hm(s.bootstrap_seconds)} | ${hm(s.expected_seconds)} | ${s.limit_minutes} min | ${usd(s.usd_expected)} | ${usd(s.usd_limit)} | ${s.fits ? "yes" : `no (> ${MAX_LIMIT_MIN} min)`} |`,
    ),
    `| **total** | ${e.total.cells} | | ${e.studies.reduce((a, s) => a + s.boxes.length, 0)} | | | | ${e.total.expected_hours} h | | ${usd(e.total.usd_expected)} | ${usd(e.total.usd_limit)} | |`,
    "",
    `References: ${e.references.length ? e.references.join(", ") : "none (every cell counted at its timeout)"}.`,
    ...e.studies.map(
      (s) =>
        `- ${s.study}: cells by basis: ${Object.entries(s.bases)
          .map(([b, n]) => `${b} ${n}`)
          .join(", ")}${s.notes.length ? "; " + s.notes.join("; ") : ""}`,
    ),
    "",
    "Method: " + e.method.join("; ") + ".",
  ];
  return lines.join("\n") + "\n";
}

export function parseInstanceType(v: string): string {
  if (!/^[a-z0-9]+\.[a-z0-9]+$/.test(v))
    throw new UserError(`invalid instance type '${v}'; expected an EC2 type like c6a.4xlarge`);
  return v;
}
