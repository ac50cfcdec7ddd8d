package main

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// LatencyMs is one HdrHistogram summarized; percentiles come from the merged histogram of every
// worker (never an average of per-worker percentiles).
type LatencyMs struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

func newHist() *hdrhistogram.Histogram {
	// microseconds, 1 us .. 120 s, 3 significant digits
	return hdrhistogram.New(1, 120_000_000, 3)
}

func recordUs(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < 1 {
		us = 1
	}
	if us > h.HighestTrackableValue() {
		us = h.HighestTrackableValue()
	}
	_ = h.RecordValue(us)
}

func summarize(h *hdrhistogram.Histogram) LatencyMs {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if h.TotalCount() == 0 {
		return LatencyMs{}
	}
	return LatencyMs{
		Count: h.TotalCount(), Mean: h.Mean() / 1000,
		P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()),
	}
}

// workerHists: one set per worker (no locking on the hot path), merged at the end.
type workerHists struct {
	transfer *hdrhistogram.Histogram
	rt       [numRoundTrips]*hdrhistogram.Histogram
	del      *hdrhistogram.Histogram
}

func newWorkerHists() *workerHists {
	w := &workerHists{transfer: newHist(), del: newHist()}
	for i := range w.rt {
		w.rt[i] = newHist()
	}
	return w
}

func (w *workerHists) merge(o *workerHists) {
	w.transfer.Merge(o.transfer)
	w.del.Merge(o.del)
	for i := range w.rt {
		w.rt[i].Merge(o.rt[i])
	}
}

// Series counts events per whole second since the loop started (warm-up included); the slot is
// chosen by completion time. Out-of-range seconds go to the last slot.
type Series struct {
	transfers []atomic.Int64
	deletes   []atomic.Int64
	errors    [numErrorClasses][]atomic.Int64
}

func newSeries(seconds int) *Series {
	s := &Series{transfers: make([]atomic.Int64, seconds), deletes: make([]atomic.Int64, seconds)}
	for c := range s.errors {
		s.errors[c] = make([]atomic.Int64, seconds)
	}
	return s
}

func (s *Series) slot(start, at time.Time) int {
	i := int(at.Sub(start) / time.Second)
	if i < 0 {
		i = 0
	}
	if i >= len(s.transfers) {
		i = len(s.transfers) - 1
	}
	return i
}

func load(xs []atomic.Int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = xs[i].Load()
	}
	return out
}

// idPool holds committed transfer ids that a later delete may remove (upstream deleted "an id
// from the in-memory set"); a random one is taken out on every delete.
type idPool struct {
	mu  sync.Mutex
	ids []int64
}

func (p *idPool) add(id int64) {
	p.mu.Lock()
	p.ids = append(p.ids, id)
	p.mu.Unlock()
}

func (p *idPool) take(r func(n int) int) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return 0, false
	}
	i := r(len(p.ids))
	id := p.ids[i]
	p.ids[i] = p.ids[len(p.ids)-1]
	p.ids = p.ids[:len(p.ids)-1]
	return id, true
}
