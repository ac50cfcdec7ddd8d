// Synthetic claims, records and paired repetitions for the verdict tests (verdicts*.test.ts).
import type { PairedSample } from "../lib/verdicts.ts";
import type { Claim, ResultRecord } from "../schema/types.ts";

export const claim = (over: Partial<Claim> = {}): Claim =>
  ({
    id: "x",
    claim: "a beats b",
    workload: "w",
    metric: "tps",
    better: "higher",
    a: { system: "a" },
    b: { system: "b" },
    published: { a: 2, b: 1 },
    kind: "ordering",
    ...over,
  }) as Claim;

export function rec(system: string, repetition: number, value: number, over: Partial<ResultRecord> = {}): ResultRecord {
  return {
    run_id: "r1",
    source: "measured",
    study: "s",
    workload: "w",
    system,
    system_version: "1",
    variant: "",
    concurrency: 4,
    repetition,
    metric: "tps",
    value,
    unit: "tx/s",
    t: null,
    profile: "quick",
    machine: "m",
    commit: "c",
    ...over,
  } as ResultRecord;
}

/** n paired repetitions with ratio a/b = ratio · (1 + noise_r), noise alternating ±jitter. */
export function pairs(n: number, ratio: number, jitter: number): PairedSample[] {
  return Array.from({ length: n }, (_, i) => ({
    repetition: i + 1,
    a: 100 * ratio * (1 + (i % 2 ? jitter : -jitter)),
    b: 100,
  }));
}
