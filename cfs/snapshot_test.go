package cfs_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
)

var updateSnapshot = flag.Bool("update-state", false, "rewrite testdata/state-*.golden with the current snapshots")

// snapshotWorkload is two hogs (one at nice 5) and a thread that runs 1 ms in every 4 on two
// CPUs: queues of two or three entities, eligible and not.
const snapshotWorkload = `thread hog
	run forever
end
thread nicehog nice=5
	run forever
end
thread editor
	loop
		run 1ms
		sleep 3ms
	end
end
`

// runSnapshots runs snapshotWorkload under p on two CPUs for until, calling each (if not nil)
// after every machine event, and returns the scheduler and the run's trace hash.
func runSnapshots(t *testing.T, p cfs.Params, until time.Duration, each func(*cfs.Scheduler)) (*cfs.Scheduler, uint64) {
	return runWorkload(t, p, snapshotWorkload, topology.Uniform(1, 1, 1, 2, 1), until, each)
}

// runWorkload runs the workload text under p on top for until, calling each (if not nil) after
// every machine event, and returns the scheduler and the run's trace hash.
func runWorkload(t *testing.T, p cfs.Params, text string, top *topology.Topology, until time.Duration, each func(*cfs.Scheduler)) (*cfs.Scheduler, uint64) {
	t.Helper()
	w, err := workload.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cfs.New(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.New(sim.Config{Topology: top, Seed: 1, Trace: sim.TraceHash}, s, w)
	if err != nil {
		t.Fatal(err)
	}
	for m.Now() < int64(until) && m.Step() {
		if each != nil {
			each(s)
		}
	}
	return s, m.Result().Trace.Hash()
}

func snapshotParams() map[string]cfs.Params {
	return map[string]cfs.Params{"v6.5": preset("v6.5"), "v7.1": preset("v7.1")}
}

// preset returns the cfs preset of that name; the names are fixed here, so an error is a bug.
func preset(name string) cfs.Params {
	p, err := cfs.Preset(name)
	if err != nil {
		panic(err)
	}
	return p
}

// TestSnapshotGolden pins the JSON shape and values of a snapshot after 100 ms under classic
// CFS and EEVDF.
func TestSnapshotGolden(t *testing.T) {
	for name, p := range snapshotParams() {
		s, _ := runSnapshots(t, p, 100*time.Millisecond, nil)
		got, err := json.MarshalIndent(s.Snapshot(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", "state-"+name+".golden")
		if *updateSnapshot {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update-state to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: snapshot differs from %s; run with -update-state and review the diff.\ngot:\n%s", name, path, got)
		}
	}
}

// TestSnapshotConsistent checks every snapshot of an EEVDF run against the queues: the
// entities in tree order by vruntime key, nr_running, and eligibility as lag ≥ 0.
func TestSnapshotConsistent(t *testing.T) {
	n := 0
	runSnapshots(t, preset("v7.1"), 100*time.Millisecond, func(s *cfs.Scheduler) {
		n++
		for _, rq := range s.Snapshot().CPUs {
			if len(rq.Entities) != rq.NrRunning {
				t.Fatalf("cpu %d: %d entities, nr_running %d", rq.CPU, len(rq.Entities), rq.NrRunning)
			}
			var prev *cfs.EntityInfo
			for i := range rq.Entities {
				e := &rq.Entities[i]
				if e.Eligible != (e.Lag >= 0) && e.Weight != 0 {
					// entity_eligible compares (v - v0)·W with Σ (v_i - v0)·w_i, exact where V
					// itself is rounded down: an entity at V + a fraction is eligible with lag -1 at most.
					if !(e.Eligible && e.Lag == -1) {
						t.Fatalf("cpu %d: %s eligible %v with lag %d", rq.CPU, e.Name, e.Eligible, e.Lag)
					}
				}
				if !e.Running && prev != nil && !prev.Running && int64(e.Vruntime-prev.Vruntime) < 0 {
					t.Fatalf("cpu %d: tree out of order at %s", rq.CPU, e.Name)
				}
				if !e.Running {
					prev = e
				}
			}
		}
	})
	if n == 0 {
		t.Fatal("no event ran")
	}
}

// TestSnapshotReadOnly checks that a snapshot after every event leaves the run unchanged.
func TestSnapshotReadOnly(t *testing.T) {
	for name, p := range snapshotParams() {
		_, plain := runSnapshots(t, p, 200*time.Millisecond, nil)
		k := 0
		_, watched := runSnapshots(t, p, 200*time.Millisecond, func(s *cfs.Scheduler) { s.Snapshot(); k++ })
		if k == 0 || plain != watched {
			t.Fatalf("%s: snapshots changed the run (%d taken): trace hash %x, without %x", name, k, watched, plain)
		}
	}
}

// ExampleScheduler_Snapshot runs two hogs and a thread that sleeps 3 ms in every 4 on one CPU
// under EEVDF and reads the run queue as a student draws it: the entities on the vruntime axis
// with their deadlines, the average vruntime V, each entity's lag and eligibility.
func ExampleScheduler_Snapshot() {
	w, _ := workload.Parse(snapshotWorkload)
	s, _ := cfs.New(preset("v7.1"))
	m, _ := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Seed: 1}, s, w)
	if err := m.Run(50 * time.Millisecond); err != nil {
		fmt.Println(err)
		return
	}
	rq := s.Snapshot().CPUs[0]
	fmt.Printf("cpu%d runs %s, V = zero + %d\n", rq.CPU, rq.Running, rq.AvgVruntime-rq.MinVruntime)
	for _, e := range rq.Entities {
		fmt.Printf("  %s running=%v weight %d vruntime zero%+d deadline zero%+d lag %d eligible %v\n", e.Name, e.Running, e.Weight,
			int64(e.Vruntime-rq.MinVruntime), int64(e.Deadline-rq.MinVruntime), e.Lag, e.Eligible)
	}
	// Output:
	// cpu0 runs t0, V = zero + 0
	//   t0 running=true weight 1048576 vruntime zero-139807 deadline zero+560193 lag 139807 eligible true
	//   t1 running=false weight 343040 vruntime zero+427353 deadline zero+2567054 lag -427353 eligible false
}
