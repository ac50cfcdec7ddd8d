package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// fakeEngine is an in-memory bank that records every round trip it serves.
type fakeEngine struct {
	mu        sync.Mutex
	calls     []string
	users     map[string]AuthRow // by token, permission 1
	balances  map[int64]int64
	orgs      map[int64]int64 // account -> org
	cvv       map[int64]int64 // card (= account) -> cvv
	transfers map[int64]bool
	nextID    int64
	failWrite error
}

func newFakeEngine(entries []Entry) *fakeEngine {
	f := &fakeEngine{users: map[string]AuthRow{}, balances: map[int64]int64{}, orgs: map[int64]int64{}, cvv: map[int64]int64{}, transfers: map[int64]bool{}}
	for _, e := range entries {
		f.users[e.Token] = AuthRow{UserID: e.UserID, OrgID: e.OrgID, PermissionID: 1, ExpiresAt: time.Now().Add(time.Hour)}
		f.balances[e.AccountID] = 1000
		f.orgs[e.AccountID] = e.OrgID
		f.cvv[e.CardID] = e.CVV
	}
	return f
}

func (f *fakeEngine) log(s string) { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }

func (f *fakeEngine) AuthByToken(_ context.Context, token string) ([]AuthRow, error) {
	f.log("auth " + token)
	u, ok := f.users[token]
	if !ok {
		return nil, nil
	}
	// Like the real data: the same hash also carries permission 2.
	p2 := u
	p2.PermissionID = 2
	return []AuthRow{p2, u}, nil
}

func (f *fakeEngine) CardAccount(_ context.Context, card int64) (CardAccount, error) {
	f.log(fmt.Sprintf("card %d", card))
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.balances[card]
	if !ok {
		return CardAccount{}, ErrNotFound
	}
	return CardAccount{AccountID: card, OrgID: f.orgs[card], Balance: b, CardAccountID: card, Expiration: time.Now().Add(time.Hour), CVV: f.cvv[card]}, nil
}

func (f *fakeEngine) TransferFunds(_ context.Context, r TransferRequest) (int64, error) {
	f.log(fmt.Sprintf("transfer %d->%d %d by %d", r.FromAccountID, r.ToAccountID, r.Amount, r.RequestingUserID))
	if f.failWrite != nil {
		return 0, f.failWrite
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.balances[r.FromAccountID] < r.Amount {
		return 0, &pgconn.PgError{Code: "23514"}
	}
	f.balances[r.FromAccountID] -= r.Amount
	f.balances[r.ToAccountID] += r.Amount
	f.nextID++
	f.transfers[f.nextID] = true
	return f.nextID, nil
}

func (f *fakeEngine) DeleteTransfer(_ context.Context, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.transfers, id)
	return nil
}

var (
	alice = Entry{UserID: 1, OrgID: 1, Token: "tok-1", AccountID: 10, CardID: 10, CVV: 123}
	bob   = Entry{UserID: 2, OrgID: 2, Token: "tok-2", AccountID: 20, CardID: 20, CVV: 456}
	bob2  = Entry{UserID: 2, OrgID: 2, Token: "tok-2", AccountID: 21, CardID: 21, CVV: 789}
)

func TestRoundTripSequence(t *testing.T) {
	f := newFakeEngine([]Entry{alice, bob})
	id, tm, err := DoTransfer(context.Background(), f, alice, bob, 7, time.Now())
	if err != nil || id != 1 {
		t.Fatalf("DoTransfer = %d, %v", id, err)
	}
	// RT1 acquiring auth, RT2 issuing card/account, RT3 issuing auth, RT4 the write from the
	// issuing account to the acquiring account, requested by the acquiring user.
	want := []string{"auth tok-1", "card 20", "auth tok-2", "transfer 20->10 7 by 1"}
	if strings.Join(f.calls, "|") != strings.Join(want, "|") {
		t.Fatalf("round trips = %q, want %q", f.calls, want)
	}
	for i, d := range tm {
		if d <= 0 {
			t.Fatalf("round trip %s has no timing", roundTripNames[i])
		}
	}
	if f.balances[20] != 993 || f.balances[10] != 1007 {
		t.Fatalf("balances after transfer: %v", f.balances)
	}
}

func TestSameUserIsRejectedWithoutDatabaseWork(t *testing.T) {
	f := newFakeEngine([]Entry{bob, bob2})
	_, _, err := DoTransfer(context.Background(), f, bob, bob2, 1, time.Now())
	if Classify(err) != ClassRejectSameUser || len(f.calls) != 0 {
		t.Fatalf("err %v (class %s), calls %q", err, errorClassNames[Classify(err)], f.calls)
	}
}

func TestClientChecksStopBeforeTheWrite(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(f *fakeEngine, iss *Entry)
		class  ErrorClass
		calls  int
	}{
		{"insufficient funds", func(f *fakeEngine, _ *Entry) { f.balances[20] = 3 }, ClassRejectFunds, 2},
		{"wrong cvv", func(_ *fakeEngine, iss *Entry) { iss.CVV = 1 }, ClassRejectCVV, 2},
		{"unknown token", func(f *fakeEngine, _ *Entry) { delete(f.users, "tok-1") }, ClassRejectAuth, 1},
		{"issuing user of another organization", func(f *fakeEngine, _ *Entry) { f.orgs[20] = 9 }, ClassRejectOrg, 3},
		{"unknown card", func(f *fakeEngine, iss *Entry) { iss.CardID = 99 }, ClassRejectNotFound, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeEngine([]Entry{alice, bob})
			iss := bob
			c.mutate(f, &iss)
			_, _, err := DoTransfer(context.Background(), f, alice, iss, 5, time.Now())
			if got := Classify(err); got != c.class {
				t.Fatalf("class %s, want %s (err %v)", errorClassNames[got], errorClassNames[c.class], err)
			}
			if len(f.calls) != c.calls {
				t.Fatalf("%d round trips made, want %d: %q", len(f.calls), c.calls, f.calls)
			}
		})
	}
}

func TestWriteErrorCarriesItsStep(t *testing.T) {
	f := newFakeEngine([]Entry{alice, bob})
	f.failWrite = &pgconn.PgError{Code: "40P01"}
	_, _, err := DoTransfer(context.Background(), f, alice, bob, 5, time.Now())
	var se *StepError
	if !errors.As(err, &se) || se.Step != rtTransferWrite || Classify(err) != ClassDeadlock {
		t.Fatalf("err %v: want a deadlock at %s", err, roundTripNames[rtTransferWrite])
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err  error
		want ErrorClass
	}{
		{&pgconn.PgError{Code: "40P01"}, ClassDeadlock},
		{&pgconn.PgError{Code: "40001"}, ClassSerialization},
		{&pgconn.PgError{Code: "55P03"}, ClassLockTimeout},
		{&pgconn.PgError{Code: "23514"}, ClassCheckViolation},
		{&pgconn.PgError{Code: "57014"}, ClassTimeout},
		{&pgconn.PgError{Code: "08006"}, ClassDriver},
		{&mysql.MySQLError{Number: 1213}, ClassDeadlock},
		{&mysql.MySQLError{Number: 1205}, ClassLockTimeout},
		{&mysql.MySQLError{Number: 4025}, ClassCheckViolation},
		{&mysql.MySQLError{Number: 3819}, ClassCheckViolation},
		{&mysql.MySQLError{Number: 2013}, ClassDriver},
		{ErrProcedureNoResult, ClassProcedureRollback},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), ClassTimeout},
		{&StepError{Step: rtAuthIssuing, Err: &mysql.MySQLError{Number: 1213}}, ClassDeadlock},
		{&Reject{ClassRejectExpired}, ClassRejectExpired},
		{errors.New("connection refused"), ClassDriver},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %s, want %s", c.err, errorClassNames[got], errorClassNames[c.want])
		}
	}
	if ClassDriver.IsDatabaseError() != true || ClassRejectFunds.IsDatabaseError() != false {
		t.Error("IsDatabaseError splits errors from rejects at the wrong class")
	}
}

func TestCheckInvariants(t *testing.T) {
	meta := Meta{TotalBalance: 1000}
	ok := CheckInvariants(meta, InvariantState{BalanceSum: 1000, TransferRows: 95}, 100, 5)
	if !ok.OK || len(ok.Violations) != 0 {
		t.Fatalf("consistent state reported violated: %+v", ok)
	}
	bad := CheckInvariants(meta, InvariantState{BalanceSum: 1001, NegativeBalances: 2, TransferRows: 96}, 100, 5)
	if bad.OK || len(bad.Violations) != 3 {
		t.Fatalf("want three violations, got %+v", bad)
	}
	for i, frag := range []string{"sum of balances is 1001, expected 1000", "2 accounts have a negative balance", "96 rows, expected 95"} {
		if !strings.Contains(bad.Violations[i], frag) {
			t.Errorf("violation %d = %q, want it to mention %q", i, bad.Violations[i], frag)
		}
	}
}

func TestGeneratorIsDeterministicAndSpreadsOverAllOrganizations(t *testing.T) {
	if Fingerprint(4, 5000) != Fingerprint(4, 5000) {
		t.Fatal("same seed, different data")
	}
	if Fingerprint(4, 5000) == Fingerprint(5, 5000) || Fingerprint(4, 5000) == Fingerprint(4, 5001) {
		t.Fatal("another seed or size gave the same fingerprint")
	}
	orgs := map[int64]int{}
	_ = GenerateAccounts(4, 5000, func(a Account) error {
		if a.CVV < 1 || a.CVV > 999 || a.Balance != initialBalance {
			t.Fatalf("account %+v out of shape", a)
		}
		orgs[a.OrgID]++
		return nil
	})
	if len(orgs) != numOrganizations {
		t.Fatalf("accounts fall in %d organizations, want all %d (upstream's MySQL script used only 10)", len(orgs), numOrganizations)
	}
	toks := GenerateTokens(4)
	seen := map[string]bool{}
	for _, tk := range toks {
		if len(tk.Hash) != 36 || tk.Hash[14] != '4' || seen[tk.Hash] {
			t.Fatalf("token %q is not a fresh v4-shaped UUID", tk.Hash)
		}
		seen[tk.Hash] = true
	}
}

func TestParseArgsRejectsBadInput(t *testing.T) {
	base := []string{"run", "-driver", "pgx", "-dsn", "x", "-accounts", "1000", "-variant", "parity"}
	cases := map[string][]string{
		"unknown variant":     {"-variant", "fast"},
		"concurrency 0":       {"-concurrency", "0"},
		"unknown driver":      {"-driver", "oracle"},
		"tiny scale":          {"-accounts", "5"},
		"fractional warmup":   {"-warmup", "1500ms"},
		"bad pid":             {"-server-pids", "12,x"},
		"warmup-max < warmup": {"-warmup", "10s", "-warmup-max", "5s"},
		"warmup-max 1s":       {"-warmup", "0s", "-warmup-max", "1s"},
		"warmup-windows 1":    {"-warmup-max", "20s", "-warmup-windows", "1"},
		"warmup-tol 0":        {"-warmup-max", "20s", "-warmup-tol", "0"},
	}
	for name, extra := range cases {
		_, err := parseArgs(append(append([]string{}, base...), extra...))
		var ue *usageError
		if !errors.As(err, &ue) || strings.Contains(ue.msg, "\n") {
			t.Errorf("%s: want a one-line usage error, got %v", name, err)
		}
	}
	if _, err := parseArgs(base); err != nil {
		t.Fatalf("valid arguments rejected: %v", err)
	}
	if _, err := parseArgs([]string{"bench"}); err == nil {
		t.Fatal("unknown subcommand accepted")
	}
}

func TestLoopCountsTransfersDeletesAndKeepsTheBooks(t *testing.T) {
	entries := []Entry{alice, bob, {UserID: 3, OrgID: 3, Token: "tok-3", AccountID: 30, CardID: 30, CVV: 1}}
	f := newFakeEngine(entries)
	for k := range f.balances {
		f.balances[k] = 1_000_000
	}
	res := RunLoop(context.Background(), f, entries, LoopConfig{Concurrency: 4, Duration: time.Second, Deletes: true, Seed: 1, QueryTimeout: time.Second})
	if res.Transfers == 0 || res.Committed < res.Transfers {
		t.Fatalf("transfers %d, committed %d", res.Transfers, res.Committed)
	}
	if int64(len(f.transfers)) != res.Committed-res.DeletedTotal {
		t.Fatalf("fake holds %d transfers, client counts %d - %d", len(f.transfers), res.Committed, res.DeletedTotal)
	}
	if want := res.Committed / 20; res.DeletedTotal < want-1 || res.DeletedTotal > want {
		t.Fatalf("deleted %d of %d committed, want every 20th", res.DeletedTotal, res.Committed)
	}
	var sum int64
	for _, b := range f.balances {
		sum += b
	}
	if sum != 3_000_000 {
		t.Fatalf("money not conserved: %d", sum)
	}
	if res.Rejects["reject_same_user"] == 0 {
		t.Fatal("with three users some picks must be the same user")
	}
	if res.LatencyMs["transfer"].Count != res.Transfers || res.LatencyMs[roundTripNames[rtTransferWrite]].Count != res.Transfers {
		t.Fatalf("latency counts %+v do not match %d transfers", res.LatencyMs["transfer"], res.Transfers)
	}
	if len(res.Series.Transfers) < 1 || res.Series.WarmupS != 0 {
		t.Fatalf("series %+v", res.Series)
	}
}

func TestSteadyRule(t *testing.T) {
	if !Steady([]int64{5, 100, 100, 103, 98}, 3, 0.05) || Steady([]int64{100, 100, 120}, 3, 0.05) || Steady([]int64{0, 0, 0}, 3, 0.05) || Steady([]int64{100, 100}, 3, 0.05) {
		t.Fatal("Steady: want the last 3 within ±5 % of their mean, a positive mean, at least 3 windows")
	}
}

// A steady warm-up of a constant fake engine ends after the minimum (k whole seconds agree);
// the measured window follows it and the series marks the warm-up it took.
func TestLoopSteadyWarmup(t *testing.T) {
	entries := []Entry{alice, bob, {UserID: 3, OrgID: 3, Token: "tok-3", AccountID: 30, CardID: 30, CVV: 1}}
	f := newFakeEngine(entries)
	for k := range f.balances {
		f.balances[k] = 1_000_000_000
	}
	res := RunLoop(context.Background(), f, entries, LoopConfig{Concurrency: 2, Duration: time.Second, Seed: 1, QueryTimeout: time.Second,
		WarmupMax: 6 * time.Second, WarmupWindows: 2, WarmupTol: 0.9})
	if res.Steady == nil || res.WarmupRule == nil {
		t.Fatalf("steady %v rule %v: a steady warm-up reports both", res.Steady, res.WarmupRule)
	}
	if res.warmupS < 3 || res.warmupS > 6 || res.Series.WarmupS != res.warmupS {
		t.Fatalf("warm-up %d s (series %d): want 3..6", res.warmupS, res.Series.WarmupS)
	}
	if *res.Steady && res.warmupS == 6 {
		t.Fatalf("steady at the bound")
	}
	if res.Transfers == 0 || res.LatencyMs["transfer"].Count != res.Transfers {
		t.Fatalf("measured %d transfers, latency count %d", res.Transfers, res.LatencyMs["transfer"].Count)
	}
}

// A never-steady rule (tolerance 1e-9 on a noisy count) stops at the bound and still measures.
func TestLoopSteadyWarmupBounded(t *testing.T) {
	entries := []Entry{alice, bob, {UserID: 3, OrgID: 3, Token: "tok-3", AccountID: 30, CardID: 30, CVV: 1}}
	f := newFakeEngine(entries)
	for k := range f.balances {
		f.balances[k] = 1_000_000_000
	}
	res := RunLoop(context.Background(), f, entries, LoopConfig{Concurrency: 2, Duration: time.Second, Seed: 1, QueryTimeout: time.Second,
		Warmup: time.Second, WarmupMax: 2 * time.Second, WarmupWindows: 2, WarmupTol: 1e-9})
	if res.Steady == nil || *res.Steady || res.warmupS != 2 {
		t.Fatalf("steady %v after %d s: want false at the 2 s bound", res.Steady, res.warmupS)
	}
	if res.Transfers == 0 {
		t.Fatal("the cell still measures after the bound")
	}
}
