package main

// Error taxonomy: every failed or declined transfer is counted in exactly one class, per second,
// and the run goes on (upstream aborted on the first goroutine error and counted nothing).

import (
	"context"
	"database/sql"
	"errors"
	"net"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

type ErrorClass int

const (
	ClassDeadlock          ErrorClass = iota // PG 40P01, InnoDB 1213
	ClassSerialization                       // PG 40001
	ClassLockTimeout                         // PG 55P03, InnoDB 1205
	ClassCheckViolation                      // CHECK (balance >= 0): insufficient funds at the database
	ClassProcedureRollback                   // as-published MySQL-family routine swallowed an error: no result row
	ClassTimeout                             // client-side query timeout / statement cancelled
	ClassDriver                              // connection and every other driver or server error
	ClassRejectSameUser                      // application rejects from here on
	ClassRejectAuth
	ClassRejectFrozen
	ClassRejectExpired
	ClassRejectFunds
	ClassRejectCVV
	ClassRejectOrg
	ClassRejectNotFound
	numErrorClasses
)

var errorClassNames = [numErrorClasses]string{
	"deadlock", "serialization", "lock_timeout", "check_violation", "procedure_rollback", "timeout", "driver",
	"reject_same_user", "reject_auth", "reject_frozen", "reject_expired", "reject_funds", "reject_cvv", "reject_org", "reject_not_found",
}

// IsDatabaseError: the class is a database/driver error, not an application reject.
func (c ErrorClass) IsDatabaseError() bool { return c < ClassRejectSameUser }

// ErrProcedureNoResult is what the MySQL-family engine returns when CALL transfer_funds gave no
// result row (the as-published procedure's exit handler rolled back and returned nothing).
var ErrProcedureNoResult = errors.New("transfer_funds returned no row (the procedure rolled back and swallowed the error)")

// Classify maps an error from DoTransfer or a delete to its class.
func Classify(err error) ErrorClass {
	var rej *Reject
	if errors.As(err, &rej) {
		return rej.Class
	}
	if errors.Is(err, ErrProcedureNoResult) || errors.Is(err, sql.ErrNoRows) {
		return ClassProcedureRollback
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ClassTimeout
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "40P01":
			return ClassDeadlock
		case "40001":
			return ClassSerialization
		case "55P03":
			return ClassLockTimeout
		case "23514":
			return ClassCheckViolation
		case "57014":
			return ClassTimeout
		}
		return ClassDriver
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		switch my.Number {
		case 1213:
			return ClassDeadlock
		case 1205:
			return ClassLockTimeout
		case 3819, 4025: // MySQL ER_CHECK_CONSTRAINT_VIOLATED, MariaDB ER_CONSTRAINT_FAILED
			return ClassCheckViolation
		case 3024, 1969: // MySQL max_execution_time, MariaDB max_statement_time
			return ClassTimeout
		}
		return ClassDriver
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	return ClassDriver
}
