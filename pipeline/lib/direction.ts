// Which way, and by how much, our estimate points against the claim's: one label per judged claim, so that
// no page shows a larger-than-claimed win and a reversal under one verdict. The rule reads only our
// interval and the seed's ratio (never the verdict):
// - "the other way round": the whole interval below 1 (b ahead of a);
// - "no clear difference": the interval holds 1;
// - the claimed winner ahead: against the band around the seed's ratio (a size claim's own tolerance band,
//   else ×/÷ (1 + DEFAULT_BAND), the band most size claims use): "by more than claimed" when the whole
//   interval lies above the band, "by less than claimed" below it, "by about as much as claimed" when they overlap.
// A seed ratio inside the tie margin (1/(1+m) to 1+m) does not separate the two systems itself: `seedInsideTie`.
import type { Claim } from "../schema/types.ts";

export const DIRECTIONS = [
  "ahead by more than claimed",
  "ahead by about as much as claimed",
  "ahead by less than claimed",
  "no clear difference",
  "the other way round",
] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The band around the seed's ratio for claims that state no tolerance: ×/÷ 1.25. */
export const DEFAULT_BAND = 0.25;

export interface DirectionLabel {
  direction: Direction;
  /** The band around the seed's ratio the label compares with. */
  band: { lo: number; hi: number };
  /** The seed's own ratio lies within the tie margin: its figures do not separate the two. */
  seedInsideTie: boolean;
}

/** The label for an interval [lo, hi] of a over b against the seed's ratio; undefined without an interval. */
export function directionOf(
  claim: Pick<Claim, "kind" | "size">,
  publishedRatio: number,
  lo: number | undefined,
  hi: number | undefined,
  tieMargin = 0.05,
): DirectionLabel | undefined {
  if (lo === undefined || hi === undefined || !(publishedRatio > 0)) return undefined;
  const tol = claim.kind === "size" && claim.size ? claim.size.tolerance : DEFAULT_BAND;
  const band = { lo: publishedRatio / (1 + tol), hi: publishedRatio * (1 + tol) };
  const seedInsideTie = publishedRatio >= 1 / (1 + tieMargin) && publishedRatio <= 1 + tieMargin;
  const direction: Direction =
    hi < 1
      ? "the other way round"
      : lo <= 1
        ? "no clear difference"
        : lo > band.hi
          ? "ahead by more than claimed"
          : hi < band.lo
            ? "ahead by less than claimed"
            : "ahead by about as much as claimed";
  return { direction, band, seedInsideTie };
}
