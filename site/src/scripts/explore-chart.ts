// Explore's result chart (Observable Plot), loaded in parallel with DuckDB. The mark is chosen from
// the result's shape: a series over t → lines; category + number → bars; two numbers → dots; one → histogram.
import * as Plot from "@observablehq/plot";
import { roleLabelledGroups } from "../lib/chart-aria.ts";

export type Row = Record<string, unknown>;
export interface Column {
  name: string;
  numeric: boolean;
}
const CHART_ROW_LIMIT = 5000;

/** The systems' own colours when every value of the colour column names a system; else Plot's default scheme. */
function colorScale(values: unknown[], systemColors: Record<string, string>): Plot.ScaleOptions {
  const domain = [...new Set(values.map(String))].sort();
  return domain.length > 0 && domain.every((v) => v in systemColors)
    ? { legend: true, domain, range: domain.map((v) => systemColors[v]) }
    : { legend: true };
}

export function renderChart(
  chartEl: HTMLElement,
  columns: Column[],
  rows: Row[],
  systemColors: Record<string, string> = {},
) {
  const numeric = columns.filter((c) => c.numeric).map((c) => c.name);
  const categorical = columns.filter((c) => !c.numeric).map((c) => c.name);
  const data = rows.slice(0, CHART_ROW_LIMIT);
  let options: Plot.PlotOptions | undefined;
  let description = "";
  const xName = numeric.includes("t") ? "t" : undefined;
  if (data.length === 0) {
    chartEl.replaceChildren(
      Object.assign(document.createElement("p"), { textContent: "No chart: the result has no rows." }),
    );
    return;
  }
  if (xName && numeric.length >= 2) {
    const y = numeric.find((n) => n !== xName)!;
    const stroke = categorical[0];
    description = `Line chart of ${y} over ${xName}${stroke ? `, one line per ${stroke}` : ""}.`;
    options = {
      y: { grid: true, label: `↑ ${y}` },
      color: stroke
        ? colorScale(
            data.map((d) => d[stroke]),
            systemColors,
          )
        : undefined,
      marks: [Plot.lineY(data, { x: xName, y, stroke: stroke, tip: true }), Plot.ruleY([0])],
    };
  } else if (categorical.length >= 1 && numeric.length >= 1) {
    const [cat1, cat2] = categorical;
    const x = numeric.find((n) => !["repetitions", "records", "samples", "n"].includes(n)) ?? numeric[0];
    description = `Bar chart of ${x}${cat2 ? ` by ${cat2}, grouped by ${cat1}` : ` by ${cat1}`}.`;
    const categories = new Set(data.map((d) => String(d[cat1])));
    options = cat2
      ? {
          marginLeft: 110,
          marginRight: 150,
          height: Math.min(1600, 40 + data.length * 20 + categories.size * 10),
          x: { grid: true, label: `${x} →` },
          fy: { label: null },
          y: { label: null },
          color: colorScale(
            data.map((d) => d[cat2]),
            systemColors,
          ),
          marks: [Plot.barX(data, { fy: cat1, y: cat2, x, fill: cat2, tip: true }), Plot.ruleX([0])],
        }
      : {
          marginLeft: 160,
          height: Math.min(1600, 40 + categories.size * 22),
          x: { grid: true, label: `${x} →` },
          y: { label: null },
          color: {
            ...colorScale(
              data.map((d) => d[cat1]),
              systemColors,
            ),
            legend: false,
          },
          marks: [
            Plot.barX(data, {
              y: cat1,
              x,
              fill: data.every((d) => String(d[cat1]) in systemColors) ? cat1 : "#2f6db5",
              tip: true,
            }),
            Plot.ruleX([0]),
          ],
        };
  } else if (numeric.length >= 2) {
    description = `Scatter plot of ${numeric[1]} against ${numeric[0]}.`;
    options = { grid: true, marks: [Plot.dot(data, { x: numeric[0], y: numeric[1], tip: true })] };
  } else if (numeric.length === 1) {
    description = `Histogram of ${numeric[0]}.`;
    options = {
      y: { grid: true },
      marks: [Plot.rectY(data, Plot.binX({ y: "count" }, { x: numeric[0] })), Plot.ruleY([0])],
    };
  }
  if (!options) {
    chartEl.replaceChildren(
      Object.assign(document.createElement("p"), { textContent: "No chart: the result has no numeric column." }),
    );
    return;
  }
  const node = Plot.plot({
    width: Math.min(900, chartEl.clientWidth || 800),
    style: { fontSize: "12px" },
    ...options,
    ariaLabel: "Chart of the query result",
    ariaDescription: description,
  });
  const svg = node.tagName.toLowerCase() === "svg" ? node : node.querySelector(":scope > svg");
  if (svg) {
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = `Chart of the query result: ${description}`;
    svg.insertBefore(title, svg.firstChild);
    svg.setAttribute("role", "img");
    roleLabelledGroups(svg);
  }
  const caption = document.createElement("figcaption");
  caption.textContent = `${description}${rows.length > CHART_ROW_LIMIT ? ` First ${CHART_ROW_LIMIT} rows.` : ""} The mark is chosen from the result's columns.`;
  chartEl.replaceChildren(node, caption);
}
