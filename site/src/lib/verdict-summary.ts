// The result in one line: every study's published verdicts (verdicts.ts studyVerdicts) counted, and the rows with
// an interval split by which way ours points against the seed's ratio (pipeline/lib/direction.ts). The home page
// and /reproduce/ print the same counts from here.
import { DIRECTIONS, directionOf, type Direction } from "../../../pipeline/lib/direction.ts";
import { VERDICTS, type StudyVerdicts, type Verdict } from "./verdicts.ts";

export interface VerdictSummary {
  claims: number;
  counts: Record<Verdict, number>;
  /** rows with an interval, by direction; the rest have none (too few repetitions, or not measured) */
  directions: Record<Direction, number>;
  withoutInterval: number;
}

export function verdictSummary(studies: StudyVerdicts[]): VerdictSummary {
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  const directions = Object.fromEntries(DIRECTIONS.map((d) => [d, 0])) as Record<Direction, number>;
  let withoutInterval = 0;
  let claims = 0;
  for (const s of studies)
    for (const r of s.rows) {
      claims++;
      counts[r.verdict]++;
      const d = r.hasInterval ? directionOf(r.claim, r.publishedRatio, r.lo, r.hi) : undefined;
      if (d) directions[d.direction]++;
      else withoutInterval++;
    }
  return { claims, counts, directions, withoutInterval };
}

/** "15 reproduces, 17 does not reproduce, 11 undecided and 4 not measured": the verdicts' names, zero counts left out. */
export function countsText(counts: Record<Verdict, number>): string {
  const parts = VERDICTS.filter((v) => counts[v] > 0).map((v) => `${counts[v]} ${v}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}` : (parts[0] ?? "none");
}

/** The claimed winner's lead against the claim's, as a phrase after a count. */
export const directionText: Record<Direction, string> = {
  "ahead by more than claimed": "the claimed winner ahead by more than claimed",
  "ahead by about as much as claimed": "ahead by about as much as claimed",
  "ahead by less than claimed": "ahead, by less than claimed",
  "no clear difference": "no clear difference",
  "the other way round": "the other way round",
};
