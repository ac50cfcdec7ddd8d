// api-service: the HTTP dependency of the mcp-servers study (seed 003). It serves the seed's
// 100,000 deterministic products from memory with three endpoints + /health, so every MCP server
// does the same HTTP I/O. Semantics follow the seed's api-service (see the study README); the
// code is ours. Go standard library only; loopback by default.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

const productCount = 100_000

var categories = []string{"Electronics", "Books", "Clothing", "Sports", "Home", "Garden", "Toys", "Food",
	"Beauty", "Automotive", "Music", "Movies", "Games", "Office", "Health", "Pets", "Travel", "Tools",
	"Jewelry", "Baby"}

// 50 brand names: the seed only needs 50 distinct ones (brand = brands[i%50]); the names are ours.
var brands = func() []string {
	stems := []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Cyberdyne"}
	suffixes := []string{"", " Pro", " Labs", " Works", " Co"}
	out := make([]string, 0, 50)
	for _, suffix := range suffixes {
		for _, stem := range stems {
			out = append(out, stem+suffix)
		}
	}
	return out
}()

var tagPool = []string{"sale", "new", "featured", "bestseller", "clearance", "limited", "popular", "exclusive"}

// Product is the full product record the API returns.
type Product struct {
	ID          int      `json:"id"`
	SKU         string   `json:"sku"`
	Name        string   `json:"name"`
	Category    string   `json:"category"`
	Brand       string   `json:"brand"`
	Price       float64  `json:"price"`
	Stock       int      `json:"stock"`
	Rating      float64  `json:"rating"`
	Tags        []string `json:"tags"`
	Weight      float64  `json:"weight"`
	Description string   `json:"description"`
}

type catalog struct {
	products   []Product
	byCategory map[string][]int // indexes into products, 5,000 per category
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func buildCatalog() *catalog {
	c := &catalog{products: make([]Product, productCount), byCategory: make(map[string][]int, len(categories))}
	for i := 0; i < productCount; i++ {
		cat := categories[i%len(categories)]
		brand := brands[i%len(brands)]
		tags := make([]string, 0, 4)
		for j := 0; j < 2+i%3; j++ {
			tags = append(tags, tagPool[(i+j)%len(tagPool)])
		}
		c.products[i] = Product{
			ID:          i + 1,
			SKU:         fmt.Sprintf("SKU-%06d", i+1),
			Name:        fmt.Sprintf("%s %s Item %d", brand, cat, i+1),
			Category:    cat,
			Brand:       brand,
			Price:       1.0 + float64(i%99900)/100,
			Stock:       i % 501,
			Rating:      1.0 + float64(i%40)/10,
			Tags:        tags,
			Weight:      round2(float64(1+i%100) * 0.1),
			Description: fmt.Sprintf("Quality %s by %s. SKU %06d.", cat, brand, i+1),
		}
		c.byCategory[cat] = append(c.byCategory[cat], i)
	}
	return c
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("api-service: writing response: %v", err)
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func parseFloatParam(q map[string][]string, name string, def float64) (float64, error) {
	v := ""
	if vs := q[name]; len(vs) > 0 {
		v = vs[0]
	}
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a number", name, v)
	}
	return f, nil
}

func (c *catalog) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	category := q.Get("category")
	if category == "" {
		category = "Electronics"
	}
	minPrice, err := parseFloatParam(q, "min_price", 0)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	maxPrice, err := parseFloatParam(q, "max_price", 0)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if maxPrice == 0 {
		maxPrice = math.Inf(1)
	}
	limit := 10
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit=%q is not an integer", s))
			return
		}
		limit = n
	}
	if limit <= 0 || limit > 1000 {
		limit = 10
	}
	// A linear scan of the category's 5,000 items and a sort, as the seed's service does: this is
	// the CPU work each search call costs the api-service.
	matches := make([]Product, 0, 256)
	for _, idx := range c.byCategory[category] {
		p := c.products[idx]
		if p.Price >= minPrice && p.Price <= maxPrice {
			matches = append(matches, p)
		}
	}
	sort.Slice(matches, func(a, b int) bool { return matches[a].Price < matches[b].Price })
	total := len(matches)
	if len(matches) > limit {
		matches = matches[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"category": category, "total_found": total, "products": matches})
}

func (c *catalog) product(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 || id > productCount {
		writeError(w, http.StatusNotFound, fmt.Sprintf("product %q not found (valid: 1..%d)", r.PathValue("id"), productCount))
		return
	}
	writeJSON(w, http.StatusOK, c.products[id-1])
}

type cartItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

type cartRequest struct {
	UserID string     `json:"user_id"`
	Items  []cartItem `json:"items"`
}

func (c *catalog) calculate(w http.ResponseWriter, r *http.Request) {
	var req cartRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "body is not a cart {user_id, items:[{product_id, quantity}]}: "+err.Error())
		return
	}
	subtotal := 0.0
	for _, it := range req.Items {
		if it.ProductID < 1 || it.ProductID > productCount {
			continue // the seed skips unknown products
		}
		subtotal += c.products[it.ProductID-1].Price * float64(it.Quantity)
	}
	tax := round2(subtotal * 0.085)
	shipping := 5.99
	discount := 0.0
	if subtotal >= 100 {
		discount = round2(subtotal * 0.10)
		shipping = 0
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"order_id":    fmt.Sprintf("ORD-%s-%d", strings.ReplaceAll(req.UserID, "-", ""), len(req.Items)),
		"user_id":     req.UserID,
		"subtotal":    round2(subtotal),
		"tax":         tax,
		"shipping":    shipping,
		"discount":    discount,
		"total":       round2(subtotal + tax + shipping - discount),
		"items_count": len(req.Items),
	})
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18100", "listen address (loopback only)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "api-service: --addr %q is not host:port (valid: e.g. 127.0.0.1:18100)\n", *addr)
		os.Exit(2)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(os.Stderr, "api-service: --addr host %q is not loopback (valid: 127.0.0.1, ::1, localhost)\n", host)
		os.Exit(2)
	}
	c := buildCatalog()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "server_type": "api-service"})
	})
	mux.HandleFunc("GET /products/search", c.search)
	mux.HandleFunc("GET /products/{id}", c.product)
	mux.HandleFunc("POST /cart/calculate", c.calculate)
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("api-service: %d products, listening on %s", len(c.products), *addr)
	log.Fatal(srv.ListenAndServe())
}
