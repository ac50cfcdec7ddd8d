// Command mcpdb-answers checks that an MCP server answers the study's queries as the database
// does: it calls the tool once for each of the first N entries of a (server-specific) args
// file over Streamable HTTP (the official MCP Go SDK client), pulls the result rows out of the
// tool's JSON text, and compares them with mcpdb-direct --answers output. Exit 0 when every
// answer matches, 4 when one differs (the study's "wrong answer" code), 1 when the server
// cannot be reached. With --list it prints the server's tool names (session discovery check).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"samebox/bench-scripts/studies/mcp-db/tools/internal/rows"
)

func main() { os.Exit(run()) }

func run() int {
	url := flag.String("url", "", "MCP endpoint, e.g. http://127.0.0.1:8801/mcp")
	tool := flag.String("tool", "", "tool to call (faucet_query, execute_sql, ...)")
	argsFile := flag.String("args-file", "", "the server's args file: JSON array of tool arguments, each with \"sql\"")
	expect := flag.String("expect", "", "mcpdb-direct --answers output to compare with")
	n := flag.Int("n", 20, "how many queries to check")
	list := flag.Bool("list", false, "print the server's tools (name per line) and exit")
	flag.Parse()
	fail := func(code int, f string, a ...any) int {
		fmt.Fprintf(os.Stderr, "mcpdb-answers: "+f+"\n", a...)
		return code
	}
	if *url == "" {
		return fail(2, "--url is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "samebox-mcpdb-answers", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: *url, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fail(1, "connect %s: %v", *url, err)
	}
	defer cs.Close()
	if *list {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return fail(1, "tools/list: %v", err)
		}
		for _, t := range res.Tools {
			fmt.Println(t.Name)
		}
		return 0
	}
	if *tool == "" || *argsFile == "" || *expect == "" {
		return fail(2, "--tool, --args-file and --expect are required (or --list)")
	}
	raw, qs, err := rows.ReadArgs(*argsFile)
	if err != nil {
		return fail(2, "%v", err)
	}
	data, err := os.ReadFile(*expect)
	if err != nil {
		return fail(2, "--expect: %v", err)
	}
	var want []rows.Answer
	if err := json.Unmarshal(data, &want); err != nil {
		return fail(2, "--expect %s: want mcpdb-direct --answers JSON: %v", *expect, err)
	}
	count := min(*n, len(qs), len(want))
	bad := 0
	for i := 0; i < count; i++ {
		if want[i].SQL != qs[i].SQL {
			return fail(2, "query %d differs between --args-file and --expect; regenerate both from the same args", i)
		}
		var args map[string]any
		_ = json.Unmarshal(raw[i], &args)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *tool, Arguments: args})
		if err != nil {
			return fail(1, "tools/call %s: %v", *tool, err)
		}
		got := rows.Answer{SQL: qs[i].SQL}
		text := resultText(res)
		if res.IsError {
			got.Error = text
		} else if r, ok := rowsOf(res, text); ok {
			got.Rows = r
		} else {
			got.Error = "no rows found in the tool's answer: " + truncate(text, 300)
		}
		if d := rows.Diff(want[i], got); d != "" {
			bad++
			fmt.Fprintf(os.Stderr, "mcpdb-answers: query %d (%s): %s\n", i, truncate(qs[i].SQL, 120), d)
			if bad == 1 {
				fmt.Fprintf(os.Stderr, "mcpdb-answers: raw answer: %s\n", truncate(text, 600))
			}
		}
	}
	fmt.Printf("%d of %d answers match the direct driver\n", count-bad, count)
	if bad > 0 {
		return 4
	}
	return 0
}

// resultText joins the text content items; Toolbox sends one item per row, the others one item.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func rowsOf(res *mcp.CallToolResult, text string) ([]rows.Row, bool) {
	// Toolbox answers a query with no rows with no text at all (or "null").
	if t := strings.TrimSpace(text); t == "" || t == "null" {
		return []rows.Row{}, true
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			if r, ok := rows.FromJSONText(string(b)); ok {
				return r, true
			}
		}
	}
	if r, ok := rows.FromJSONText(text); ok {
		return r, true
	}
	// Toolbox: one content item per row, each a JSON object of that row's columns. An object
	// that is a result wrapper (success/records/rows/data/statements) is not a row.
	var all []rows.Row
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		if rows.IsWrapper(t.Text) {
			return nil, false
		}
		r, ok := rows.FromJSONText("[" + t.Text + "]")
		if !ok {
			return nil, false
		}
		all = append(all, r...)
	}
	if len(res.Content) > 0 && all != nil {
		return all, true
	}
	return nil, false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
