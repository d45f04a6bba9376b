package bsd4_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

var updateState = flag.Bool("update", false, "rewrite testdata/state.golden with the current snapshot")

// runHogs runs n CPU hogs (thread 0 at nice 10) on two CPUs for ticks statistics ticks and
// calls each after every tick; it returns the scheduler.
func runHogs(t *testing.T, n sched.ID, ticks int64, each func(*bsd4.System)) *bsd4.Scheduler {
	t.Helper()
	env := &printEnv{}
	s, err := bsd4.New(bsd4.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	cfg := sched.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000, StatHz: 127, Seed: 1}
	if err := s.Start(cfg, env); err != nil {
		t.Fatal(err)
	}
	running := []sched.ID{-1, -1}
	settle := func(now int64) {
		for len(env.pending) > 0 {
			c := env.pending[0]
			env.pending = env.pending[1:]
			if running[c] >= 0 {
				s.Stop(now, c, running[c], sched.Preempt)
				running[c] = -1
			}
			if id, ok := s.Pick(now, c); ok {
				running[c] = id
			}
		}
	}
	for id := range n {
		attr := sched.Attr{}
		if id == 0 {
			attr.Nice = 10
		}
		s.Fork(0, id, -1, 0, attr)
		s.Wakeup(0, id, 0, sched.WakeFork)
		settle(0)
	}
	for tick := int64(1); tick <= ticks; tick++ {
		now := tick * 1_000_000_000 / 127
		for c := range topology.CPU(2) {
			s.Tick(now, c)
		}
		settle(now)
		if each != nil {
			each(s.System())
		}
	}
	return s
}

// TestSnapshotGolden pins the JSON shape and values of a snapshot of four hogs on two CPUs
// after three simulated seconds.
func TestSnapshotGolden(t *testing.T) {
	s := runHogs(t, 4, 3*127, nil)
	got, err := json.MarshalIndent(s.System().Snapshot(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "state.golden")
	if *updateState {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("snapshot differs from %s; run with -update and review the diff.\ngot:\n%s", path, got)
	}
}

// TestSnapshotConsistent checks every snapshot of a run against the System's own accessors:
// queue lengths, running threads, load and each thread's numbers.
func TestSnapshotConsistent(t *testing.T) {
	runHogs(t, 5, 2*127, func(sys *bsd4.System) {
		st := sys.Snapshot()
		queued := st.Global.Len
		for _, c := range st.CPUs {
			queued += c.Queue.Len
			g, p := sys.QueueLen(topology.CPU(c.CPU))
			if g != st.Global.Len || p != c.Queue.Len {
				t.Fatalf("cpu %d: snapshot queues %d/%d, QueueLen %d/%d", c.CPU, st.Global.Len, c.Queue.Len, g, p)
			}
			r, ok := sys.Running(topology.CPU(c.CPU))
			if ok != (c.Running != "") || ok && r.ID.String() != c.Running {
				t.Fatalf("cpu %d: snapshot runs %q, Running %v %v", c.CPU, c.Running, r, ok)
			}
		}
		if queued != sys.Queued() || st.Load != sys.Load() {
			t.Fatalf("snapshot queued %d load %d, System %d %d", queued, st.Load, sys.Queued(), sys.Load())
		}
		if st.LoadAvg[0] != sys.LoadAvg()[0].String() {
			t.Fatalf("loadavg %q, System %v", st.LoadAvg[0], sys.LoadAvg()[0])
		}
		if len(st.Threads) != 5 {
			t.Fatalf("%d threads in snapshot, want 5", len(st.Threads))
		}
		for _, ti := range st.Threads {
			var id sched.ID
			for id = 0; id < 5 && id.String() != ti.Name; id++ {
			}
			th, ok := sys.Thread(id)
			if !ok || th.EstCPU != ti.EstCPU || th.Pri != ti.Pri || th.State().String() != ti.State {
				t.Fatalf("thread %s: snapshot %+v, System %+v", ti.Name, ti, th)
			}
		}
	})
}

// TestSnapshotReadOnly checks that taking a snapshot after every tick leaves the run unchanged:
// the final snapshot equals that of a run that took none.
func TestSnapshotReadOnly(t *testing.T) {
	plain := runHogs(t, 4, 2*127, nil).System().Snapshot()
	n := 0
	watched := runHogs(t, 4, 2*127, func(sys *bsd4.System) { sys.Snapshot(); n++ }).System().Snapshot()
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(watched)
	if n == 0 || !bytes.Equal(a, b) {
		t.Fatalf("snapshots changed the run (%d taken):\n%s\n%s", n, a, b)
	}
}
