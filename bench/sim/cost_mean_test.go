package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCostMean checks Mean against fixed costs, a worked case and the average of many draws.
func TestCostMean(t *testing.T) {
	if got := Fixed(3 * time.Microsecond).Mean(); got != 3*time.Microsecond {
		t.Errorf("Fixed(3µs).Mean() = %v", got)
	}
	if got := (Cost{}).Mean(); got != 0 {
		t.Errorf("zero Cost's Mean() = %v", got)
	}
	// Uniform between 0 and 2000 ns in every segment: the mean is 1000 ns whatever the weights.
	lin := Cost{Min: 0, P50: 1000, P90: 1800, P99: 1980, P999: 1998, Max: 2000}
	if got := lin.Mean(); got < 999 || got > 1000 {
		t.Errorf("linear cost's Mean() = %v, want 1000ns (999ns with the 20-bit positions' truncation)", got)
	}
	lin.P995 = 1990
	if got := lin.Mean(); got < 999 || got > 1000 {
		t.Errorf("linear cost with P995's Mean() = %v, want 1000ns (999ns with the 20-bit positions' truncation)", got)
	}
	// A P995 low in a long tail moves the mean by the mass it takes from the segment above:
	// the mean of 2^20 draws is within 0.5 % of Mean there too.
	tail := Cost{Min: 12000, P50: 24000, P90: 41000, P99: 62000, P995: 80000, P999: 2436000, Max: 2661000}
	tsrc := rand.NewPCG(3, 4)
	var tsum int64
	for range 1 << 20 {
		tsum += tail.sample(tsrc)
	}
	if d := float64(tail.Mean())/(float64(tsum)/(1<<20)) - 1; d > 0.005 || d < -0.005 {
		t.Errorf("Mean() with P995 = %v, the mean of 2^20 draws %.1fns", tail.Mean(), float64(tsum)/(1<<20))
	}
	// The ci profile's wake-up figure has a long tail: the mean of 2^20 draws is within 0.5 % of Mean.
	c := Cost{Min: 513, P50: 662, P90: 753, P99: 1191, P999: 1191, Max: 15310}
	src := rand.NewPCG(1, 2)
	const n = 1 << 20
	var sum int64
	for range n {
		sum += c.sample(src)
	}
	got, draws := float64(c.Mean()), float64(sum)/n
	if d := got/draws - 1; d > 0.005 || d < -0.005 {
		t.Errorf("Mean() = %v, the mean of %d draws %.1fns", c.Mean(), n, draws)
	}
	noP999 := Cost{Min: 10, P50: 20, P90: 30, P99: 40, Max: 50}
	// 0.5×15 + 0.4×25 + 0.09×35 + 0.01×45 = 21.1, on the 20-bit scale 21.09….
	if got := noP999.Mean(); got != 21 {
		t.Errorf("Mean() without P999 = %v, want 21ns", got)
	}
}
