// Explore's SQL editor (CodeMirror 6), loaded after the page starts DuckDB so it does not delay it.
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { sql, PostgreSQL } from "@codemirror/lang-sql";

export function createEditor(
  parent: HTMLElement,
  doc: string,
  columns: string[],
  run: () => void,
): { get(): string; set(text: string): void } {
  const view = new EditorView({
    parent,
    doc,
    extensions: [
      keymap.of([
        {
          key: "Mod-Enter",
          run: () => {
            run();
            return true;
          },
        },
      ]),
      basicSetup,
      sql({
        dialect: PostgreSQL,
        upperCaseKeywords: true,
        schema: { results: columns, compared_runs: ["run_id", "study", "source"] },
      }),
      EditorView.contentAttributes.of({ "aria-labelledby": "editor-label" }),
      EditorView.lineWrapping,
    ],
  });
  return {
    get: () => view.state.doc.toString(),
    set: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
  };
}
