import cliProgress from "cli-progress";

// Cell i of n, elapsed and ETA: a live bar on a terminal, one plain line per cell in CI and logs.
function fmt(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.round(seconds);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
      : `${s}s`;
}

export class Progress {
  private total: number;
  private done = 0;
  private started = performance.now();
  private bar: cliProgress.SingleBar | null = null;
  constructor(total: number, interactive = Boolean(process.stderr.isTTY) && !process.env.CI) {
    this.total = total;
    if (interactive && total > 0) {
      this.bar = new cliProgress.SingleBar(
        {
          format: " {bar} cell {value}/{total} | {elapsed_h} elapsed | ETA {eta_h} | {cell}",
          stream: process.stderr,
          hideCursor: true,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(total, 0, { cell: "starting", elapsed_h: "0s", eta_h: "?" });
    }
  }
  private times(): { elapsed: number; eta: number } {
    const elapsed = (performance.now() - this.started) / 1000;
    return { elapsed, eta: this.done ? (elapsed / this.done) * (this.total - this.done) : NaN };
  }
  // Something that is not a cell (install, start, prepare): shown, not counted.
  note(text: string): void {
    if (this.bar) this.bar.update({ cell: text });
    else process.stderr.write(`samebox: ${text}\n`);
  }
  cellDone(cellId: string, status: string, seconds: number): void {
    this.done++;
    const { elapsed, eta } = this.times();
    if (this.bar) this.bar.update(this.done, { cell: `${cellId} ${status}`, elapsed_h: fmt(elapsed), eta_h: fmt(eta) });
    else
      process.stderr.write(
        `[${this.done}/${this.total}] ${cellId} ${status} (${seconds.toFixed(1)}s) | elapsed ${fmt(elapsed)} | ETA ${fmt(eta)}\n`,
      );
  }
  /** Cells added while running (the sequential loop's extra repetitions). */
  addTotal(n: number): void {
    this.total += n;
    this.bar?.setTotal(this.total);
  }
  stop(): void {
    this.bar?.stop();
  }
}
