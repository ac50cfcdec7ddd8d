package rows

import "testing"

// Answers in the shapes the three servers send (captured from Faucet 0.1.12, DBHub 1.4.0 and
// Toolbox 1.12.0) must give the same rows as the direct driver.
func TestServerShapes(t *testing.T) {
	want := []Row{{"id": "785", "amount": "764.85", "paid_at": "2024-01-01 11:30:54"}}
	shapes := map[string]string{
		"faucet":  `{"count":1,"records":[{"amount":"764.85","id":785,"paid_at":"2024-01-01T11:30:54Z"}],"truncated":false}`,
		"dbhub":   `{"success":true,"data":{"statements":[{"sql":"SELECT 1","rows":[{"id":785,"amount":"764.85","paid_at":"2024-01-01T11:30:54.000Z"}],"count":1}],"source_id":"default"}}`,
		"toolbox": `[{"id":785,"amount":764.85,"paid_at":"2024-01-01T11:30:54Z"}]`,
		"columns": `{"columns":["id","amount","paid_at"],"rows":[[785,764.85,"2024-01-01 11:30:54"]]}`,
	}
	for name, text := range shapes {
		got, ok := FromJSONText(text)
		if !ok {
			t.Fatalf("%s: no rows found", name)
		}
		if d := Diff(Answer{Rows: want}, Answer{Rows: got}); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
}

func TestDiffFindsDifferences(t *testing.T) {
	a := Answer{Rows: []Row{{"id": "1", "total": "97.95"}}}
	cases := map[string]Answer{
		"value":   {Rows: []Row{{"id": "1", "total": "97.96"}}},
		"missing": {Rows: []Row{{"id": "1"}}},
		"count":   {Rows: []Row{}},
		"error":   {Error: "relation does not exist"},
	}
	for name, b := range cases {
		if Diff(a, b) == "" {
			t.Errorf("%s: Diff reported no difference", name)
		}
	}
	if d := Diff(a, Answer{Rows: []Row{{"id": "1", "total": "97.95", "extra": "x"}}}); d != "" {
		t.Errorf("extra columns from a server are not a difference: %s", d)
	}
}

func TestValueNormalisation(t *testing.T) {
	for in, want := range map[string]string{"764.850": "764.85", "2024-03-05T00:00:00.000Z": "2024-03-05 00:00:00", "c1@example.com": "c1@example.com"} {
		if got := Value(in); got != want {
			t.Errorf("Value(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Value(int64(7)); got != "7" {
		t.Errorf("Value(int64(7)) = %q", got)
	}
}

func TestNotRows(t *testing.T) {
	for _, text := range []string{"SQL execution failed", `{"success":false,"error":"boom"}`, `42`} {
		if _, ok := FromJSONText(text); ok {
			t.Errorf("FromJSONText(%q) found rows", text)
		}
	}
}
