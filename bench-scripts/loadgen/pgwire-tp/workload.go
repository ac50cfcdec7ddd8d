package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Param generates one query argument per execution.
//
//	{"uniform": [lo, hi]}  an integer drawn uniformly from lo..hi inclusive (per-connection PRNG)
//	{"seq": start}         start, start+1, ... shared by all connections (unique keys for inserts)
type Param struct {
	Uniform []int64 `json:"uniform,omitempty"`
	Seq     *int64  `json:"seq,omitempty"`
}

// Query is one statement of the mix; Weight is its relative share (default 1).
type Query struct {
	Name   string  `json:"name"`
	SQL    string  `json:"sql"`
	Params []Param `json:"params,omitempty"`
	Weight int     `json:"weight,omitempty"`
}

// Workload is the part of an analytical workload file (tool "pgwire-tp") this client reads.
type Workload struct {
	Name    string   `json:"name"`
	Tool    string   `json:"tool"`
	Setup   []string `json:"setup,omitempty"`
	Queries []Query  `json:"queries"`
}

// Mix picks queries by weight and fills their parameters.
type Mix struct {
	queries []Query
	cum     []int // cumulative weights
	total   int
	seqs    []*atomic.Int64 // one counter per query param with "seq" (nil otherwise), flattened
	seqIdx  [][]int
}

func LoadWorkload(path string) (*Workload, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w Workload
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("%s: not a workload JSON object: %v", path, err)
	}
	if w.Tool != "" && w.Tool != "pgwire-tp" {
		return nil, fmt.Errorf("%s: tool is %q, expected \"pgwire-tp\"", path, w.Tool)
	}
	if len(w.Queries) == 0 {
		return nil, fmt.Errorf("%s: \"queries\" is empty; give at least one {\"sql\": ...}", path)
	}
	return &w, nil
}

func NewMix(qs []Query) (*Mix, error) {
	m := &Mix{queries: qs}
	for i, q := range qs {
		if strings.TrimSpace(q.SQL) == "" {
			return nil, fmt.Errorf("query %d has no sql", i)
		}
		w := q.Weight
		if w == 0 {
			w = 1
		}
		if w < 0 {
			return nil, fmt.Errorf("query %d (%s): weight %d is negative; valid: a positive integer", i, q.Name, w)
		}
		m.total += w
		m.cum = append(m.cum, m.total)
		idx := make([]int, len(q.Params))
		for j, p := range q.Params {
			idx[j] = -1
			switch {
			case p.Seq != nil && p.Uniform != nil:
				return nil, fmt.Errorf("query %d param %d: give either uniform or seq, not both", i, j)
			case p.Seq != nil:
				c := &atomic.Int64{}
				c.Store(*p.Seq)
				idx[j] = len(m.seqs)
				m.seqs = append(m.seqs, c)
			case len(p.Uniform) == 2 && p.Uniform[0] <= p.Uniform[1]:
			default:
				return nil, fmt.Errorf("query %d param %d: expected {\"uniform\": [lo, hi]} with lo <= hi or {\"seq\": start}", i, j)
			}
		}
		m.seqIdx = append(m.seqIdx, idx)
	}
	return m, nil
}

// Next returns the index of the chosen query and its arguments.
func (m *Mix) Next(r *rand.Rand) (int, []any) {
	x := r.IntN(m.total)
	qi := 0
	for x >= m.cum[qi] {
		qi++
	}
	q := m.queries[qi]
	args := make([]any, len(q.Params))
	for j, p := range q.Params {
		if k := m.seqIdx[qi][j]; k >= 0 {
			args[j] = m.seqs[k].Add(1) - 1
		} else {
			args[j] = p.Uniform[0] + r.Int64N(p.Uniform[1]-p.Uniform[0]+1)
		}
	}
	return qi, args
}

// inlineArgs puts the drawn values into the statement's $1..$n placeholders as SQL literals (integers only:
// the parameters a workload can draw), highest first so $1 never eats the start of $10.
func inlineArgs(sql string, args []any) (string, error) {
	for i := len(args); i >= 1; i-- {
		v, ok := args[i-1].(int64)
		if !ok {
			return "", fmt.Errorf("parameter $%d is %T; simple mode inlines integers only", i, args[i-1])
		}
		sql = strings.ReplaceAll(sql, "$"+strconv.Itoa(i), strconv.FormatInt(v, 10))
	}
	return sql, nil
}
