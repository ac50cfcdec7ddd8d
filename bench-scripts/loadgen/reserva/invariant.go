package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// InvariantCheck is the correctness check at the end of every cell.
type InvariantCheck struct {
	OK                 bool     `json:"ok"`
	ExpectedBalanceSum int64    `json:"expected_balance_sum"`
	BalanceSum         int64    `json:"balance_sum"`
	NegativeBalances   int64    `json:"negative_balances"`
	ExpectedRows       int64    `json:"expected_transfer_rows"`
	TransferRows       int64    `json:"transfer_rows"`
	Violations         []string `json:"violations"`
}

// CheckInvariants: money is only moved, never made or lost (the sum of all balances equals what
// prepare loaded); no balance is negative; the transfers table holds exactly the transfers the
// client saw committed minus the ones it deleted (the table is emptied at the start of the cell).
func CheckInvariants(meta Meta, s InvariantState, committed, deleted int64) InvariantCheck {
	c := InvariantCheck{
		ExpectedBalanceSum: meta.TotalBalance, BalanceSum: s.BalanceSum, NegativeBalances: s.NegativeBalances,
		ExpectedRows: committed - deleted, TransferRows: s.TransferRows, Violations: []string{},
	}
	if s.BalanceSum != meta.TotalBalance {
		c.Violations = append(c.Violations, fmt.Sprintf("sum of balances is %d, expected %d (difference %+d)", s.BalanceSum, meta.TotalBalance, s.BalanceSum-meta.TotalBalance))
	}
	if s.NegativeBalances != 0 {
		c.Violations = append(c.Violations, fmt.Sprintf("%d accounts have a negative balance", s.NegativeBalances))
	}
	if s.TransferRows != committed-deleted {
		c.Violations = append(c.Violations, fmt.Sprintf("transfers table has %d rows, expected %d (%d committed - %d deleted)", s.TransferRows, committed-deleted, committed, deleted))
	}
	c.OK = len(c.Violations) == 0
	return c
}

// ---- CPU accounting ---------------------------------------------------------------------

// clockTicks is USER_HZ, 100 on every Linux architecture we run on (sysconf needs cgo).
const clockTicks = 100

// TreeCPUSeconds sums user+system CPU of the given processes and all their descendants, including
// what they collected from children that already exited (cutime/cstime): a PostgreSQL backend that
// ends during the window still counts, through its parent.
func TreeCPUSeconds(roots []int) (float64, error) {
	if len(roots) == 0 {
		return 0, nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	type proc struct {
		ppid  int
		ticks int64
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // f[0] = state (field 3), f[1] = ppid, f[11..14] = utime stime cutime cstime
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		var ticks int64
		for _, k := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseInt(f[k], 10, 64)
			ticks += v
		}
		procs[pid] = proc{ppid, ticks}
	}
	in := map[int]bool{}
	for _, r := range roots {
		in[r] = true
	}
	// Repeat until no new descendant is found (the tree is shallow: postmaster -> backends).
	for changed := true; changed; {
		changed = false
		for pid, p := range procs {
			if !in[pid] && in[p.ppid] {
				in[pid] = true
				changed = true
			}
		}
	}
	var ticks int64
	for pid := range in {
		ticks += procs[pid].ticks
	}
	return float64(ticks) / clockTicks, nil
}

// SelfCPUSeconds: this process's user+system CPU.
func SelfCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
