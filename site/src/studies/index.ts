// One site module per study, chosen by study name: site/src/studies/<study>/ holds the study's view
// (View.astro: props study, run, records, idp), its charts, tables and decision rules. StudyView keeps
// only what every study shares (header, not-measured systems, failed cells, memory and CPU, exact
// commands and configuration, other runs). Adding a study's page section = a folder + one line here.
//   replacesGeneric: the view replaces StudyView's generic per-workload, latency, series and published
//     sections (else it is shown above them);
//   showsWhatRan: the view shows each workload's what-ran files itself (else StudyView lists them).
import type { Study, RunManifest, ResultRecord } from "../lib/data.ts";
import AnalyticalView from "./analytical/View.astro";
import McpDbView from "./mcp-db/View.astro";
import McpServersView from "./mcp-servers/View.astro";
import OltpView from "./oltp/View.astro";
import PaymentsView from "./payments/View.astro";

export interface StudyViewProps {
  study: Study;
  run: RunManifest | undefined;
  records: ResultRecord[];
  idp: string;
}
export interface StudyModule {
  View: (props: StudyViewProps) => unknown;
  replacesGeneric: boolean;
  showsWhatRan: boolean;
}

export const studyModules: Record<string, StudyModule> = {
  analytical: { View: AnalyticalView, replacesGeneric: true, showsWhatRan: true },
  "mcp-db": { View: McpDbView, replacesGeneric: true, showsWhatRan: false },
  "mcp-servers": { View: McpServersView, replacesGeneric: true, showsWhatRan: false },
  oltp: { View: OltpView, replacesGeneric: false, showsWhatRan: false },
  payments: { View: PaymentsView, replacesGeneric: true, showsWhatRan: false },
};
