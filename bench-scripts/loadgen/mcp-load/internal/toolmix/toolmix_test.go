package toolmix

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"samebox/bench-scripts/loadgen/mcp-load/internal/mcpclient"
)

// The mcp-servers study's file is the real input: parse it, not a copy.
func studyMix(t *testing.T) *Mix {
	t.Helper()
	data, err := os.ReadFile("../../../../studies/mcp-servers/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func result(doc string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": doc}}})
	return b
}

func kind(err error) string {
	var ce *mcpclient.CallError
	if errors.As(err, &ce) {
		return ce.Kind
	}
	return ""
}

func TestStudyMixChecks(t *testing.T) {
	m := studyMix(t)
	if got := strings.Join(m.Names(), ","); got != "search_products,get_user_cart,checkout" {
		t.Fatalf("names %s", got)
	}
	ten := `[1,2,3,4,5,6,7,8,9,10]`
	good := map[int]string{
		0: `{"category":"Electronics","total_found":2251,"products":` + ten + `,"top10_popular_ids":` + ten + `,"server_type":"go"}`,
		1: `{"user_id":"user-00001","cart":{"items":[{}],"item_count":1},"recent_history":[1,2,3,4,5]}`,
		2: `{"status":"confirmed","total":24.63,"items_count":2}`,
	}
	bad := map[int]string{
		0: `{"category":"Electronics","total_found":2250,"products":` + ten + `,"top10_popular_ids":` + ten + `}`,
		1: `{"user_id":"user-00001","cart":{"items":[]},"recent_history":[1,2,3,4,5]}`,
		2: `{"status":"confirmed","total":0,"items_count":2}`,
	}
	for i, doc := range good {
		if err := m.Verify(i, result(doc)); err != nil {
			t.Errorf("tool %d good doc failed: %v", i, err)
		}
	}
	for i, doc := range bad {
		if err := m.Verify(i, result(doc)); kind(err) != KindFailedCheck {
			t.Errorf("tool %d bad doc: err %v, want failed_check", i, err)
		}
	}
	two := json.RawMessage(`{"content":[{"type":"text","text":"{}"},{"type":"text","text":"{}"}]}`)
	if kind(m.Verify(2, two)) != KindFailedCheck {
		t.Error("two content items must fail")
	}
	if kind(m.Verify(2, result("not json"))) != KindFailedCheck {
		t.Error("non-JSON text must fail")
	}
}

func TestStudyMixArgsAndWeights(t *testing.T) {
	m := studyMix(t)
	rng := rand.New(rand.NewPCG(42, 0))
	counts := make([]int, len(m.Tools))
	for range 30000 {
		counts[m.Pick(rng)]++
	}
	for i, c := range counts {
		if c < 9000 || c > 11000 {
			t.Errorf("tool %d picked %d of 30000 times, want ~10000 (1:1:1)", i, c)
		}
	}
	var cart map[string]any
	json.Unmarshal(m.Tools[1].Args.Next(rng), &cart)
	uid, _ := cart["user_id"].(string)
	if len(uid) != len("user-00001") || !strings.HasPrefix(uid, "user-000") {
		t.Errorf("cart user_id %q", uid)
	}
	var search map[string]any
	json.Unmarshal(m.Tools[0].Args.Next(rng), &search)
	if search["category"] != "Electronics" || search["max_price"] != 500.0 {
		t.Errorf("search args %v", search)
	}
}

func TestParseErrorsNameTheProblem(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                                    `"tools" is missing`,
		`{"tools":[{"weight":1}]}`:              `"name" is missing`,
		`{"tools":[{"name":"a","weight":0}]}`:   `weight 0`,
		`{"tools":[{"name":"a"},{"name":"a"}]}`: `appears twice`,
		`{"tools":[{"name":"a","checks":[{"path":"x"}]}]}`:                `exactly one of`,
		`{"tools":[{"name":"a","checks":[{"path":"x","len":1,"gt":0}]}]}`: `exactly one of`,
		`nope`: `want {"tools"`,
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want error containing %q", in, err, want)
		}
	}
}
