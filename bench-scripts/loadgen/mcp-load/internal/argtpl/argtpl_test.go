package argtpl

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

func draw(t *testing.T, s Source, seed uint64, n int) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	out := make([]string, n)
	for i := range out {
		raw := s.Next(rng)
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("rendered invalid JSON %s: %v", raw, err)
		}
		out[i] = string(raw)
	}
	return out
}

func TestTemplateRendersTypedAndEmbeddedValues(t *testing.T) {
	src, err := Parse([]byte(`{"template":{"table":"users","id":"{{id}}","filter":"id = {{id}} AND name = '{{name}}'"},
		"vars":{"id":{"int_range":[10,12]},"name":["a\"b","c"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 0))
	seen := map[float64]bool{}
	for i := 0; i < 200; i++ {
		var obj struct {
			Table  string  `json:"table"`
			ID     float64 `json:"id"`
			Filter string  `json:"filter"`
		}
		raw := src.Next(rng)
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if obj.ID < 10 || obj.ID > 12 {
			t.Fatalf("id %v outside int_range [10,12]", obj.ID)
		}
		seen[obj.ID] = true
		// The same variable gets the same value everywhere in one call.
		if !strings.HasPrefix(obj.Filter, "id = "+strings.TrimSuffix(strings.TrimSuffix(jsonNum(obj.ID), ".0"), "")+" AND name = '") {
			t.Fatalf("filter %q does not reuse id %v", obj.Filter, obj.ID)
		}
		if !strings.HasSuffix(obj.Filter, `'a"b'`) && !strings.HasSuffix(obj.Filter, "'c'") {
			t.Fatalf("filter %q: name not substituted", obj.Filter)
		}
	}
	if len(seen) != 3 {
		t.Errorf("200 draws hit ids %v, want all of 10..12", seen)
	}
}

func jsonNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func TestSameSeedSameSequence(t *testing.T) {
	src, err := Parse([]byte(`{"template":{"id":"{{id}}"},"vars":{"id":{"int_range":[1,1000000]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := draw(t, src, 7, 50), draw(t, src, 7, 50), draw(t, src, 8, 50)
	if strings.Join(a, "") != strings.Join(b, "") {
		t.Error("same seed gave different sequences")
	}
	if strings.Join(a, "") == strings.Join(c, "") {
		t.Error("different seeds gave the same sequence")
	}
}

func TestListPicksFromSet(t *testing.T) {
	src, err := Parse([]byte(`[{"k":1},{"k":2}]`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range draw(t, src, 3, 100) {
		got[s] = true
	}
	if len(got) != 2 || !got[`{"k":1}`] || !got[`{"k":2}`] {
		t.Errorf("drew %v, want both objects", got)
	}
}

func TestBadFiles(t *testing.T) {
	for in, want := range map[string]string{
		``:            "empty",
		`[]`:          "empty",
		`[1,2]`:       "array of JSON objects",
		`{"vars":{}}`: "template",
		`{"template":{"a":"{{x}}"},"vars":{"y":[1]}}`:      "vars defines only [y]",
		`{"template":{},"vars":{"x":[]}}`:                  "no values",
		`{"template":{},"vars":{"x":{"int_range":[5,1]}}}`: "empty",
		`{"template":{},"vars":{"x":"abc"}}`:               "list of values",
		`{"template":{},"extra":1}`:                        "unknown field",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want it to mention %q", in, err, want)
		}
	}
	if _, err := Fixed([]byte(`[1]`)); err == nil {
		t.Error("Fixed accepted a non-object")
	}
}
