package host

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
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
	var want [7]time.Duration
	for i, p := range []float64{0, 50, 90, 99, 99.5, 99.9, 100} {
		v, _ := sim.Percentile(all, p)
		want[i] = time.Duration(v)
	}
	if g := [7]time.Duration{got.Min, got.P50, got.P90, got.P99, got.P995, got.P999, got.Max}; g != want {
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
	for _, want := range []string{"timer on an idle CPU: 2 repetitions of 2000 samples, each quantile the median of theirs", "median by repetition 40.0µs, 41.0µs",
		"p99 by repetition 52.0µs, 600µs", "largest over smallest 11.5×"} {
		if !strings.Contains(got, want) {
			t.Errorf("spreadNote = %q, want it to contain %q", got, want)
		}
	}
}

// TestMedianCost checks MedianCost against the naive model on random distributions: each
// quantile is the lower middle of the repetitions' values of it, the result's quantiles are in
// order, and a distribution without p99.9 stands for its p99 there.
func TestMedianCost(t *testing.T) {
	assert.Equal(t, sim.Cost{}, MedianCost(nil))
	r := rand.New(rand.NewPCG(3, 1))
	for trial := range 500 {
		cs := make([]sim.Cost, 1+r.IntN(6))
		for i := range cs {
			var q [7]time.Duration
			for k := range q {
				q[k] = time.Duration(r.Int64N(1000))
			}
			slices.Sort(q[:])
			cs[i] = sim.Cost{Min: q[0], P50: q[1], P90: q[2], P99: q[3], P995: q[4], P999: q[5], Max: q[6]}
			switch r.IntN(4) {
			case 0:
				cs[i].P995, cs[i].P999 = 0, 0
			case 1:
				cs[i].P995 = 0
			}
		}
		got := quantiles(MedianCost(cs))
		for k := range got {
			var vs []time.Duration
			for _, c := range cs {
				v := [7]time.Duration{c.Min, c.P50, c.P90, c.P99, c.P995, c.P999, c.Max}[k]
				switch {
				case (k == 4 || k == 5) && c.P999 == 0:
					v = c.P99 // no tail: p99.5 and p99.9 stand at p99
				case k == 4 && v == 0:
					v = c.P99 + (c.P999-c.P99)*5/9 // on the line from p99 to p99.9, as the model draws
				}
				vs = append(vs, v)
			}
			slices.Sort(vs)
			want := vs[(len(vs)-1)/2]
			if k == 4 && !slices.ContainsFunc(cs, func(c sim.Cost) bool { return c.P995 != 0 }) {
				// None measured a p99.5: neither has the median, which the model draws on its
				// line from p99 to p99.9.
				want = got[3] + (got[5]-got[3])*5/9
			}
			if got[k] != want {
				t.Fatalf("trial %d: quantile %d of MedianCost(%v) = %v, want %v", trial, k, cs, got[k], want)
			}
			if k > 0 && got[k] < got[k-1] {
				t.Fatalf("trial %d: MedianCost(%v) out of order: %v", trial, cs, got)
			}
		}
	}
}

// TestMedianOf checks that medianOf combines every figure the repetitions measured (a
// sim.Cost field of Measurements missing from costs would be left zero) and each migration
// level, and that a repetition that did not measure a figure does not count for it.
func TestMedianOf(t *testing.T) {
	var m Measurements
	v := reflect.ValueOf(&m).Elem()
	listed := map[uintptr]bool{}
	for _, c := range m.costs() {
		listed[reflect.ValueOf(c).Pointer()] = true
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Type != reflect.TypeFor[sim.Cost]() || strings.HasPrefix(f.Name, "Timer") {
			continue
		}
		if !listed[v.Field(i).Addr().Pointer()] {
			t.Errorf("Measurements.%s is not among costs(): a calibration's repetitions would not combine it", f.Name)
		}
	}
	reps := make([]Measurements, 3)
	for i := range reps {
		for _, c := range reps[i].costs() {
			*c = sim.Fixed(time.Duration(10 * (i + 1)))
		}
		reps[i].Hz = 250
		reps[i].Migration = map[topology.Level]sim.Cost{topology.Node: sim.Fixed(time.Duration(i + 1))}
	}
	reps[2].Exit = sim.Cost{} // not measured in the third repetition: the median of 10 and 20
	got := medianOf(reps)
	assert.Equal(t, sim.Fixed(20), got.PingRemote)
	assert.Equal(t, sim.Fixed(10), got.Exit)
	assert.Equal(t, sim.Fixed(2), got.Migration[topology.Node])
	assert.Equal(t, 250, got.Hz)
	assert.Len(t, got.Reps, 3)
}
