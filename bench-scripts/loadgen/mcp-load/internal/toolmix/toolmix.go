// Package toolmix is a weighted mix of tools for one load run: each tools/call
// picks a tool by weight (from the worker's seeded PRNG), renders that tool's
// arguments and checks its result. A mix file (e.g. the mcp-servers study's
// tools.json) looks like
//
//	{"tools": [{"name": "search_products", "weight": 1,
//	            "args": {...fixed object...} | {"template": {...}, "vars": {...}},
//	            "checks": [{"path": "total_found", "eq": 2251}, {"path": "products", "len": 10}]}]}
//
// Check operators: eq (any JSON value), len (array length), min_len, gt (number),
// nonempty (true). path is dotted into the JSON document carried by the result's
// single text content item. A result that fails a check is an error of kind
// failed_check; other top-level keys of the file are ignored.
package toolmix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"

	"samebox/bench-scripts/loadgen/mcp-load/internal/argtpl"
	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
)

// KindFailedCheck is the error kind of a result that does not pass its checks.
const KindFailedCheck = "failed_check"

// Check is one assertion on a tool's JSON result.
type Check struct {
	Path     string          `json:"path"`
	Eq       json.RawMessage `json:"eq,omitempty"`
	Len      *int            `json:"len,omitempty"`
	MinLen   *int            `json:"min_len,omitempty"`
	Gt       *float64        `json:"gt,omitempty"`
	Nonempty bool            `json:"nonempty,omitempty"`

	path []string
	eq   any
}

// Tool is one entry of the mix.
type Tool struct {
	Name   string
	Weight float64
	Args   argtpl.Source
	Checks []Check
}

// Mix is the parsed mix file.
type Mix struct {
	Tools      []Tool
	cumulative []float64
}

// Parse reads a mix file and names the first thing that is wrong.
func Parse(data []byte) (*Mix, error) {
	var f struct {
		Tools []struct {
			Name   string          `json:"name"`
			Weight *float64        `json:"weight"`
			Args   json.RawMessage `json:"args"`
			Checks []Check         `json:"checks"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("mix file: want {\"tools\": [{name, weight, args, checks}]}: %v", err)
	}
	if len(f.Tools) == 0 {
		return nil, fmt.Errorf("mix file: \"tools\" is missing or empty")
	}
	m := &Mix{}
	total := 0.0
	seen := map[string]bool{}
	for i, t := range f.Tools {
		where := fmt.Sprintf("mix file: tools[%d]", i)
		if t.Name == "" {
			return nil, fmt.Errorf("%s: \"name\" is missing", where)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: tool %q appears twice", where, t.Name)
		}
		seen[t.Name] = true
		w := 1.0
		if t.Weight != nil {
			w = *t.Weight
		}
		if !(w > 0) || w > 1e6 {
			return nil, fmt.Errorf("%s (%s): weight %v must be > 0 and at most 1000000", where, t.Name, w)
		}
		args, err := parseArgs(t.Args)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): args: %v", where, t.Name, err)
		}
		for j := range t.Checks {
			if err := t.Checks[j].compile(); err != nil {
				return nil, fmt.Errorf("%s (%s): checks[%d]: %v", where, t.Name, j, err)
			}
		}
		total += w
		m.Tools = append(m.Tools, Tool{Name: t.Name, Weight: w, Args: args, Checks: t.Checks})
		m.cumulative = append(m.cumulative, total)
	}
	return m, nil
}

func parseArgs(raw json.RawMessage) (argtpl.Source, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return argtpl.Fixed([]byte(`{}`))
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return argtpl.Parse(raw) // an array of argument objects, or an error naming what is valid
	}
	if _, ok := probe["template"]; ok {
		return argtpl.Parse(raw)
	}
	return argtpl.Fixed(raw)
}

func (c *Check) compile() error {
	if c.Path == "" {
		return fmt.Errorf("\"path\" is missing")
	}
	c.path = strings.Split(c.Path, ".")
	ops := 0
	if len(c.Eq) > 0 {
		ops++
		if err := json.Unmarshal(c.Eq, &c.eq); err != nil {
			return fmt.Errorf("eq: %v", err)
		}
	}
	for _, set := range []bool{c.Len != nil, c.MinLen != nil, c.Gt != nil, c.Nonempty} {
		if set {
			ops++
		}
	}
	if ops != 1 {
		return fmt.Errorf("path %q: want exactly one of eq, len, min_len, gt, nonempty (got %d)", c.Path, ops)
	}
	return nil
}

// Names lists the tools in file order.
func (m *Mix) Names() []string {
	out := make([]string, len(m.Tools))
	for i, t := range m.Tools {
		out[i] = t.Name
	}
	return out
}

// Pick chooses a tool index by weight.
func (m *Mix) Pick(rng *rand.Rand) int {
	if len(m.Tools) == 1 {
		return 0
	}
	x := rng.Float64() * m.cumulative[len(m.cumulative)-1]
	for i, c := range m.cumulative {
		if x < c {
			return i
		}
	}
	return len(m.Tools) - 1
}

// Verify checks a tools/call result (the JSON-RPC "result" object) against
// tool i's checks. It returns nil or a *mcpclient.CallError of kind failed_check.
func (m *Mix) Verify(i int, result json.RawMessage) error {
	t := &m.Tools[i]
	if len(t.Checks) == 0 {
		return nil
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return failed(t.Name, "result is not an object with content: "+err.Error())
	}
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		return failed(t.Name, fmt.Sprintf("want one text content item, got %d item(s)", len(r.Content)))
	}
	var doc any
	if err := json.Unmarshal([]byte(r.Content[0].Text), &doc); err != nil {
		return failed(t.Name, "text content is not JSON: "+err.Error())
	}
	for _, c := range t.Checks {
		if why := c.eval(doc); why != "" {
			return failed(t.Name, why)
		}
	}
	return nil
}

func failed(tool, why string) error {
	return &mcpclient.CallError{Kind: KindFailedCheck, Detail: tool + ": " + why}
}

func (c *Check) eval(doc any) string {
	v := doc
	for _, p := range c.path {
		obj, ok := v.(map[string]any)
		if !ok {
			return c.Path + " missing"
		}
		if v, ok = obj[p]; !ok {
			return c.Path + " missing"
		}
	}
	switch {
	case c.eq != nil:
		if !reflect.DeepEqual(v, c.eq) {
			return fmt.Sprintf("%s = %v, want %v", c.Path, v, c.eq)
		}
	case c.Len != nil, c.MinLen != nil:
		arr, ok := v.([]any)
		if !ok {
			return c.Path + " is not an array"
		}
		if c.Len != nil && len(arr) != *c.Len {
			return fmt.Sprintf("len(%s) = %d, want %d", c.Path, len(arr), *c.Len)
		}
		if c.MinLen != nil && len(arr) < *c.MinLen {
			return fmt.Sprintf("len(%s) = %d, want >= %d", c.Path, len(arr), *c.MinLen)
		}
	case c.Gt != nil:
		n, ok := v.(float64)
		if !ok || !(n > *c.Gt) {
			return fmt.Sprintf("%s = %v, want a number > %v", c.Path, v, *c.Gt)
		}
	case c.Nonempty:
		switch x := v.(type) {
		case nil:
			return c.Path + " is null"
		case string:
			if x == "" {
				return c.Path + " is empty"
			}
		case []any:
			if len(x) == 0 {
				return c.Path + " is empty"
			}
		case map[string]any:
			if len(x) == 0 {
				return c.Path + " is empty"
			}
		}
	}
	return ""
}
