package scenario

import (
	"fmt"
	"math"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
)

// rizzoShares adds the shells' shares in the shells' order, so that its figures are the same at
// every call: summed in a map's order, the spread of shares whose sum depends on the order of
// addition (as floats' do) changed in its last digits from run to run.
func TestRizzoSharesDeterministic(t *testing.T) {
	const end = 1_000_000_007
	r := &sim.Result{End: end}
	cpu := []int64{100_000_001, 333_333_337, 3, 566_666_659, 250_000_001, 1, 750_000_003, 7}
	for i := range cpu {
		shell := sched.ID(2*i + 1)
		r.Threads = append(r.Threads,
			sim.ThreadStats{ID: shell, Name: fmt.Sprintf("shell%d", i), Parent: -1},
			sim.ThreadStats{ID: shell + 1, Name: fmt.Sprintf("inst.%d", i), Parent: shell, CPUTime: cpu[i]})
	}
	s := &Setup{Values: Values{"n": float64(len(cpu))}}
	slow0, cv0 := rizzoShares(r, s)
	for range 200 {
		slow, cv := rizzoShares(r, s)
		if math.Float64bits(slow) != math.Float64bits(slow0) || math.Float64bits(cv) != math.Float64bits(cv0) {
			t.Fatalf("rizzoShares gave %v, %v after %v, %v", slow, cv, slow0, cv0)
		}
	}
	// The figures themselves: the mean share and the population standard deviation.
	var sum, sq float64
	for _, c := range cpu {
		sum += float64(c) / end
	}
	mean := sum / float64(len(cpu))
	for _, c := range cpu {
		sq += (float64(c)/end - mean) * (float64(c)/end - mean)
	}
	if want := 100 * math.Sqrt(sq/float64(len(cpu))) / mean; math.Abs(cv0-want) > 1e-9*want {
		t.Errorf("spread %v, want %v", cv0, want)
	}
	if want := 0.5 / mean; math.Abs(slow0-want) > 1e-9*want {
		t.Errorf("slowdown %v, want %v", slow0, want)
	}
}
