// The time between a run's cells, from its manifest (cells[].started_at and duration_s): what its visits cost
// beyond their cells (a stop, a start, a prepare). The estimator reads the gap before a system's first cell of a
// study (its setup); the runner's sequential block the gaps before later visits (their overhead).

export interface TimedCell {
  started_at: string;
  duration_s: number;
}

/**
 * Every timed cell in the order it ran, with the one before it and the seconds from that one's end (or from
 * `runStartedAt`, for the first) to its start; NaN for the first without a run start. Never negative.
 */
export function cellGaps<C extends TimedCell>(
  cells: C[],
  runStartedAt?: string,
): { cell: C; prev?: C; gapS: number }[] {
  const timed = cells
    .filter((c) => c.started_at && c.duration_s > 0)
    .sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  let prevEnd = runStartedAt ? Date.parse(runStartedAt) : Number.NaN;
  return timed.map((cell, i) => {
    const start = Date.parse(cell.started_at);
    const gapS = Number.isFinite(prevEnd) ? Math.max((start - prevEnd) / 1000, 0) : Number.NaN;
    prevEnd = start + cell.duration_s * 1000;
    return { cell, prev: timed[i - 1], gapS };
  });
}
