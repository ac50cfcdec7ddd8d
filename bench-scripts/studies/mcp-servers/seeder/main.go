// seeder: FLUSHDB and load the seed-003 key layout into Redis (carts, histories, the 100k-member
// popularity set, rate-limit counters), pipelined, then verify the key counts. The layout follows
// the seed's seeder (see the study README); the code is ours.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	cartUsers      = 10_000
	historyUsers   = 1_000
	historyEntries = 20
	popularMembers = 100_000
	rateLimitUsers = 100
	batch          = 2_000 // commands per pipeline round trip
)

type cartItem struct {
	ProductID int `json:"product_id"`
	Qty       int `json:"qty"`
}

type historyEntry struct {
	OrderID   string  `json:"order_id"`
	ProductID int     `json:"product_id"`
	Qty       int     `json:"qty"`
	Price     float64 `json:"price"`
	TS        int64   `json:"ts"`
}

func userID(n int) string { return fmt.Sprintf("user-%05d", n) }

func cartItems(n int) []cartItem {
	items := []cartItem{{(n*7)%100000 + 1, 1 + n%3}, {(n*13)%100000 + 1, 1 + n%2}}
	if n%3 == 0 {
		items = append(items, cartItem{(n*17)%100000 + 1, 1})
	}
	return items
}

func cartTotal(items []cartItem) float64 {
	total := 0.0
	for _, it := range items {
		total += float64(it.Qty) * float64((it.ProductID*100)%9999+1) / 100
	}
	return total
}

// pipelined runs fill(pipe, i) for i in [0, n) in pipelines of `batch` commands.
func pipelined(ctx context.Context, rdb *redis.Client, n int, fill func(redis.Pipeliner, int) error) error {
	for start := 0; start < n; start += batch {
		pipe := rdb.Pipeline()
		for i := start; i < min(n, start+batch); i++ {
			if err := fill(pipe, i); err != nil {
				return err
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func seed(ctx context.Context, rdb *redis.Client) error {
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		return fmt.Errorf("FLUSHDB: %w", err)
	}
	err := pipelined(ctx, rdb, cartUsers, func(p redis.Pipeliner, i int) error {
		n := i + 1
		items := cartItems(n)
		js, err := json.Marshal(items)
		if err != nil {
			return err
		}
		p.HSet(ctx, "bench:cart:"+userID(n), "user_id", userID(n), "items", string(js),
			"created", "1740000000", "expires", "1740086400", "total", strconv.FormatFloat(cartTotal(items), 'f', 2, 64))
		return nil
	})
	if err != nil {
		return fmt.Errorf("carts: %w", err)
	}
	err = pipelined(ctx, rdb, historyUsers, func(p redis.Pipeliner, i int) error {
		n := i + 1
		entries := make([]any, 0, historyEntries)
		for j := 0; j < historyEntries; j++ {
			js, err := json.Marshal(historyEntry{
				OrderID:   fmt.Sprintf("ORD-%05d-%02d", n, j),
				ProductID: (n*j*7)%100000 + 1,
				Qty:       1 + j%3,
				Price:     math.Round(float64((n*j*13)%9999+1)) / 100,
				TS:        1740000000 + int64(n)*86400 + int64(j)*3600,
			})
			if err != nil {
				return err
			}
			entries = append(entries, string(js))
		}
		p.RPush(ctx, "bench:history:"+userID(n), entries...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("histories: %w", err)
	}
	const perZAdd = 1000
	err = pipelined(ctx, rdb, popularMembers/perZAdd, func(p redis.Pipeliner, chunk int) error {
		members := make([]redis.Z, 0, perZAdd)
		for i := chunk*perZAdd + 1; i <= (chunk+1)*perZAdd; i++ {
			members = append(members, redis.Z{Score: float64(i * 7 % 10000), Member: "product:" + strconv.Itoa(i)})
		}
		p.ZAdd(ctx, "bench:popular", members...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("popular: %w", err)
	}
	err = pipelined(ctx, rdb, rateLimitUsers, func(p redis.Pipeliner, i int) error {
		p.Set(ctx, "bench:ratelimit:"+userID(i+1), "0", 0)
		return nil
	})
	if err != nil {
		return fmt.Errorf("rate limits: %w", err)
	}
	return nil
}

// verify checks what the tools depend on, so a half-seeded Redis is never benchmarked.
func verify(ctx context.Context, rdb *redis.Client) error {
	want := int64(cartUsers + historyUsers + 1 + rateLimitUsers)
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != want {
		return fmt.Errorf("DBSIZE = %d (%v), want %d", n, err, want)
	}
	if n, err := rdb.ZCard(ctx, "bench:popular").Result(); err != nil || n != popularMembers {
		return fmt.Errorf("ZCARD bench:popular = %d (%v), want %d", n, err, popularMembers)
	}
	if n, err := rdb.LLen(ctx, "bench:history:user-00050").Result(); err != nil || n != historyEntries {
		return fmt.Errorf("LLEN bench:history:user-00050 = %d (%v), want %d", n, err, historyEntries)
	}
	return nil
}

func main() {
	url := flag.String("url", "redis://127.0.0.1:16379", "Redis URL (loopback only)")
	verifyOnly := flag.Bool("verify", false, "only verify an existing seed")
	flag.Parse()
	opts, err := redis.ParseURL(*url)
	if err != nil {
		fmt.Fprintf(os.Stderr, "seeder: --url %q is not a Redis URL (valid: redis://127.0.0.1:<port>[/db])\n", *url)
		os.Exit(2)
	}
	host, _, _ := net.SplitHostPort(opts.Addr)
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(os.Stderr, "seeder: Redis host %q is not loopback (valid: 127.0.0.1, ::1, localhost)\n", host)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	started := time.Now()
	if !*verifyOnly {
		if err := seed(ctx, rdb); err != nil {
			fmt.Fprintf(os.Stderr, "seeder: %v\n", err)
			os.Exit(1)
		}
	}
	if err := verify(ctx, rdb); err != nil {
		fmt.Fprintf(os.Stderr, "seeder: verify: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("seeded %s: %d carts, %d histories x %d, %d popular, %d rate limits in %.2fs\n", opts.Addr,
		cartUsers, historyUsers, historyEntries, popularMembers, rateLimitUsers, time.Since(started).Seconds())
}
