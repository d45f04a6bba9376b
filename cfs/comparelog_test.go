package cfs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/internal/comparelog"
	"github.com/schedkit/schedkit/topology"
)

// compareWorkload is six hogs and four threads that sleep and wake on four CPUs in two LLCs:
// wake-up placements on both paths and balances that find groups out of balance.
const compareWorkload = `thread hog count=6
	run forever
end
thread sleeper count=4
	loop
		run 2ms
		sleep exp(3ms)
	end
end
`

// runComparisons runs compareWorkload under p on four CPUs in two LLCs for 300 ms, calling
// each (if not nil) after every machine event, and returns the run's trace hash.
func runComparisons(t *testing.T, p cfs.Params, each func(*cfs.Scheduler)) uint64 {
	_, hash := runWorkload(t, p, compareWorkload, topology.Uniform(1, 1, 2, 2, 1), 300*time.Millisecond, each)
	return hash
}

// TestComparisonsChangeNothing checks RecordComparisons under classic CFS and EEVDF: a run
// with every comparison recorded and taken after each event has the trace hash of a run
// without, and the records hold together — one local group per balance, a busiest group only
// with an imbalance to move, the chosen CPU among the CPUs listed and idle when the reason
// says it was found idle (so the figures are those before the task was queued).
func TestComparisonsChangeNothing(t *testing.T) {
	for name, p := range snapshotParams() {
		plain := runComparisons(t, p, nil)
		var got []comparelog.Comparison
		recorded := runComparisons(t, p, func(s *cfs.Scheduler) {
			s.System().RecordComparisons(true)
			got = append(got, s.System().TakeComparisons()...)
		})
		if plain != recorded {
			t.Fatalf("%s: recording changed the run: trace hash %x, without %x", name, recorded, plain)
		}
		placements, balances, busiest := 0, 0, 0
		for i, c := range got {
			switch {
			case c.Placement != nil:
				placements++
				f := c.Placement
				var chosen *comparelog.CPUFigures
				for k := range f.CPUs {
					if f.CPUs[k].CPU == f.CPU {
						chosen = &f.CPUs[k]
					}
				}
				if chosen == nil {
					t.Fatalf("%s: placement %d (%+v): cpu%d is not among the CPUs listed", name, i, f, f.CPU)
				}
				idleFound := strings.Contains(f.Reason, ": target idle") || strings.Contains(f.Reason, ": idle CPU in the LLC") ||
					strings.Contains(f.Reason, ": previous CPU idle")
				if idleFound && !chosen.Idle && !chosen.IdleOnly {
					t.Fatalf("%s: placement %d says %q, but cpu%d's figures are %+v", name, i, f.Reason, f.CPU, *chosen)
				}
			case c.Balance != nil:
				balances++
				f := c.Balance
				local, nbusiest := 0, 0
				for _, g := range f.Groups {
					if g.Local {
						local++
					}
					if g.Local != slices.Contains(g.CPUs, f.Dst) {
						t.Fatalf("%s: balance %d from cpu%d: group %v local %v", name, i, f.Dst, g.CPUs, g.Local)
					}
					if g.Busiest {
						nbusiest++
					}
				}
				if local != 1 || nbusiest > 1 || (nbusiest == 1) != (f.Migration != "") || (nbusiest == 1 && f.Imbalance <= 0) {
					t.Fatalf("%s: balance %d: %+v", name, i, f)
				}
				busiest += nbusiest
			default:
				t.Fatalf("%s: comparison %d is neither a placement nor a balance", name, i)
			}
		}
		if placements == 0 || balances == 0 || busiest == 0 {
			t.Fatalf("%s: %d placements, %d balances (%d with a busiest group): the workload should make all three", name, placements, balances, busiest)
		}
	}
}

// ExampleSystem_RecordComparisons records what CFS compared while six hogs and four sleepers
// share four CPUs in two LLCs, and prints the first balance that found a busiest group: the
// groups of the domain with their sg_lb_stats, and the verdict.
func ExampleSystem_RecordComparisons() {
	w, _ := workload.Parse(compareWorkload)
	s, _ := cfs.New(preset("v6.5"))
	m, _ := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 2, 2, 1), Seed: 1}, s, w)
	for m.Step() {
		s.System().RecordComparisons(true) // on once started; recording decides nothing
		for _, c := range s.System().TakeComparisons() {
			if f := c.Balance; f != nil && f.Migration != "" {
				fmt.Printf("%s %s from cpu%d (%s): %s, %s %d\n", f.Domain, f.Span, f.Dst, f.Idle, f.Reason, f.Migration, f.Imbalance)
				for _, g := range f.Groups {
					fmt.Printf("  cpus %v local=%v busiest=%v %s: %d tasks, load %d, capacity %d, avg_load %d\n", g.CPUs, g.Local, g.Busiest,
						g.Type, g.SumNrRunning, g.GroupLoad, g.GroupCapacity, g.AvgLoad)
				}
				return
			}
		}
	}
	// Both groups are overloaded, so calculate_imbalance moves load: the domain's avg_load is
	// 7168*1024/4096 = 1792, and min((2048-1792)*2048, (1792-1536)*2048)/1024 = 512.

	// Output:
	// PKG 0-3 from cpu2 (busy): groups out of balance, migrate_load 512
	//   cpus [2 3] local=true busiest=false overloaded: 3 tasks, load 3072, capacity 2048, avg_load 1536
	//   cpus [0 1] local=false busiest=true overloaded: 4 tasks, load 4096, capacity 2048, avg_load 2048
}
