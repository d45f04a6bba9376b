package ule_test

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
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

var updateSnapshot = flag.Bool("update-state", false, "rewrite testdata/state-*.golden with the current snapshots")

// snapshotWorkload is three hogs (one at nice 10) and an interactive thread that runs 1 ms in
// every 10 on two CPUs: queues on both CPUs, a batch calendar in use, an interactive score.
const snapshotWorkload = `thread hog count=2
	run forever
end
thread nicehog nice=10
	run forever
end
thread editor
	loop
		run 1ms
		sleep 9ms
	end
end
`

// runSnapshots runs snapshotWorkload under ULE with p on two CPUs for until, calling each (if
// not nil) with the scheduler after every machine event, and returns the scheduler and the
// run's trace hash.
func runSnapshots(t *testing.T, p ule.Params, until time.Duration, each func(*ule.Scheduler)) (*ule.Scheduler, uint64) {
	t.Helper()
	w, err := workload.Parse(snapshotWorkload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ule.New(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1, Trace: sim.TraceHash}, s, w)
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

// TestSnapshotGolden pins the JSON shape and values of a snapshot after one simulated second,
// for main's one run queue and calendar and for legacy's three queues.
func TestSnapshotGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		p    ule.Params
	}{{"main", ule.DefaultParams()}, {"legacy", ule.LegacyParams()}} {
		s, _ := runSnapshots(t, c.p, time.Second, nil)
		got, err := json.MarshalIndent(s.Snapshot(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", "state-"+c.name+".golden")
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
			t.Errorf("%s: snapshot differs from %s; run with -update-state and review the diff.\ngot:\n%s", c.name, path, got)
		}
	}
}

// TestSnapshotConsistent checks every snapshot of a run against the System's own accessors:
// each CPU's load, lowest priority, running thread and queue lengths, and the threads' count.
func TestSnapshotConsistent(t *testing.T) {
	n := 0
	runSnapshots(t, ule.DefaultParams(), 300*time.Millisecond, func(s *ule.Scheduler) {
		n++
		st := s.Snapshot()
		if len(st.Threads) != 4 {
			t.Fatalf("%d threads in the snapshot, want 4", len(st.Threads))
		}
		for _, ci := range st.CPUs {
			c := s.System().CPU(topology.CPU(ci.CPU))
			queued := 0
			for range c.Queued() {
				queued++
			}
			running := 0
			if c.Cur != nil {
				running = 1
			}
			if ci.Load != c.Load() || ci.LowPri != c.LowPri() || ci.Queues[0].Queue.Len != queued ||
				ci.Load != queued+running || (c.Cur == nil) != (ci.Running == "") ||
				ci.Calendar.Insert != c.TSOff || ci.Calendar.Remove != c.DeqOff || ci.Calendar.Size != ule.TSModulo {
				t.Fatalf("cpu %d: snapshot %+v, CPUState load %d lowpri %d queued %d cur %v", ci.CPU, ci, c.Load(), c.LowPri(), queued, c.Cur)
			}
		}
		for _, ti := range st.Threads {
			if ti.Score < 0 || ti.Score > 100 || ti.Slice <= 0 || ti.PctCPU == "" {
				t.Fatalf("thread %+v out of range", ti)
			}
		}
	})
	if n == 0 {
		t.Fatal("no event ran")
	}
}

// TestSnapshotReadOnly checks that taking a snapshot after every event leaves the run unchanged:
// the trace hash equals that of a run that took none.
func TestSnapshotReadOnly(t *testing.T) {
	_, plain := runSnapshots(t, ule.DefaultParams(), 500*time.Millisecond, nil)
	n := 0
	_, watched := runSnapshots(t, ule.DefaultParams(), 500*time.Millisecond, func(s *ule.Scheduler) { s.Snapshot(); n++ })
	if n == 0 || plain != watched {
		t.Fatalf("snapshots changed the run (%d taken): trace hash %x, without %x", n, watched, plain)
	}
	// The same with the searches of the topology recorded and taken after every event.
	searches := 0
	_, recorded := runSnapshots(t, ule.DefaultParams(), 500*time.Millisecond, func(s *ule.Scheduler) {
		s.System().RecordSearches(true)
		searches += len(s.System().TakeSearches())
	})
	if searches == 0 || plain != recorded {
		t.Fatalf("recording searches changed the run (%d recorded): trace hash %x, without %x", searches, recorded, plain)
	}
}

func TestSnapshotBeforeStart(t *testing.T) {
	s, err := ule.New(ule.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || r != "ule: Snapshot before Start" {
			t.Fatalf("recovered %v, want the ule: panic", r)
		}
	}()
	s.Snapshot()
}

// ExampleScheduler_Snapshot runs two hogs and an interactive editor on one CPU for a second and
// reads ULE's state as a student draws it: the calendar's offsets, what each run queue holds,
// and each thread's priority, interactivity score and %CPU.
func ExampleScheduler_Snapshot() {
	w, _ := workload.Parse("thread hog count=2\n\trun forever\nend\nthread editor\n\tloop\n\t\trun 1ms\n\t\tsleep 9ms\n\tend\nend\n")
	s, _ := ule.New(ule.DefaultParams())
	m, _ := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Seed: 1}, s, w)
	if err := m.Run(time.Second); err != nil {
		fmt.Println(err)
		return
	}
	st := s.Snapshot()
	c := st.CPUs[0]
	fmt.Printf("cpu%d runs %q, load %d, calendar insert %d remove %d of %d\n", c.CPU, c.Running, c.Load, c.Calendar.Insert, c.Calendar.Remove, c.Calendar.Size)
	for _, q := range c.Queues[0].Queue.Queues {
		fmt.Printf("  queue %d: %v\n", q.Index, q.Elems)
	}
	for _, t := range st.Threads {
		fmt.Printf("%s %-7s pri %3d score %3d %%cpu %s\n", t.Name, t.State, t.Pri, t.Score, t.PctCPU)
	}
	// Output:
	// cpu0 runs "t2", load 3, calendar insert 76 remove 76 of 109
	//   queue 131: [t1]
	//   queue 223: [t0]
	// t0 runq    pri 167 score  50 %cpu 45.11
	// t1 runq    pri 166 score  50 %cpu 45.89
	// t2 running pri  65 score   5 %cpu 8.98
}
