// Package argtpl produces the JSON arguments of each tools/call. Arguments are
// either fixed, picked from a list, or rendered from a template whose
// {{placeholders}} take values from small per-variable sets, so point reads
// hit different keys. Choices come from a seeded PRNG, so a worker's sequence
// of arguments is the same on every run with the same seed.
package argtpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Source yields the encoded arguments object for one call.
type Source interface {
	Next(rng *rand.Rand) json.RawMessage
}

// Fixed returns the same arguments for every call. raw must be a JSON object.
func Fixed(raw []byte) (Source, error) {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	b, _ := json.Marshal(obj)
	return fixed(b), nil
}

type fixed json.RawMessage

func (f fixed) Next(*rand.Rand) json.RawMessage { return json.RawMessage(f) }

type list []json.RawMessage

func (l list) Next(rng *rand.Rand) json.RawMessage { return l[rng.IntN(len(l))] }

// Parse reads an args file:
//
//	[ {...}, {...} ]                       one of these objects per call
//	{"template": {...}, "vars": {...}}    a rendered template
//
// vars maps a name to a list of JSON values or to {"int_range": [lo, hi]}
// (inclusive). In the template a string that is exactly "{{name}}" is replaced
// by the value itself (a number stays a number); {{name}} inside a longer
// string is replaced by the value's text.
func Parse(data []byte) (Source, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("args file is empty; want a JSON array of argument objects or {\"template\": ..., \"vars\": ...}")
	}
	if data[0] == '[' {
		var items []map[string]any
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("args file: want an array of JSON objects: %v", err)
		}
		if len(items) == 0 {
			return nil, fmt.Errorf("args file: the array is empty")
		}
		l := make(list, len(items))
		for i, it := range items {
			l[i], _ = json.Marshal(it)
		}
		return l, nil
	}
	var f struct {
		Template map[string]any             `json:"template"`
		Vars     map[string]json.RawMessage `json:"vars"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("args file: want {\"template\": {...}, \"vars\": {...}}: %v", err)
	}
	if f.Template == nil {
		return nil, fmt.Errorf("args file: \"template\" (a JSON object) is missing")
	}
	return newTemplate(f.Template, f.Vars)
}

type variable struct {
	values []any // explicit set
	lo, hi int64 // int_range when values == nil
}

func (v *variable) pick(rng *rand.Rand) any {
	if v.values != nil {
		return v.values[rng.IntN(len(v.values))]
	}
	return v.lo + rng.Int64N(v.hi-v.lo+1)
}

type segment struct {
	literal []byte
	varIdx  int  // -1 for a literal
	whole   bool // the whole JSON string was the placeholder
}

type template struct {
	segments []segment
	vars     []*variable
}

var placeholderRE = regexp.MustCompile(`"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}"|\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)

func newTemplate(tpl map[string]any, rawVars map[string]json.RawMessage) (*template, error) {
	t := &template{}
	index := map[string]int{}
	names := make([]string, 0, len(rawVars))
	for name := range rawVars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		raw := rawVars[name]
		v := &variable{}
		var arr []any
		var rng struct {
			IntRange []int64 `json:"int_range"`
		}
		switch {
		case json.Unmarshal(raw, &arr) == nil:
			if len(arr) == 0 {
				return nil, fmt.Errorf("args file: var %q has no values", name)
			}
			v.values = arr
		case json.Unmarshal(raw, &rng) == nil && len(rng.IntRange) == 2:
			if rng.IntRange[0] > rng.IntRange[1] {
				return nil, fmt.Errorf("args file: var %q: int_range [%d, %d] is empty", name, rng.IntRange[0], rng.IntRange[1])
			}
			v.lo, v.hi = rng.IntRange[0], rng.IntRange[1]
		default:
			return nil, fmt.Errorf("args file: var %q must be a list of values or {\"int_range\": [lo, hi]}", name)
		}
		index[name] = len(t.vars)
		t.vars = append(t.vars, v)
	}
	text, err := json.Marshal(tpl)
	if err != nil {
		return nil, err
	}
	pos := 0
	for _, m := range placeholderRE.FindAllSubmatchIndex(text, -1) {
		whole := m[2] >= 0
		var name string
		if whole {
			name = string(text[m[2]:m[3]])
		} else {
			name = string(text[m[4]:m[5]])
		}
		idx, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("args file: template uses {{%s}} but vars defines only [%s]", name, strings.Join(names, ", "))
		}
		t.segments = append(t.segments, segment{literal: text[pos:m[0]], varIdx: -1}, segment{varIdx: idx, whole: whole})
		pos = m[1]
	}
	t.segments = append(t.segments, segment{literal: text[pos:], varIdx: -1})
	return t, nil
}

func (t *template) Next(rng *rand.Rand) json.RawMessage {
	// One value per variable per call, so a variable used twice agrees.
	picked := make([]any, len(t.vars))
	for i, v := range t.vars {
		picked[i] = v.pick(rng)
	}
	out := make([]byte, 0, 128)
	for _, s := range t.segments {
		if s.varIdx < 0 {
			out = append(out, s.literal...)
			continue
		}
		val := picked[s.varIdx]
		if s.whole {
			b, _ := json.Marshal(val)
			out = append(out, b...)
			continue
		}
		var str string
		switch x := val.(type) {
		case string:
			str = x
		case int64:
			str = strconv.FormatInt(x, 10)
		default:
			b, _ := json.Marshal(x)
			str = string(b)
		}
		q, _ := json.Marshal(str)
		out = append(out, q[1:len(q)-1]...)
	}
	return out
}
