// Command mcpdb-gen writes the mcp-db study's data set as CSV files, one per table,
// deterministically: the same seed and scale factor give byte-identical files on every
// machine (each table has its own PCG stream derived from the seed, so tables do not depend
// on the order they are written in). It also writes the workloads' argument files
// (args/<workload>.json) whose keys and ranges point into the generated data.
//
// Scale factor 1 is seed 000's size (~25.6M rows over 8 tables); see rowCounts.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Rows per table at scale factor 1.0 (sum 25.6M, seed 000's "~25.6M rows across 8 tables").
var baseRows = []struct {
	table string
	rows  float64
}{
	{"customers", 1_000_000},
	{"products", 100_000},
	{"orders", 4_000_000},
	{"order_items", 10_000_000},
	{"payments", 4_000_000},
	{"shipments", 3_500_000},
	{"reviews", 1_000_000},
	{"events", 2_000_000},
}

// All timestamps fall in 2024 so date-range queries have a known calendar.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const yearSeconds = 366 * 24 * 3600 // 2024 is a leap year

var (
	countries  = []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "ES", "IT", "NL", "SE", "PL", "MX", "KR"}
	segments   = []string{"consumer", "smb", "enterprise"}
	categories = []string{"books", "electronics", "garden", "toys", "grocery", "sports", "beauty", "home", "auto", "music", "office", "pets"}
	statuses   = []string{"pending", "paid", "shipped", "delivered", "cancelled", "returned"}
	methods    = []string{"card", "paypal", "bank_transfer", "gift_card"}
	payStatus  = []string{"authorized", "captured", "refunded", "failed"}
	carriers   = []string{"ups", "dhl", "fedex", "usps", "postnl"}
	shipStatus = []string{"label_created", "in_transit", "delivered", "lost"}
	eventTypes = []string{"view", "search", "add_to_cart", "checkout", "login"}
)

type counts map[string]int64

func rowCounts(scale float64) counts {
	c := counts{}
	for _, t := range baseRows {
		n := int64(math.Round(t.rows * scale))
		if n < 10 {
			n = 10 // every table has rows even at the tiniest scale
		}
		c[t.table] = n
	}
	return c
}

func main() {
	out := flag.String("out", "", "output folder (created); CSV files <table>.csv and args/*.json go there")
	scale := flag.Float64("scale", 0.0002, "scale factor: 1 = seed 000's ~25.6M rows; quick 0.002 (~51k rows), ci 0.0002 (~5k rows)")
	seed := flag.Uint64("seed", 42, "PRNG seed (seed 000's generator used 42)")
	argsN := flag.Int("args", 1000, "argument sets per workload in args/*.json")
	onlyArgs := flag.Bool("args-only", false, "write only args/*.json and counts.json (no CSV)")
	flag.StringVar(&dialect, "dialect", "postgresql", "SQL spelling of the args files (a system's sql.dialect): postgresql, mysql, sqlite, tsql")
	flag.Parse()
	if *out == "" {
		fail("--out is required (the folder to write CSV files into)")
	}
	if !(*scale > 0 && *scale <= 10) {
		fail("--scale %v: must be > 0 and <= 10 (1 = seed 000's 25.6M rows)", *scale)
	}
	if *argsN < 1 || *argsN > 1_000_000 {
		fail("--args %d: must be between 1 and 1000000", *argsN)
	}
	switch dialect {
	case "postgresql", "mysql", "sqlite", "tsql":
	default:
		fail("--dialect %q: valid: postgresql, mysql, sqlite, tsql", dialect)
	}
	c := rowCounts(*scale)
	if err := os.MkdirAll(filepath.Join(*out, "args"), 0o755); err != nil {
		fail("%v", err)
	}
	if !*onlyArgs {
		for i, t := range baseRows {
			if err := writeTable(*out, t.table, c, *seed, uint64(i)); err != nil {
				fail("%s: %v", t.table, err)
			}
		}
	}
	if err := writeArgs(filepath.Join(*out, "args"), c, *seed, *argsN); err != nil {
		fail("args: %v", err)
	}
	meta := map[string]any{"seed": *seed, "scale": *scale, "rows": c, "total_rows": total(c)}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "counts.json"), append(b, '\n'), 0o644); err != nil {
		fail("%v", err)
	}
	fmt.Fprintf(os.Stderr, "mcpdb-gen: %d rows over %d tables (scale %g, seed %d) in %s\n", total(c), len(baseRows), *scale, *seed, *out)
}

func total(c counts) int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "mcpdb-gen: "+format+"\n", a...)
	os.Exit(2)
}

// csvWriter writes plain CSV: no value generated here contains a comma, quote or newline,
// so no quoting is needed and every bulk loader (COPY, LOAD DATA, .import) reads it alike.
type csvWriter struct {
	w   *bufio.Writer
	buf []byte
	col int
}

func (c *csvWriter) sep() {
	if c.col > 0 {
		c.buf = append(c.buf, ',')
	}
	c.col++
}
func (c *csvWriter) int(v int64)  { c.sep(); c.buf = strconv.AppendInt(c.buf, v, 10) }
func (c *csvWriter) str(v string) { c.sep(); c.buf = append(c.buf, v...) }
func (c *csvWriter) money(cents int64) {
	c.sep()
	c.buf = strconv.AppendInt(c.buf, cents/100, 10)
	c.buf = append(c.buf, '.')
	if r := cents % 100; r < 10 {
		c.buf = append(c.buf, '0', byte('0'+r))
	} else {
		c.buf = strconv.AppendInt(c.buf, r, 10)
	}
}
func (c *csvWriter) ts(sec int64) {
	c.sep()
	c.buf = epoch.Add(time.Duration(sec)*time.Second).AppendFormat(c.buf, "2006-01-02 15:04:05")
}
func (c *csvWriter) end() error {
	c.buf = append(c.buf, '\n')
	_, err := c.w.Write(c.buf)
	c.buf, c.col = c.buf[:0], 0
	return err
}

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// skewed returns an id in [1, n] with a mild skew toward low ids (a few hot customers and
// products, as in real shops) that still reaches every id.
func skewed(r *rand.Rand, n int64) int64 {
	u := r.Float64()
	return 1 + int64(float64(n)*u*u)%n
}

func writeTable(dir, table string, c counts, seed, stream uint64) error {
	f, err := os.Create(filepath.Join(dir, table+".csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := &csvWriter{w: bw}
	r := rand.New(rand.NewPCG(seed, stream))
	n := c[table]
	for id := int64(1); id <= n; id++ {
		w.int(id)
		switch table {
		case "customers":
			// id,name,email,country,segment,created_at
			w.str("customer_" + strconv.FormatInt(id, 10))
			w.str("c" + strconv.FormatInt(id, 10) + "@example.com")
			w.str(pick(r, countries))
			w.str(pick(r, segments))
			w.ts(r.Int64N(yearSeconds))
		case "products":
			// id,sku,name,category,price,stock,created_at
			w.str("SKU-" + strconv.FormatInt(id, 10))
			w.str("product_" + strconv.FormatInt(id, 10))
			w.str(pick(r, categories))
			w.money(100 + r.Int64N(50_000))
			w.int(r.Int64N(1000))
			w.ts(r.Int64N(yearSeconds))
		case "orders":
			// id,customer_id,status,total,created_at — created_at grows with id (orders arrive in time)
			w.int(skewed(r, c["customers"]))
			w.str(pick(r, statuses))
			w.money(500 + r.Int64N(100_000))
			w.ts(id*yearSeconds/(n+1) + r.Int64N(60))
		case "order_items":
			// id,order_id,product_id,quantity,unit_price — ~2.5 items per order
			w.int(1 + (id-1)*c["orders"]/n)
			w.int(skewed(r, c["products"]))
			w.int(1 + r.Int64N(5))
			w.money(100 + r.Int64N(50_000))
		case "payments":
			// id,order_id,method,amount,status,paid_at — one per order
			w.int(1 + (id-1)*c["orders"]/n)
			w.str(pick(r, methods))
			w.money(500 + r.Int64N(100_000))
			w.str(pick(r, payStatus))
			w.ts(id*yearSeconds/(n+1) + r.Int64N(3600))
		case "shipments":
			// id,order_id,carrier,status,shipped_at
			w.int(1 + (id-1)*c["orders"]/n)
			w.str(pick(r, carriers))
			w.str(pick(r, shipStatus))
			w.ts(id*yearSeconds/(n+1) + 86400 + r.Int64N(86400))
		case "reviews":
			// id,product_id,customer_id,rating,created_at
			w.int(skewed(r, c["products"]))
			w.int(1 + r.Int64N(c["customers"]))
			w.int(1 + r.Int64N(5))
			w.ts(r.Int64N(yearSeconds))
		case "events":
			// id,customer_id,event_type,product_id,created_at
			w.int(skewed(r, c["customers"]))
			w.str(pick(r, eventTypes))
			w.int(1 + r.Int64N(c["products"]))
			w.ts(id*yearSeconds/(n+1) + r.Int64N(60))
		default:
			return fmt.Errorf("unknown table %q", table)
		}
		if err := w.end(); err != nil {
			return err
		}
	}
	return bw.Flush()
}
