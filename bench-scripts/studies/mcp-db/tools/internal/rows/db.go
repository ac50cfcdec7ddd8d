package rows

import (
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// Drivers are the systems the direct path knows, with the database/sql driver each uses: the
// same Go drivers Faucet itself links (pgx, go-sql-driver/mysql, modernc sqlite).
var Drivers = map[string]string{"postgresql": "pgx", "mariadb": "mysql", "mysql": "mysql", "sqlite": "sqlite"}

// Open connects; pool size = concurrency, so each worker keeps one connection as an MCP
// server's pool would.
func Open(system, dsn string, conns int) (*sql.DB, error) {
	drv, ok := Drivers[system]
	if !ok {
		return nil, fmt.Errorf("unknown system %q; valid: mariadb, mysql, postgresql, sqlite", system)
	}
	db, err := sql.Open(drv, dsn)
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
