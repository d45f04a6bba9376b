package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// TestResultReadAsItRuns reads a machine every 50 simulated milliseconds, as schedbench top
// does: each Result sorts only the samples since the last and merges them with those it shares
// with the last Result (see Machine.Result). Each must equal, byte for byte in JSON, the one
// Result of a new machine run to the same instant, and every earlier Result must be unchanged
// at the end. Budgets of 5 and 40 samples move series out of the sample arena into a Histogram
// and then into buckets on the way.
func TestResultReadAsItRuns(t *testing.T) {
	w := periodicWorkload(t, "16x100")
	for _, budget := range []int{5, 40, 0} {
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 16, 1), Hz: 1000, StatHz: 127, Seed: 1, ExactSamples: budget}
		m, err := sim.New(cfg, benchPolicies[0].make(), w)
		if err != nil {
			t.Fatal(err)
		}
		var results []*sim.Result
		var texts [][]byte
		for until := 50 * time.Millisecond; until <= 400*time.Millisecond; until += 50 * time.Millisecond {
			if err := m.Run(until); err != nil {
				t.Fatal(err)
			}
			r := m.Result()
			got := mustJSON(t, r)
			fresh, err := sim.New(cfg, benchPolicies[0].make(), w)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.Run(until); err != nil {
				t.Fatal(err)
			}
			if want := mustJSON(t, fresh.Result()); !bytes.Equal(got, want) {
				t.Fatalf("budget %d, at %v: the Result of a machine read every 50 ms differs from a new machine's", budget, until)
			}
			results, texts = append(results, r), append(texts, got)
		}
		for i, r := range results {
			if !bytes.Equal(mustJSON(t, r), texts[i]) {
				t.Errorf("budget %d: Result %d changed after the machine ran on and was read again", budget, i)
			}
		}
	}
}

func mustJSON(t *testing.T, r *sim.Result) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(fmt.Errorf("marshal: %w", err))
	}
	return b
}
