package main

import (
	"math"
	"time"
)

// Steady-state warm-up (Barrett et al., "Virtual Machine Warmup Blows Hot and Cold", OOPSLA 2017;
// JMH's iteration-based warm-up): a fixed warm-up is not evidence of a steady state, so the
// warm-up runs in windows and ends when the throughputs of the last k windows are all within
// ±tol of their mean, after at least min and at most max (then steady is false).

// Warmup is the warm-up a run took, in the JSON output.
type Warmup struct {
	Mode        string    `json:"mode"` // "fixed" or "steady"
	WindowS     float64   `json:"window_s,omitempty"`
	Windows     int       `json:"windows,omitempty"`
	Tolerance   float64   `json:"tolerance,omitempty"`
	MinS        float64   `json:"min_s"`
	MaxS        float64   `json:"max_s"`
	WindowRates []float64 `json:"window_rates,omitempty"`
}

// steady reports whether the last k rates are all within ±tol of their mean, the mean positive.
func steady(rates []float64, k int, tol float64) bool {
	if k < 1 || len(rates) < k {
		return false
	}
	last := rates[len(rates)-k:]
	mean := 0.0
	for _, v := range last {
		mean += v
	}
	mean /= float64(k)
	if mean <= 0 {
		return false
	}
	for _, v := range last {
		if math.Abs(v-mean) > tol*mean {
			return false
		}
	}
	return true
}

// warmUp samples count() (operations completed so far) every window until the rule holds or
// the next window would pass max; it returns the warm-up taken, whether it was steady, and the
// rate of every window.
func warmUp(count func() int64, min, max, window time.Duration, k int, tol float64) (time.Duration, bool, []float64) {
	start := time.Now()
	last, lastT := count(), start
	var rates []float64
	for {
		time.Sleep(time.Until(lastT.Add(window)))
		now := time.Now()
		c := count()
		rates = append(rates, float64(c-last)/now.Sub(lastT).Seconds())
		last, lastT = c, now
		elapsed := now.Sub(start)
		ok := elapsed >= min && steady(rates, k, tol)
		if ok || elapsed+window > max {
			return elapsed, ok, rates
		}
	}
}
