// The scripted toy study's profiles and manifests, shared by the runner tests (runner-*.test.ts).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./helpers.ts";

export function profile(
  name: string,
  workloads: string[],
  reps: number,
  sequential?: { max_repetitions: number; budget_s: number },
  top: { time_limit_min?: number } = {},
): string {
  const file = path.join(tempDir(), `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name,
      description: `runner test: ${name}`,
      repetitions: reps,
      ...top,
      studies: {
        toy: {
          systems: ["fakedb", "fakedb2"],
          workloads,
          concurrency: [2],
          variants: ["warm"],
          cell_timeout_s: 20,
          env: {},
          ...(sequential ? { sequential } : {}),
        },
      },
    }),
  );
  return file;
}

export type Manifest = {
  status: string;
  cells: Array<{
    id: string;
    status: string;
    repetition: number;
    reason: string;
    noise?: { disturbed: boolean; attempts?: number; reason: string };
  }>;
  sequential?: Record<
    string,
    {
      stopped: string;
      repetitions_added: number;
      looks: number;
      alpha_spending?: { base: number; max: number; alpha1: number; alpha2: number };
      claims: Array<{ id: string; verdict: string; n: number; lo: number | null }>;
    }
  >;
  noise_guard?: { flagged: number; reruns: number; noisy: number; before_run?: Record<string, unknown> };
  resumed?: Array<{ at: string; pending: number; host?: string }>;
  machine: { cpu_model: string; kernel?: string };
};
export const manifestOf = (data: string, id: string): Manifest =>
  JSON.parse(readFileSync(path.join(data, "runs", id, "manifest.json"), "utf8"));
