package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Query is one tools/call's SQL. Args files hold [{"sql": "..."}, ...]; the study's run verb
// adds whatever else a server's tool wants (Faucet's service name) before handing the file to
// mcp-load, and the direct timer reads the same file, so both run the same statements.
type Query struct {
	SQL string `json:"sql"`
}

// Dialect-specific spelling. Everything else is the SQL common to PostgreSQL, MySQL/MariaDB
// and SQLite; T-SQL (SQL Server) has no LIMIT.
var dialect = "postgresql"

func limit(sql string, n int) string {
	if dialect == "tsql" {
		return strings.Replace(sql, "SELECT ", fmt.Sprintf("SELECT TOP %d ", n), 1)
	}
	return fmt.Sprintf("%s LIMIT %d", sql, n)
}

func day(d int64) string {
	return epoch.Add(time.Duration(d) * 24 * time.Hour).Format("2006-01-02 15:04:05")
}

func hour(h int64) string {
	return epoch.Add(time.Duration(h) * time.Hour).Format("2006-01-02 15:04:05")
}

// Point reads: primary-key lookups, the same at baseline and with indexes.
func pointRead(r *rand.Rand, c counts) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("SELECT id, name, email, country, segment, created_at FROM customers WHERE id = %d", 1+r.Int64N(c["customers"]))
	case 1:
		return fmt.Sprintf("SELECT id, customer_id, status, total, created_at FROM orders WHERE id = %d", 1+r.Int64N(c["orders"]))
	default:
		return fmt.Sprintf("SELECT id, sku, name, category, price, stock FROM products WHERE id = %d", 1+r.Int64N(c["products"]))
	}
}

// Filtered queries: predicates on columns that have no index in the baseline schema (full
// scans there) and one of the study's secondary indexes in the indexed schema.
func filtered(r *rand.Rand, c counts) string {
	switch r.IntN(7) {
	case 0:
		return limit(fmt.Sprintf("SELECT id, status, total, created_at FROM orders WHERE customer_id = %d ORDER BY created_at DESC, id DESC", 1+r.Int64N(c["customers"])), 20)
	case 1:
		return fmt.Sprintf("SELECT id, name, country, segment FROM customers WHERE email = 'c%d@example.com'", 1+r.Int64N(c["customers"]))
	case 2:
		return limit(fmt.Sprintf("SELECT id, order_id, quantity, unit_price FROM order_items WHERE product_id = %d ORDER BY id", 1+r.Int64N(c["products"])), 50)
	case 3:
		return limit(fmt.Sprintf("SELECT id, customer_id, rating, created_at FROM reviews WHERE product_id = %d AND rating >= 4 ORDER BY id", 1+r.Int64N(c["products"])), 20)
	case 4:
		return limit(fmt.Sprintf("SELECT id, event_type, product_id, created_at FROM events WHERE customer_id = %d ORDER BY created_at DESC, id DESC", 1+r.Int64N(c["customers"])), 10)
	case 5:
		return fmt.Sprintf("SELECT id, method, amount, status FROM payments WHERE order_id = %d ORDER BY id", 1+r.Int64N(c["orders"]))
	default:
		return fmt.Sprintf("SELECT id, carrier, status, shipped_at FROM shipments WHERE order_id = %d ORDER BY id", 1+r.Int64N(c["orders"]))
	}
}

// Analytical queries: aggregates over a narrow slice (a day, an hour, a hundred orders, one
// product), the kind of question an agent asks; ranges an index can serve.
func analytical(r *rand.Rand, c counts) string {
	switch r.IntN(4) {
	case 0:
		d := r.Int64N(365)
		return fmt.Sprintf("SELECT status, COUNT(*) AS orders, SUM(total) AS revenue FROM orders WHERE created_at >= '%s' AND created_at < '%s' GROUP BY status ORDER BY status", day(d), day(d+1))
	case 1:
		lo := 1 + r.Int64N(max(1, c["orders"]-100))
		return fmt.Sprintf("SELECT p.category, COUNT(*) AS items, SUM(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE oi.order_id BETWEEN %d AND %d GROUP BY p.category ORDER BY p.category", lo, lo+99)
	case 2:
		return fmt.Sprintf("SELECT rating, COUNT(*) AS reviews FROM reviews WHERE product_id = %d GROUP BY rating ORDER BY rating", 1+r.Int64N(c["products"]))
	default:
		h := r.Int64N(365 * 24)
		return fmt.Sprintf("SELECT event_type, COUNT(*) AS events, COUNT(DISTINCT customer_id) AS customers FROM events WHERE created_at >= '%s' AND created_at < '%s' GROUP BY event_type ORDER BY event_type", hour(h), hour(h+1))
	}
}

func writeArgs(dir string, c counts, seed uint64, n int) error {
	gens := []struct {
		name string
		gen  func(*rand.Rand, counts) string
	}{
		{"point_reads", pointRead},
		{"filtered_queries", filtered},
		{"analytical", analytical},
		// The sweep mixes point reads and filtered queries half and half, as an agent fleet
		// answering lookups does; at baseline the filtered half is what saturates.
		{"concurrency_sweep", func(r *rand.Rand, c counts) string {
			if r.IntN(2) == 0 {
				return pointRead(r, c)
			}
			return filtered(r, c)
		}},
	}
	for i, g := range gens {
		r := rand.New(rand.NewPCG(seed, uint64(100+i)))
		qs := make([]Query, n)
		for j := range qs {
			qs[j] = Query{SQL: g.gen(r, c)}
		}
		b, err := json.MarshalIndent(qs, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, g.name+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
