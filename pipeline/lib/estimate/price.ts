// The instance's on-demand price (data/prices/ec2-on-demand.csv: the newest confirmed row for the
// region and type).
import { existsSync, readFileSync } from "node:fs";
import { csvParse } from "d3-dsv";

export interface Price {
  usd_per_hour: number;
  date: string;
  source_url: string;
}

export function loadPrice(file: string, region: string, instanceType: string): Price | null {
  if (!existsSync(file)) return null;
  const rows = csvParse(readFileSync(file, "utf8"))
    .filter(
      (r) =>
        r.region === region &&
        r.instance_type === instanceType &&
        r.confirmed === "yes" &&
        (r.usd_per_hour ?? "").trim() !== "",
    )
    .sort((a, b) => String(b.date).localeCompare(String(a.date)));
  if (!rows.length) return null;
  return {
    usd_per_hour: Number(rows[0].usd_per_hour),
    date: String(rows[0].date),
    source_url: String(rows[0].source_url),
  };
}

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
