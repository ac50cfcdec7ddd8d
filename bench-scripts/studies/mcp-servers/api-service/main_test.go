package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func newMux() *http.ServeMux {
	c := buildCatalog()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /products/search", c.search)
	mux.HandleFunc("GET /products/{id}", c.product)
	mux.HandleFunc("POST /cart/calculate", c.calculate)
	return mux
}

func TestSearchSeedQueryFinds2251(t *testing.T) {
	rec := httptest.NewRecorder()
	newMux().ServeHTTP(rec, httptest.NewRequest("GET", "/products/search?category=Electronics&min_price=50&max_price=500&limit=10", nil))
	var got struct {
		TotalFound int       `json:"total_found"`
		Products   []Product `json:"products"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.TotalFound != 2251 || len(got.Products) != 10 {
		t.Fatalf("total_found=%d products=%d, want 2251 and 10", got.TotalFound, len(got.Products))
	}
	for i := 1; i < len(got.Products); i++ {
		if got.Products[i].Price < got.Products[i-1].Price {
			t.Fatalf("products not sorted by price at %d", i)
		}
	}
}

func TestCatalogShape(t *testing.T) {
	c := buildCatalog()
	if len(c.byCategory) != 20 || len(c.byCategory["Books"]) != 5000 {
		t.Fatalf("categories=%d books=%d", len(c.byCategory), len(c.byCategory["Books"]))
	}
	p := c.products[41] // id 42
	if p.ID != 42 || p.SKU != "SKU-000042" || p.Category != "Books" || p.Price != 1.41 || len(p.Tags) != 4 || p.Tags[0] != "new" {
		t.Fatalf("product 42 = %+v", p)
	}
}

func TestProductBounds(t *testing.T) {
	for path, want := range map[string]int{"/products/1": 200, "/products/100000": 200, "/products/0": 404, "/products/100001": 404, "/products/x": 404} {
		rec := httptest.NewRecorder()
		newMux().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want {
			t.Errorf("%s: %d, want %d", path, rec.Code, want)
		}
	}
}

func TestCartCalculate(t *testing.T) {
	rec := httptest.NewRecorder()
	body := `{"user_id":"user-00007","items":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}`
	newMux().ServeHTTP(rec, httptest.NewRequest("POST", "/cart/calculate", strings.NewReader(body)))
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// 42 -> 1.41 each, 1337 -> 14.36: subtotal 17.18 (< 100: shipping, no discount).
	if got["order_id"] != "ORD-user00007-2" || got["items_count"].(float64) != 2 || got["subtotal"].(float64) != 17.18 ||
		got["tax"].(float64) != 1.46 || got["total"].(float64) != 24.63 {
		t.Fatalf("cart = %v", got)
	}
	rec = httptest.NewRecorder()
	newMux().ServeHTTP(rec, httptest.NewRequest("POST", "/cart/calculate", strings.NewReader("nope")))
	if rec.Code != 400 {
		t.Fatalf("bad body: %d", rec.Code)
	}
}
