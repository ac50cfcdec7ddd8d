package rows

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// Drivers are the database/sql drivers the direct path links (a system's drivers.go names one):
// the same Go drivers Faucet itself links (pgx, go-sql-driver/mysql, modernc sqlite).
var Drivers = []string{"pgx", "mysql", "sqlite"}

// Open connects through driver; pool size = concurrency, so each worker keeps one connection as
// an MCP server's pool would.
func Open(driver, dsn string, conns int) (*sql.DB, error) {
	if !slices.Contains(Drivers, driver) {
		return nil, fmt.Errorf("unknown driver %q; valid: %s", driver, strings.Join(Drivers, ", "))
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db, nil
}

// Run executes one query and returns its normalised rows.
func Run(db *sql.DB, q string) ([]Row, error) {
	rs, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	out := []Row{}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := Row{}
		for i, c := range cols {
			name := strings.ToLower(c)
			if j := strings.LastIndex(name, "."); j >= 0 {
				name = name[j+1:]
			}
			r[name] = Value(vals[i])
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// Drain executes one query and reads every row without keeping it: the timed path.
func Drain(db *sql.DB, q string) (int, error) {
	rs, err := db.Query(q)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	n := 0
	cols, _ := rs.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
	}
	return n, rs.Err()
}
