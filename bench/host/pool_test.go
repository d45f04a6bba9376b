package host

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// TestPoolCost checks poolCost against the naive model: every sample of every repetition in one
// sorted slice, its percentiles by sim.Percentile's nearest rank.
func TestPoolCost(t *testing.T) {
	if _, ok := poolCost(nil); ok {
		t.Fatal("poolCost(nil): want false")
	}
	if _, ok := poolCost([]*sim.Histogram{{}, {}}); ok {
		t.Fatal("poolCost of empty histograms: want false")
	}
	runs := [][]int64{{5, 1, 9, 3}, {100, 2}, {7, 7, 7, 400, 8}}
	var hs []*sim.Histogram
	var all []int64
	for _, r := range runs {
		h := &sim.Histogram{}
		for _, v := range r {
			h.Add(v)
		}
		hs = append(hs, h)
		all = append(all, r...)
	}
	slices.Sort(all)
	got, ok := poolCost(hs)
	if !ok {
		t.Fatal("poolCost: want true")
	}
	var want [6]time.Duration
	for i, p := range []float64{0, 50, 90, 99, 99.9, 100} {
		v, _ := sim.Percentile(all, p)
		want[i] = time.Duration(v)
	}
	if g := [6]time.Duration{got.Min, got.P50, got.P90, got.P99, got.P999, got.Max}; g != want {
		t.Errorf("poolCost = %v, want %v", g, want)
	}
	if got.Max != 400 || got.Min != 1 {
		t.Errorf("poolCost's extremes %v..%v, want 1ns..400ns", got.Min, got.Max)
	}
}

// TestSpreadNote checks that the note names the repetitions and every one's p99 with their ratio.
func TestSpreadNote(t *testing.T) {
	reps := []sim.Cost{{P50: 40 * time.Microsecond, P99: 52 * time.Microsecond}, {P50: 41 * time.Microsecond, P99: 600 * time.Microsecond}}
	got := spreadNote("timer on an idle CPU", 2000, reps)
	for _, want := range []string{"timer on an idle CPU: 2 repetitions of 2000 samples pooled", "median by repetition 40.0µs, 41.0µs",
		"p99 by repetition 52.0µs, 600µs", "largest over smallest 11.5×"} {
		if !strings.Contains(got, want) {
			t.Errorf("spreadNote = %q, want it to contain %q", got, want)
		}
	}
}
