package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func i64(v int64) *int64 { return &v }

func TestMixWeightsAndParams(t *testing.T) {
	m, err := NewMix([]Query{
		{Name: "read", SQL: "SELECT $1::int", Params: []Param{{Uniform: []int64{10, 12}}}, Weight: 8},
		{Name: "write", SQL: "INSERT INTO x VALUES ($1)", Params: []Param{{Seq: i64(100)}}, Weight: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	counts := [2]int{}
	seen := map[int64]bool{}
	for n := 0; n < 10000; n++ {
		qi, args := m.Next(r)
		counts[qi]++
		v := args[0].(int64)
		if qi == 0 && (v < 10 || v > 12) {
			t.Fatalf("uniform param %d outside [10, 12]", v)
		}
		if qi == 1 {
			if seen[v] || v < 100 {
				t.Fatalf("seq param %d repeated or below start", v)
			}
			seen[v] = true
		}
	}
	share := float64(counts[0]) / 10000
	if share < 0.77 || share > 0.83 {
		t.Fatalf("read share %.3f, want about 0.8", share)
	}
}

func TestMixRejectsBadParams(t *testing.T) {
	for _, q := range []Query{
		{SQL: ""},
		{SQL: "SELECT 1", Weight: -1},
		{SQL: "SELECT $1", Params: []Param{{Uniform: []int64{5, 1}}}},
		{SQL: "SELECT $1", Params: []Param{{Uniform: []int64{1, 5}, Seq: i64(1)}}},
	} {
		if _, err := NewMix([]Query{q}); err == nil {
			t.Fatalf("NewMix(%+v) accepted a bad query", q)
		}
	}
}

func TestParseFlagsValidates(t *testing.T) {
	bad := [][]string{
		{},
		{"-dsn", "x"},
		{"-dsn", "x", "-workload", "w", "-connections", "0"},
		{"-dsn", "x", "-workload", "w", "-duration", "10ms"},
		{"-dsn", "x", "-workload", "w", "-mode", "turbo"},
		{"-dsn", "x", "-workload", "w", "-max-queries", "0"},
		{"-driver", "mysql", "-dsn", "x", "-workload", "w"},
	}
	for _, a := range bad {
		if _, err := parseFlags(a); err == nil {
			t.Fatalf("parseFlags(%v) accepted bad flags", a)
		}
	}
	c, err := parseFlags([]string{"-dsn", "x", "-workload", "w"})
	if err != nil || c.connections != 8 || c.duration != 5*time.Second || c.driver != "pgx" {
		t.Fatalf("defaults: %+v %v", c, err)
	}
}

func TestLoadWorkloadErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "w.json")
	os.WriteFile(p, []byte(`{"name":"x","tool":"hyperfine","queries":[{"sql":"SELECT 1"}]}`), 0o644)
	if _, err := LoadWorkload(p); err == nil || !strings.Contains(err.Error(), "pgwire-tp") {
		t.Fatalf("wrong tool not rejected: %v", err)
	}
	os.WriteFile(p, []byte(`{"name":"x","tool":"pgwire-tp","queries":[]}`), 0o644)
	if _, err := LoadWorkload(p); err == nil {
		t.Fatal("empty queries accepted")
	}
}

// Against a real server: PGWIRE_TEST_DSN (the test suite points it at our PostgreSQL).
func TestRunAgainstServer(t *testing.T) {
	dsn := os.Getenv("PGWIRE_TEST_DSN")
	if dsn == "" {
		t.Skip("PGWIRE_TEST_DSN not set")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "w.json")
	os.WriteFile(p, []byte(`{"name":"t","tool":"pgwire-tp",
	  "setup":["DROP TABLE IF EXISTS pgwire_tp_test","CREATE TABLE pgwire_tp_test (id bigint primary key, v int)"],
	  "queries":[{"name":"ins","sql":"INSERT INTO pgwire_tp_test VALUES ($1, 1)","params":[{"seq":1}],"weight":1},
	             {"name":"sel","sql":"SELECT count(*) FROM pgwire_tp_test WHERE id <= $1","params":[{"uniform":[1,1000]}],"weight":3}]}`), 0o644)
	for _, mode := range []string{"cache", "simple"} {
		c := config{dsn: dsn, workload: p, connections: 4, duration: time.Second, warmup: 100 * time.Millisecond,
			maxQueries: 2000, seed: 1, mode: mode, timeout: 5 * time.Second}
		res, err := run(c)
		if err != nil {
			t.Fatal(err)
		}
		if res.Queries < 1 || res.QPS <= 0 || res.LatencyMs.P50 <= 0 || res.LatencyMs.P99 < res.LatencyMs.P50 || res.LatencyMs.Max < res.LatencyMs.P99 {
			t.Fatalf("%s: implausible result %+v", mode, res)
		}
		if res.Queries > 2000+int64(c.connections) {
			t.Fatalf("%s: max-queries bound not honoured: %d", mode, res.Queries)
		}
		if res.Errors != 0 {
			t.Fatalf("%s: %d errors: %s", mode, res.Errors, res.FirstError)
		}
	}
	// a query that fails is counted as an error, not as a measurement
	os.WriteFile(p, []byte(`{"name":"t","tool":"pgwire-tp","queries":[{"name":"bad","sql":"SELECT * FROM no_such_table_pgwire_tp"}]}`), 0o644)
	res, err := run(config{dsn: dsn, workload: p, connections: 2, duration: time.Second, warmup: 0, maxQueries: 100, seed: 1, mode: "cache", timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors == 0 || res.Queries != 0 || !strings.Contains(res.FirstError, "no_such_table") {
		t.Fatalf("errors not counted: %+v", res)
	}
}

func TestSteadyWarmUp(t *testing.T) {
	if !steady([]float64{1, 100, 101, 99}, 3, 0.05) || steady([]float64{100, 100, 120}, 3, 0.05) || steady([]float64{0, 0, 0}, 3, 0.05) {
		t.Fatal("steady: the last 3 within ±5 % of their positive mean")
	}
	// A constant rate is steady after k windows.
	start := time.Now()
	constant := func() int64 { return int64(time.Since(start) / time.Millisecond) }
	took, ok, rates := warmUp(constant, 0, 5*time.Second, 50*time.Millisecond, 3, 0.2)
	if !ok || took > time.Second || len(rates) < 3 {
		t.Fatalf("constant rate: took %v, steady %v, rates %v", took, ok, rates)
	}
	// An accelerating rate never agrees: stopped at the bound, steady false.
	accel := func() int64 { ms := int64(time.Since(start) / time.Millisecond); return ms * ms }
	took, ok, _ = warmUp(accel, 0, 300*time.Millisecond, 50*time.Millisecond, 3, 0.01)
	if ok || took < 250*time.Millisecond || took > 400*time.Millisecond {
		t.Fatalf("accelerating rate: took %v, steady %v; want false at the 300 ms bound", took, ok)
	}
}

func TestInlineArgsPutsIntegersInHighestFirst(t *testing.T) {
	args := make([]any, 10)
	for i := range args {
		args[i] = int64(i + 1)
	}
	got, err := inlineArgs("SELECT $1, $10, $2", args)
	if err != nil || got != "SELECT 1, 10, 2" {
		t.Fatalf("inlineArgs = %q, %v; want \"SELECT 1, 10, 2\"", got, err)
	}
	if _, err := inlineArgs("SELECT $1", []any{"x"}); err == nil {
		t.Fatal("a non-integer parameter must be refused, not inlined")
	}
}
