// Seed-003 MCP server in Go: the official github.com/modelcontextprotocol/go-sdk (Streamable HTTP,
// stateless, JSON answers) on net/http, Redis through go-redis/v9, the api-service through one
// http.Client. Every tool result is one text content item holding the JSON string; a failed I/O is an
// isError result naming what failed.
//
// Environment: MCP_PORT (default 18181), REDIS_URL (default redis://127.0.0.1:16379),
// API_SERVICE_URL (default http://127.0.0.1:18100).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
)

const serverType = "go"

type backends struct {
	apiURL string
	http   *http.Client
	redis  *redis.Client
}

type searchArgs struct {
	Category string  `json:"category,omitempty" jsonschema:"product category, e.g. Electronics"`
	MinPrice float64 `json:"min_price,omitempty" jsonschema:"minimum price (inclusive)"`
	MaxPrice float64 `json:"max_price,omitempty" jsonschema:"maximum price (inclusive)"`
	Limit    int     `json:"limit,omitempty" jsonschema:"maximum number of products to return"`
}

type cartArgs struct {
	UserID string `json:"user_id,omitempty" jsonschema:"user id, e.g. user-00042"`
}

type checkoutItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

type checkoutArgs struct {
	UserID string         `json:"user_id,omitempty" jsonschema:"user id, e.g. user-00042"`
	Items  []checkoutItem `json:"items,omitempty" jsonschema:"items to buy: product_id and quantity"`
}

// jsonResult is the seed's result shape: one text item holding the JSON document, or an isError
// result saying what failed (never a fake success).
func jsonResult(doc any, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil, nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "encoding result: " + err.Error()}}}, nil, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}

func (b *backends) do(req *http.Request, into any) error {
	resp, err := b.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading body: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	if into == nil {
		return nil
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%s %s: answer is not JSON: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

func (b *backends) getJSON(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.apiURL+path, nil)
	if err != nil {
		return err
	}
	return b.do(req, into)
}

func (b *backends) searchProducts(ctx context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, any, error) {
	// The seed's defaults for missing arguments (its k6 script always sends all of them).
	if a.Category == "" {
		a.Category = "Electronics"
	}
	if a.MinPrice == 0 {
		a.MinPrice = 50
	}
	if a.MaxPrice == 0 {
		a.MaxPrice = 500
	}
	if a.Limit == 0 {
		a.Limit = 10
	}
	q := url.Values{}
	q.Set("category", a.Category)
	q.Set("min_price", strconv.FormatFloat(a.MinPrice, 'f', -1, 64))
	q.Set("max_price", strconv.FormatFloat(a.MaxPrice, 'f', -1, 64))
	q.Set("limit", strconv.Itoa(a.Limit))

	var (
		found struct {
			TotalFound int              `json:"total_found"`
			Products   []map[string]any `json:"products"`
		}
		popular             []string
		searchErr, redisErr error
		wg                  sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); searchErr = b.getJSON(ctx, "/products/search?"+q.Encode(), &found) }()
	go func() {
		defer wg.Done()
		popular, redisErr = b.redis.ZRevRange(ctx, "bench:popular", 0, 9).Result()
		if redisErr != nil {
			redisErr = fmt.Errorf("ZREVRANGE bench:popular: %w", redisErr)
		}
	}()
	wg.Wait()
	if searchErr != nil {
		return jsonResult(nil, searchErr)
	}
	if redisErr != nil {
		return jsonResult(nil, redisErr)
	}

	top10 := make([]int, 0, len(popular))
	rank := make(map[int]int, len(popular))
	for i, member := range popular {
		if id, err := strconv.Atoi(strings.TrimPrefix(member, "product:")); err == nil {
			top10 = append(top10, id)
			rank[id] = i + 1
		}
	}
	products := make([]map[string]any, 0, len(found.Products))
	for _, p := range found.Products {
		idf, _ := p["id"].(float64)
		id := int(idf)
		products = append(products, map[string]any{
			"id": id, "sku": p["sku"], "name": p["name"], "price": p["price"], "rating": p["rating"],
			"popularity_rank": rank[id],
		})
	}
	return jsonResult(map[string]any{
		"category":          a.Category,
		"total_found":       found.TotalFound,
		"products":          products,
		"top10_popular_ids": top10,
		"server_type":       serverType,
	}, nil)
}

func (b *backends) getUserCart(ctx context.Context, _ *mcp.CallToolRequest, a cartArgs) (*mcp.CallToolResult, any, error) {
	if a.UserID == "" {
		a.UserID = "user-00042"
	}
	// The cart comes first: its first product decides the product lookup.
	cart, err := b.redis.HGetAll(ctx, "bench:cart:"+a.UserID).Result()
	if err != nil {
		return jsonResult(nil, fmt.Errorf("HGETALL bench:cart: %w", err))
	}
	items := []any{}
	if s, ok := cart["items"]; ok {
		if err := json.Unmarshal([]byte(s), &items); err != nil {
			return jsonResult(nil, fmt.Errorf("cart items are not JSON: %w", err))
		}
	}
	firstProduct := 1
	if len(items) > 0 {
		if m, ok := items[0].(map[string]any); ok {
			if id, ok := m["product_id"].(float64); ok {
				firstProduct = int(id)
			}
		}
	}
	estimatedTotal, _ := strconv.ParseFloat(cart["total"], 64)

	var (
		history                []string
		productErr, historyErr error
		wg                     sync.WaitGroup
	)
	wg.Add(2)
	// The product body is fetched for its I/O and discarded, as in the seed.
	go func() { defer wg.Done(); productErr = b.getJSON(ctx, "/products/"+strconv.Itoa(firstProduct), nil) }()
	go func() {
		defer wg.Done()
		history, historyErr = b.redis.LRange(ctx, "bench:history:"+a.UserID, 0, 4).Result()
		if historyErr != nil {
			historyErr = fmt.Errorf("LRANGE bench:history: %w", historyErr)
		}
	}()
	wg.Wait()
	if productErr != nil {
		return jsonResult(nil, productErr)
	}
	if historyErr != nil {
		return jsonResult(nil, historyErr)
	}
	recent := make([]any, 0, len(history))
	for _, e := range history {
		var v any
		if json.Unmarshal([]byte(e), &v) != nil {
			v = map[string]any{"raw": e}
		}
		recent = append(recent, v)
	}
	return jsonResult(map[string]any{
		"user_id":        a.UserID,
		"cart":           map[string]any{"items": items, "item_count": len(items), "estimated_total": estimatedTotal},
		"recent_history": recent,
		"server_type":    serverType,
	}, nil)
}

func (b *backends) checkout(ctx context.Context, _ *mcp.CallToolRequest, a checkoutArgs) (*mcp.CallToolResult, any, error) {
	if a.UserID == "" {
		a.UserID = "user-00042"
	}
	if len(a.Items) == 0 {
		a.Items = []checkoutItem{{ProductID: 42, Quantity: 2}, {ProductID: 1337, Quantity: 1}}
	}
	userNum := 42
	if i := strings.LastIndexByte(a.UserID, '-'); i >= 0 {
		if n, err := strconv.Atoi(a.UserID[i+1:]); err == nil {
			userNum = n
		}
	}
	rateKey := fmt.Sprintf("bench:ratelimit:user-%05d", userNum%100)
	historyKey := "bench:history:" + a.UserID
	now := time.Now().Unix()
	orderEntry, _ := json.Marshal(map[string]any{"order_id": fmt.Sprintf("ORD-%s-%d", a.UserID, now), "items": a.Items, "ts": now})
	calcBody, _ := json.Marshal(map[string]any{"user_id": a.UserID, "items": a.Items})

	var (
		calc struct {
			OrderID string  `json:"order_id"`
			Total   float64 `json:"total"`
		}
		rateCount int64
		errs      [4]error
		wg        sync.WaitGroup
	)
	// The POST and three separate Redis writes, all in parallel (as the seed's Go server).
	wg.Add(4)
	go func() {
		defer wg.Done()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.apiURL+"/cart/calculate", bytes.NewReader(calcBody))
		if err != nil {
			errs[0] = err
			return
		}
		req.Header.Set("Content-Type", "application/json")
		errs[0] = b.do(req, &calc)
	}()
	go func() {
		defer wg.Done()
		var err error
		if rateCount, err = b.redis.Incr(ctx, rateKey).Result(); err != nil {
			errs[1] = fmt.Errorf("INCR bench:ratelimit: %w", err)
		}
	}()
	go func() {
		defer wg.Done()
		if err := b.redis.RPush(ctx, historyKey, orderEntry).Err(); err != nil {
			errs[2] = fmt.Errorf("RPUSH bench:history: %w", err)
		}
	}()
	go func() {
		defer wg.Done()
		if err := b.redis.ZIncrBy(ctx, "bench:popular", 1, fmt.Sprintf("product:%d", a.Items[0].ProductID)).Err(); err != nil {
			errs[3] = fmt.Errorf("ZINCRBY bench:popular: %w", err)
		}
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return jsonResult(nil, err)
		}
	}
	return jsonResult(map[string]any{
		"order_id":         calc.OrderID,
		"user_id":          a.UserID,
		"total":            calc.Total,
		"items_count":      len(a.Items),
		"rate_limit_count": rateCount,
		"status":           "confirmed",
		"server_type":      serverType,
	}, nil)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// sdkVersion reads the go-sdk module version compiled into this binary.
func sdkVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/modelcontextprotocol/go-sdk" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("go-sdk " + strings.TrimPrefix(sdkVersion(), "v"))
		return
	}
	port := envOr("MCP_PORT", "18181")
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		log.Fatalf("MCP_PORT=%q is not a port number 1-65535", port)
	}
	redisURL := envOr("REDIS_URL", "redis://127.0.0.1:16379")
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		log.Fatalf("REDIS_URL=%q is not a redis:// URL: %v", redisURL, err)
	}
	b := &backends{
		apiURL: strings.TrimRight(envOr("API_SERVICE_URL", "http://127.0.0.1:18100"), "/"),
		// The seed's transport: enough idle connections per host for 50 clients.
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			MaxIdleConns: 200, MaxIdleConnsPerHost: 100, IdleConnTimeout: 90 * time.Second,
		}},
		redis: redis.NewClient(opt),
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "samebox-mcp-go", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "search_products", Description: "Search products by category and price range, merged with popularity data"}, b.searchProducts)
	mcp.AddTool(server, &mcp.Tool{Name: "get_user_cart", Description: "Get user cart details with recent order history"}, b.getUserCart)
	mcp.AddTool(server, &mcp.Tool{Name: "checkout", Description: "Process checkout: calculate total, update rate limit, record history"}, b.checkout)

	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok","server_type":"go"}`))
	})
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))

	addr := "127.0.0.1:" + port
	log.Printf("mcp-go (go-sdk %s) listening on http://%s/mcp (redis %s, api %s, redis pool %d)", sdkVersion(), addr, redisURL, b.apiURL, opt.PoolSize)
	log.Fatal(http.ListenAndServe(addr, mux))
}
