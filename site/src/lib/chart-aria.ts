// Plot names each mark's <g> with aria-label ("bar", "x-axis tick label", ...). A bare <g> has no role that
// permits aria-label (axe: aria-prohibited-attr, WCAG 4.1.2), so each named group gets role="group": the
// names stay (tests select marks by them) and become valid. Used at build time (charts.ts, linkedom) and in
// the browser (Explore's chart).
export function roleLabelledGroups(svg: Element): void {
  for (const g of svg.querySelectorAll("g[aria-label]")) g.setAttribute("role", "group");
}
