// The analytical study's charts (relative view): build-time SVG through the shared render() and
// colorScale() of lib/charts.ts.
import * as Plot from "@observablehq/plot";
import { render, colorScale, type ChartText } from "../../lib/charts.ts";
import { systemLabel } from "../../lib/systems.ts";

/** Each engine's geometric mean of relative times (1 = fastest on every workload), one bar per engine. */
export function geomeanChart(rows: { system: string; geomean: number; ran: number }[], text: ChartText): string {
  const data = rows.filter((r) => Number.isFinite(r.geomean));
  return render(
    {
      width: 640,
      height: 50 + data.length * 34,
      marginLeft: 90,
      marginRight: 120,
      marginBottom: 40,
      x: { label: "geometric mean of relative time → (1 = fastest everywhere)", grid: true, zero: true, nice: true },
      y: { label: null, domain: data.map((r) => r.system), tickFormat: systemLabel },
      color: colorScale(data.map((r) => r.system)),
      marks: [
        Plot.barX(data, { y: "system", x: "geomean", fill: "system", fillOpacity: 0.75 }),
        Plot.text(data, {
          y: "system",
          x: "geomean",
          text: (d: { geomean: number; ran: number }) =>
            `${d.geomean.toFixed(2)}× (${d.ran} workload${d.ran === 1 ? "" : "s"})`,
          textAnchor: "start",
          dx: 6,
        }),
        Plot.ruleX([1], { stroke: "#222", strokeDasharray: "3,3" }),
        Plot.ruleX([0]),
      ],
    },
    text,
  );
}

/** Per workload, each engine's relative time (log scale); 1 is the fastest engine on that workload. */
export function relativeRatioChart(
  rows: { workload: string; system: string; ratio: number }[],
  text: ChartText,
): string {
  const workloads = [...new Set(rows.map((r) => r.workload))];
  return render(
    {
      width: 720,
      height: 60 + workloads.length * 20,
      marginLeft: 170,
      marginRight: 20,
      marginBottom: 40,
      x: { type: "log", label: "relative time (t + c) / (t_min + c), log scale → (lower is better)", grid: true },
      y: { label: null, domain: workloads },
      color: { ...colorScale(rows.map((r) => r.system)), legend: true },
      marks: [
        Plot.ruleY(workloads, { stroke: "#eee" }),
        Plot.ruleX([1], { stroke: "#222" }),
        Plot.dot(rows, { y: "workload", x: "ratio", fill: "system", r: 4.5, fillOpacity: 0.8, stroke: "#fff" }),
      ],
    },
    text,
  );
}
