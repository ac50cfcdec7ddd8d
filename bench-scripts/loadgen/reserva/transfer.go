package main

// One funds transfer as seed 004's Reserva makes it: four logical round trips (auth of the
// acquiring user by token, read of the issuing card and its account with the client-side checks,
// auth of the issuing user, the write that moves the money and inserts the transfer row). The
// engine-specific SQL lives behind the Engine interface (engine_pg.go, engine_mysql.go), so this
// sequence and its checks are the same code for every engine and can be tested without a server.

import (
	"context"
	"errors"
	"time"
)

// Permission 1 ('transfer_requests:create') is what both auth steps require (upstream checks it on
// the acquiring and on the issuing user alike).
const permissionTransferRequests = 1

// Entry is one row of the in-memory set the client loads at start: an account with its card, the
// user of the account's organization and that user's token.
type Entry struct {
	UserID    int64
	OrgID     int64
	Token     string
	AccountID int64
	CardID    int64
	CVV       int64
}

type AuthRow struct {
	UserID       int64
	OrgID        int64
	Frozen       bool
	PermissionID int64
	ExpiresAt    time.Time
}

type CardAccount struct {
	AccountID     int64
	OrgID         int64
	Balance       int64
	AccountFrozen bool
	CardAccountID int64
	Expiration    time.Time
	CVV           int64
	CardFrozen    bool
}

type TransferRequest struct {
	CardID           int64
	FromAccountID    int64
	ToAccountID      int64
	RequestingUserID int64
	Amount           int64
	CreatedAt        time.Time
}

// Engine is one database under test. Every method is one logical round trip.
type Engine interface {
	AuthByToken(ctx context.Context, token string) ([]AuthRow, error)
	CardAccount(ctx context.Context, cardID int64) (CardAccount, error)
	TransferFunds(ctx context.Context, r TransferRequest) (int64, error)
	DeleteTransfer(ctx context.Context, id int64) error
}

// Round trips, in order; the index into Timings.
const (
	rtAuthAcquiring = iota
	rtCardAccount
	rtAuthIssuing
	rtTransferWrite
	numRoundTrips
)

var roundTripNames = [numRoundTrips]string{"rt1_auth_acquiring", "rt2_card_account", "rt3_auth_issuing", "rt4_transfer_write"}

// ErrNotFound is what engines return when a lookup finds no row.
var ErrNotFound = errors.New("no row")

// Reject is a transfer the client declined by its own checks: not an error of the database.
type Reject struct{ Class ErrorClass }

func (r *Reject) Error() string { return "rejected: " + errorClassNames[r.Class] }

// Timings holds the duration of each round trip that completed (zero when it did not run).
type Timings [numRoundTrips]time.Duration

// DoTransfer runs one transfer from the issuing entry's card to the acquiring entry's account.
// It returns the new transfer's id, the round-trip timings, and either nil, a *Reject (a client
// check said no) or the database/driver error of the step that failed (wrapped in *StepError).
func DoTransfer(ctx context.Context, e Engine, acquiring, issuing Entry, amount int64, now time.Time) (int64, Timings, error) {
	var tm Timings
	// Step 0: a transfer between two accounts of the same user is not made (no database work).
	if acquiring.UserID == issuing.UserID {
		return 0, tm, &Reject{ClassRejectSameUser}
	}
	timed := func(rt int, f func() error) error {
		t0 := time.Now()
		err := f()
		tm[rt] = time.Since(t0)
		if err != nil && !isReject(err) {
			return &StepError{Step: rt, Err: err}
		}
		return err
	}

	// RT1: the acquiring (requesting) user, by token.
	var acqUser AuthRow
	if err := timed(rtAuthAcquiring, func() error {
		rows, err := e.AuthByToken(ctx, acquiring.Token)
		if err != nil {
			return err
		}
		acqUser, err = authorize(rows, now)
		return err
	}); err != nil {
		return 0, tm, err
	}

	// RT2: the issuing card and its account; the checks are client-side on this (possibly stale)
	// read, as upstream: only the CHECK (balance >= 0) constraint protects the write.
	var ca CardAccount
	if err := timed(rtCardAccount, func() error {
		var err error
		ca, err = e.CardAccount(ctx, issuing.CardID)
		if errors.Is(err, ErrNotFound) {
			return &Reject{ClassRejectNotFound}
		}
		if err != nil {
			return err
		}
		return checkCard(ca, issuing, amount, now)
	}); err != nil {
		return 0, tm, err
	}

	// RT3: the issuing user, by token; must belong to the issuing account's organization.
	if err := timed(rtAuthIssuing, func() error {
		rows, err := e.AuthByToken(ctx, issuing.Token)
		if err != nil {
			return err
		}
		u, err := authorize(rows, now)
		if err != nil {
			return err
		}
		if u.OrgID != ca.OrgID {
			return &Reject{ClassRejectOrg}
		}
		return nil
	}); err != nil {
		return 0, tm, err
	}

	// RT4: move the money and insert the transfer row (one server-side routine call).
	var id int64
	err := timed(rtTransferWrite, func() error {
		var err error
		id, err = e.TransferFunds(ctx, TransferRequest{
			CardID: issuing.CardID, FromAccountID: ca.AccountID, ToAccountID: acquiring.AccountID,
			RequestingUserID: acqUser.UserID, Amount: amount, CreatedAt: now,
		})
		return err
	})
	return id, tm, err
}

// authorize picks the token's row with the transfer-request permission and checks it.
func authorize(rows []AuthRow, now time.Time) (AuthRow, error) {
	for _, r := range rows {
		if r.PermissionID != permissionTransferRequests {
			continue
		}
		switch {
		case r.Frozen:
			return r, &Reject{ClassRejectFrozen}
		case !r.ExpiresAt.After(now):
			return r, &Reject{ClassRejectExpired}
		}
		return r, nil
	}
	return AuthRow{}, &Reject{ClassRejectAuth}
}

func checkCard(ca CardAccount, issuing Entry, amount int64, now time.Time) error {
	switch {
	case ca.Balance < amount:
		return &Reject{ClassRejectFunds}
	case ca.AccountFrozen || ca.CardFrozen:
		return &Reject{ClassRejectFrozen}
	case !ca.Expiration.After(now):
		return &Reject{ClassRejectExpired}
	case ca.CVV != issuing.CVV:
		return &Reject{ClassRejectCVV}
	}
	return nil
}

func isReject(err error) bool {
	var r *Reject
	return errors.As(err, &r)
}

// StepError is a database or driver error, with the round trip it happened in.
type StepError struct {
	Step int
	Err  error
}

func (s *StepError) Error() string { return roundTripNames[s.Step] + ": " + s.Err.Error() }
func (s *StepError) Unwrap() error { return s.Err }
