// Attribution for the published studies (seeds) samebox reproduces: each study.json's `seed` names one;
// the seed texts are kept outside this repository, so this table is where the site identifies them. Their figures
// are shown beside ours, labelled as measured elsewhere on other hardware; their prose stays theirs.
export interface SeedInfo {
  source: string;
  setup: string;
}
export const seeds: Record<string, SeedInfo> = {
  "000": { source: "Faucet mcp-db-benchmark (Faucet v0.1.12 MCP server)", setup: "PostgreSQL 18, MySQL 9.0, SQL Server 2022, SQLite 3.45 on an AWS c6a.4xlarge" },
  "001": { source: "mskql vs PostgreSQL vs DuckDB batch and throughput benchmark", setup: "an Apple M-series laptop, loopback" },
  "002": { source: "PostgreSQL vs MySQL vs MariaDB sysbench OLTP comparison (tested March 2026)", setup: "Rocky Linux 10.1 VM, 4 vCPUs (KVM), 8 GB RAM, kernel 6.12; PostgreSQL 17.9, MySQL 8.4.8, MariaDB 10.11.15; sysbench 1.0.20, 10 tables × 100,000 rows, 16 threads, 60 s" },
  "003": { source: "MCP server performance benchmark v2 (15 implementations, k6, 50 VUs)", setup: "three independent runs, Redis + HTTP API tools" },
  "004": { source: "Reserva payments benchmark, PostgreSQL vs MySQL (November 2024)", setup: "11th-gen Intel NUC mini PCs on a switch" },
};
export function seedInfo(seed: string | undefined): SeedInfo | undefined {
  // "002", "2" and "002_e9f50b3a12657a4e" all name seed 002.
  const digits = String(seed ?? "").match(/^\d+/)?.[0];
  return digits ? seeds[digits.padStart(3, "0")] : undefined;
}

/** "002_e9f50b3a12657a4e" → "002": the seed's number as the seeds README lists it. */
export function seedLabel(seed: string | undefined): string {
  const digits = String(seed ?? "").match(/^\d+/)?.[0];
  return digits ? digits.padStart(3, "0") : String(seed ?? "");
}
