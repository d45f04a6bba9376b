package scenario

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/ule"
)

// karglValues returns seed001-kargl's defaults with the given changes.
func karglValues(t *testing.T, set Values) Values {
	t.Helper()
	v := Values{}
	for _, p := range seed001Kargl().Params {
		v[p.Name] = p.Default
	}
	for k, x := range set {
		v[k] = x
	}
	return v
}

// With start 1 the machine starts only mpirun, which forks rank i (template rank<i>) and waits
// for its exec before forking the next, then waits for every rank's start-up and releases each;
// with start 0 the ranks are the machine's own threads. The script of each rank after its
// start is the same either way.
func TestKarglLaunch(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			at0, err := buildKargl(karglValues(t, Values{"n": float64(n), "start": 0}), nil)
			if err != nil {
				t.Fatal(err)
			}
			at1, err := buildKargl(karglValues(t, Values{"n": float64(n), "start": 1}), nil)
			if err != nil {
				t.Fatal(err)
			}
			w0, w1 := at0.Workload, at1.Workload
			if len(w0.Threads) != n || len(w1.Threads) != n+1 {
				t.Fatalf("start 0 has %d threads, start 1 %d; want %d and %d", len(w0.Threads), len(w1.Threads), n, n+1)
			}
			mpirun := w1.Threads[0]
			if mpirun.Name != "mpirun" || mpirun.Template {
				t.Fatalf("first thread of start 1: %q (template %v), want mpirun started by the machine", mpirun.Name, mpirun.Template)
			}
			var want []workload.Op
			for i := range n {
				want = append(want, workload.ForkOp(fmt.Sprintf("rank%d", i), 1), workload.RecvOp("execd", 1))
			}
			want = append(want, workload.RecvOp("ready", n))
			for i := range n {
				want = append(want, workload.SendOp(fmt.Sprintf("init%d", i), 1))
			}
			if !reflect.DeepEqual(mpirun.Ops, want) {
				t.Errorf("mpirun's script:\n%v\nwant\n%v", mpirun.Ops, want)
			}
			exec, initRun := workload.Fixed(workload.Duration(1e6)), workload.Fixed(workload.Duration(20e6))
			for i := range n {
				r0, r1 := w0.Threads[i], w1.Threads[i+1]
				name := fmt.Sprintf("rank%d", i)
				if r0.Name != name || r0.Template || r1.Name != name || !r1.Template {
					t.Fatalf("rank %d: %q (template %v) and %q (template %v)", i, r0.Name, r0.Template, r1.Name, r1.Template)
				}
				// The start-up ends in a wait like the rank loop's: a poll with sched_yield (wait 1).
				start := []workload.Op{workload.RunOp(exec), workload.SendOp("execd", 1), workload.RunOp(initRun),
					workload.SendOp("ready", 1), workload.PollOp(fmt.Sprintf("init%d", i), workload.Fixed(200e3), 1)}
				if !reflect.DeepEqual(r1.Ops, append(start, r0.Ops...)) {
					t.Errorf("rank %d under start 1:\n%v\nwant its start-up, then\n%v", i, r1.Ops, r0.Ops)
				}
			}
		})
	}
}

// pkgs splits the 4 CPUs into packages of equal size, and refuses a count that does not divide 4.
func TestKarglPackages(t *testing.T) {
	for _, c := range []struct {
		pkgs int
		ok   bool
	}{{1, true}, {2, true}, {3, false}, {4, true}} {
		s, err := buildKargl(karglValues(t, Values{"pkgs": float64(c.pkgs)}), nil)
		if (err == nil) != c.ok {
			t.Errorf("pkgs %d: error %v, want ok %v", c.pkgs, err, c.ok)
			continue
		}
		if err != nil {
			continue
		}
		if got := s.Config.Topology.NumCPUs(); got != 4 {
			t.Errorf("pkgs %d: %d CPUs, want 4", c.pkgs, got)
		}
		if got := len(s.Config.Topology.Root().Children()); c.pkgs > 1 && got != c.pkgs {
			t.Errorf("pkgs %d: the root has %d children, want one per package", c.pkgs, got)
		}
	}
}

// karglPiles runs seed001-kargl's workload (work_s 4, the given changes) under ule:freebsd9
// on the ci machine profile with the given seed and returns the most ranks one CPU held (ts_cpu of the running and the
// queued ranks) at 0.2 s, and at any sample every 50 ms from 0.5 s to the end.
func karglPiles(t *testing.T, set Values, seed uint64) (start, later int) {
	t.Helper()
	v := karglValues(t, Values{"work_s": 4})
	for k, x := range set {
		v[k] = x
	}
	setup, err := buildKargl(v, nil)
	if err != nil {
		t.Fatal(err)
	}
	setup.Config.Seed = seed
	prof, ok := sim.BuiltinProfile("ci") // the scenario's machine profile, as its runs charge it
	if !ok {
		t.Fatal("no ci profile")
	}
	charge(prof, &setup.Config)
	p, err := presets.New("ule:freebsd9")
	if err != nil {
		t.Fatal(err)
	}
	u := p.(*ule.Scheduler)
	m, err := sim.New(setup.Config, p, setup.Workload)
	if err != nil {
		t.Fatal(err)
	}
	pile := func() int {
		var on [4]int
		for _, th := range m.Result().Threads {
			if s, ok := u.Thread(th.ID); ok && strings.HasPrefix(th.Name, "rank") {
				on[s.CPU]++
			}
		}
		return max(on[0], on[1], on[2], on[3])
	}
	for at := 200 * time.Millisecond; at < setup.Until; at += 50 * time.Millisecond {
		if err := m.Run(at); err != nil {
			t.Fatal(err)
		}
		if at == 200*time.Millisecond {
			start = pile()
		} else if at >= 500*time.Millisecond {
			later = max(later, pile())
		}
	}
	return start, later
}

// The placements the scenario's notes and Why lines report. Under the 2011 ULE, ranks that poll
// in MPI_Init (init_wait 1, as Open MPI's source does) are placed by mpirun's forks and never
// woken again, and from 0.5 s on no CPU holds more than two of them, for N=6..8 on either
// machine. Ranks that slept there instead are woken by mpirun and piled on its CPU
// (sched_pickcpu's last rule): N-3 of them at 0.2 s; with two packages the 2008 balancer,
// which balances only inside a package, leaves three on a CPU for good at N=8.
func TestKarglPlacement(t *testing.T) {
	for _, n := range []int{6, 7, 8} {
		for _, pkgs := range []int{1, 2} {
			for seed := uint64(1); seed <= 2; seed++ {
				_, later := karglPiles(t, Values{"n": float64(n), "pkgs": float64(pkgs)}, seed)
				if later > 2 {
					t.Errorf("N=%d pkgs=%d seed %d, init_wait 1: %d ranks on one CPU after 0.5 s, want at most 2", n, pkgs, seed, later)
				}
			}
		}
		start, _ := karglPiles(t, Values{"n": float64(n), "init_wait": 0}, 1)
		if start != n-3 {
			t.Errorf("N=%d, init_wait 0: %d ranks on one CPU at 0.2 s, want %d (ranks 3..N-1 on mpirun's CPU)", n, start, n-3)
		}
	}
	if _, later := karglPiles(t, Values{"n": 8, "pkgs": 2, "init_wait": 0}, 1); later < 3 {
		t.Errorf("N=8 pkgs=2, init_wait 0: at most %d ranks on one CPU after 0.5 s, want 3 or more", later)
	}
}
