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
	"strings"

	"github.com/valyala/fastjson"

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
	parsers    fastjson.ParserPool // one parser per concurrent Verify
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
	if len(m.Tools[i].Checks) == 0 {
		return nil
	}
	p := m.parsers.Get()
	defer m.parsers.Put(p)
	v, err := p.ParseBytes(result)
	if err != nil {
		return failed(m.Tools[i].Name, "result is not an object with content: "+err.Error())
	}
	return m.VerifyValue(i, v)
}

// VerifyValue is Verify of an already parsed result.
func (m *Mix) VerifyValue(i int, result *fastjson.Value) error {
	t := &m.Tools[i]
	if len(t.Checks) == 0 {
		return nil
	}
	if result.Type() != fastjson.TypeObject {
		return failed(t.Name, "result is not an object with content")
	}
	content := result.Get("content")
	var items []*fastjson.Value
	if content != nil && content.Type() != fastjson.TypeNull {
		if content.Type() != fastjson.TypeArray {
			return failed(t.Name, "result is not an object with content: content is not an array")
		}
		items = content.GetArray()
	}
	if len(items) != 1 || items[0].Type() != fastjson.TypeObject || string(items[0].GetStringBytes("type")) != "text" {
		return failed(t.Name, fmt.Sprintf("want one text content item, got %d item(s)", len(items)))
	}
	text := items[0].Get("text")
	if text == nil || text.Type() != fastjson.TypeString {
		return failed(t.Name, "text content is not JSON: no text")
	}
	p := m.parsers.Get()
	defer m.parsers.Put(p)
	doc, err := p.ParseBytes(text.GetStringBytes())
	if err != nil {
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

func (c *Check) eval(doc *fastjson.Value) string {
	v := doc
	for _, p := range c.path {
		obj, err := v.Object()
		if err != nil {
			return c.Path + " missing"
		}
		if v = obj.Get(p); v == nil {
			return c.Path + " missing"
		}
	}
	switch {
	case c.Eq != nil:
		if !equal(v, c.eq) {
			return fmt.Sprintf("%s = %s, want %s", c.Path, v, c.Eq)
		}
	case c.Len != nil, c.MinLen != nil:
		if v.Type() != fastjson.TypeArray {
			return c.Path + " is not an array"
		}
		n := len(v.GetArray())
		if c.Len != nil && n != *c.Len {
			return fmt.Sprintf("len(%s) = %d, want %d", c.Path, n, *c.Len)
		}
		if c.MinLen != nil && n < *c.MinLen {
			return fmt.Sprintf("len(%s) = %d, want >= %d", c.Path, n, *c.MinLen)
		}
	case c.Gt != nil:
		n, err := v.Float64()
		if err != nil || !(n > *c.Gt) {
			return fmt.Sprintf("%s = %s, want a number > %v", c.Path, v, *c.Gt)
		}
	case c.Nonempty:
		switch v.Type() {
		case fastjson.TypeNull:
			return c.Path + " is null"
		case fastjson.TypeString:
			if len(v.GetStringBytes()) == 0 {
				return c.Path + " is empty"
			}
		case fastjson.TypeArray:
			if len(v.GetArray()) == 0 {
				return c.Path + " is empty"
			}
		case fastjson.TypeObject:
			if o, _ := v.Object(); o.Len() == 0 {
				return c.Path + " is empty"
			}
		}
	}
	return ""
}

// equal compares a JSON value with one decoded by encoding/json (numbers as
// float64, objects as map[string]any), as reflect.DeepEqual of two such
// decodings would.
func equal(v *fastjson.Value, want any) bool {
	switch w := want.(type) {
	case nil:
		return v.Type() == fastjson.TypeNull
	case bool:
		return (w && v.Type() == fastjson.TypeTrue) || (!w && v.Type() == fastjson.TypeFalse)
	case float64:
		n, err := v.Float64()
		return err == nil && n == w
	case string:
		return v.Type() == fastjson.TypeString && string(v.GetStringBytes()) == w
	case []any:
		if v.Type() != fastjson.TypeArray {
			return false
		}
		a := v.GetArray()
		if len(a) != len(w) {
			return false
		}
		for i := range a {
			if !equal(a[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		o, err := v.Object()
		if err != nil {
			return false
		}
		n, ok := 0, true
		o.Visit(func(k []byte, x *fastjson.Value) {
			n++
			if ok {
				wx, found := w[string(k)]
				ok = found && equal(x, wx)
			}
		})
		return ok && n == len(w)
	}
	return false
}
