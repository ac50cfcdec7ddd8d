// A study's seed: study.json `seed` names the published study it reproduces and `seed_attribution` who
// published it and on what (the seed texts are kept outside this repository). Their figures are shown
// beside ours, labelled as measured elsewhere on other hardware; their prose stays theirs.

/** "002_e9f50b3a12657a4e" → "002": the seed's number as the seeds README lists it. */
export function seedLabel(seed: string | undefined): string {
  const digits = String(seed ?? "").match(/^\d+/)?.[0];
  return digits ? digits.padStart(3, "0") : String(seed ?? "");
}
