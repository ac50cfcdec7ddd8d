// Package rows normalises query results so an answer fetched through an MCP server (JSON text
// in a tools/call result) can be compared with the same query run through the database's own
// driver: column names lower-cased, numbers printed alike whether they came as JSON numbers,
// decimal strings or driver types, timestamps as "YYYY-MM-DD HH:MM:SS".
package rows

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Row maps a lower-cased column name to its normalised value.
type Row map[string]string

// Query is one entry of an args file; only "sql" matters here, other keys are the server's.
type Query struct {
	SQL string `json:"sql"`
}

// Answer is what both sides print for one query.
type Answer struct {
	SQL   string `json:"sql"`
	Rows  []Row  `json:"rows"`
	Error string `json:"error,omitempty"`
}

// ReadArgs reads an args file: a JSON array of objects with at least "sql".
func ReadArgs(path string) ([]json.RawMessage, []Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("%s: want a JSON array of {\"sql\": ...} objects: %v", path, err)
	}
	if len(raw) == 0 {
		return nil, nil, fmt.Errorf("%s: the array is empty", path)
	}
	qs := make([]Query, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &qs[i]); err != nil || qs[i].SQL == "" {
			return nil, nil, fmt.Errorf("%s: entry %d has no \"sql\" string", path, i)
		}
	}
	return raw, qs, nil
}

var tsRE = regexp.MustCompile(`^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(\.0+)?(Z|[+-]00:?00)?$`)

// Value normalises one cell.
func Value(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return Value(string(x))
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05")
	case float64:
		return num(x)
	case float32:
		return num(float64(x))
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int:
		return strconv.Itoa(x)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return Value(string(x))
	case string:
		if m := tsRE.FindStringSubmatch(x); m != nil {
			return m[1] + " " + m[2]
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil && strings.TrimSpace(x) == x {
			return num(f)
		}
		return x
	default:
		// pgtype.Numeric and friends implement driver.Valuer or fmt.Stringer.
		if s, ok := v.(fmt.Stringer); ok {
			return Value(s.String())
		}
		return Value(fmt.Sprint(v))
	}
}

// Money sums and averages differ in the last bits between engines' float paths; ten
// significant digits is exact for every value the generator writes.
func num(f float64) string { return strconv.FormatFloat(f, 'g', 10, 64) }

// FromJSONText finds the result rows in a tool's text answer: the first array of objects, or
// a {"columns": [...], "rows": [[...]]} pair, anywhere in the document.
func FromJSONText(text string) ([]Row, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	return find(doc)
}

func find(doc any) ([]Row, bool) {
	switch x := doc.(type) {
	case []any:
		if len(x) == 0 {
			return []Row{}, true
		}
		if first, ok := x[0].(map[string]any); ok {
			// DBHub: {"statements": [{"sql": ..., "rows": [...], "count": n}]}, one per statement.
			if _, isStmt := first["rows"].([]any); isStmt && len(x) == 1 {
				return find(first)
			}
			out := make([]Row, 0, len(x))
			for _, e := range x {
				m, ok := e.(map[string]any)
				if !ok {
					return nil, false
				}
				out = append(out, fromMap(m))
			}
			return out, true
		}
	case map[string]any:
		if cols, ok := x["columns"].([]any); ok {
			if rs, ok := x["rows"].([]any); ok {
				if out, ok := zip(cols, rs); ok {
					return out, true
				}
			}
		}
		// Prefer the conventional keys, then anything else, in a fixed order.
		for _, k := range []string{"rows", "records", "data", "statements", "results", "result", "resource"} {
			if v, ok := x[k]; ok {
				if out, ok := find(v); ok {
					return out, true
				}
			}
		}
	}
	return nil, false
}

func fromMap(m map[string]any) Row {
	r := Row{}
	for k, v := range m {
		r[strings.ToLower(k)] = Value(v)
	}
	return r
}

func zip(cols []any, rs []any) ([]Row, bool) {
	out := make([]Row, 0, len(rs))
	for _, e := range rs {
		vals, ok := e.([]any)
		if !ok || len(vals) != len(cols) {
			return nil, false
		}
		r := Row{}
		for i, c := range cols {
			name, _ := c.(string)
			if m, ok := c.(map[string]any); ok {
				name, _ = m["name"].(string)
			}
			r[strings.ToLower(name)] = Value(vals[i])
		}
		out = append(out, r)
	}
	return out, true
}

// Diff returns "" when both answers agree, else one line saying where they differ.
func Diff(want, got Answer) string {
	if want.Error != "" || got.Error != "" {
		if want.Error != "" && got.Error != "" {
			return ""
		}
		return fmt.Sprintf("error mismatch: direct=%q mcp=%q", want.Error, got.Error)
	}
	if len(want.Rows) != len(got.Rows) {
		return fmt.Sprintf("row count: direct %d, mcp %d", len(want.Rows), len(got.Rows))
	}
	for i := range want.Rows {
		for k, v := range want.Rows[i] {
			if g, ok := got.Rows[i][k]; !ok || g != v {
				return fmt.Sprintf("row %d column %s: direct %q, mcp %q", i, k, v, got.Rows[i][k])
			}
		}
	}
	return ""
}

// IsWrapper reports whether text is a JSON object carrying a result rather than being a row.
func IsWrapper(text string) bool {
	var m map[string]any
	if json.Unmarshal([]byte(text), &m) != nil {
		return false
	}
	for _, k := range []string{"success", "records", "rows", "data", "statements", "error"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}
