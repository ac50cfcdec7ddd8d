// Study views, chosen by study name. A study with its own page section adds one view component
// (props: study, run, records, idp) in site/src/studies/ and one line here; a study without an entry
// gets the generic per-workload, latency, series, memory and published sections of StudyView.
import AnalyticalView from "../components/AnalyticalView.astro";
import McpDbView from "../components/McpDbView.astro";
import McpServersView from "./mcp-servers/View.astro";
import PaymentsView from "./payments/View.astro";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const studyViews: Record<string, any> = {
  analytical: AnalyticalView,
  "mcp-db": McpDbView,
  "mcp-servers": McpServersView,
  payments: PaymentsView,
};
