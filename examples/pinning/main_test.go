package main

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/topology"

	"github.com/schedkit/schedkit/examples/internal/golden"
)

// TestPlanGolden prints the plans for ready-made machines, so that what each -per level means
// is reviewed in one file: one worker per CPU, per core (SMT siblings together), per LLC, per
// node.
func TestPlanGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, m := range []*topology.Topology{topology.TwoSocketSMT(), topology.FourLLC(), topology.BigLittle()} {
		for _, per := range []string{"cpu", "smt", "llc", "node"} {
			sets, err := plan(m, per)
			if err != nil {
				t.Fatal(err)
			}
			writePlan(&buf, m, per, sets)
		}
	}
	golden.Check(t, "testdata/plan.golden", buf.Bytes())
}

func TestPlanUnknownLevel(t *testing.T) {
	if _, err := plan(topology.TwoCPU(), "socket"); err == nil || !strings.Contains(err.Error(), `"socket"`) {
		t.Errorf("plan(socket) = %v, want an error naming it", err)
	}
}

// TestPinReadsBack pins a locked goroutine to each CPU of the host in turn and checks, with
// sched_getaffinity, that the kernel holds exactly that mask. It skips where setting affinity is
// not permitted.
func TestPinReadsBack(t *testing.T) {
	host, err := topology.Discover()
	if errors.Is(err, topology.ErrNotSupported) {
		t.Skip("pinning needs Linux:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for c := range host.CPUs().All() {
		done := make(chan error)
		go func() {
			// Exiting while locked destroys the thread, so its mask never leaks into the pool.
			err := pin(topology.CPUSetOf(c))
			if err == nil {
				var got unix.CPUSet
				if err = unix.SchedGetaffinity(0, &got); err == nil && (got.Count() != 1 || !got.IsSet(int(c))) {
					t.Errorf("after pin(%d) the thread's mask has %d CPUs, cpu %d set: %t", c, got.Count(), c, got.IsSet(int(c)))
				}
			}
			done <- err
		}()
		if err := <-done; errors.Is(err, unix.EPERM) {
			t.Skip("setting affinity is not permitted here:", err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	runtime.Gosched()
}

// TestRunSmall runs the whole program at a tiny size on the host: the plan and both
// distributions are printed.
func TestRunSmall(t *testing.T) {
	var buf bytes.Buffer
	err := run(&buf, "cpu", 2, 4, 1000)
	if errors.Is(err, topology.ErrNotSupported) || errors.Is(err, unix.EPERM) {
		t.Skip("needs Linux and permission to set affinity:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"one worker per cpu", "pinned  min", "free    min"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
	if err := run(&buf, "cpu", 1, 4, 1000); err == nil {
		t.Errorf("run with -reps 1 = nil, want an error")
	}
}

// TestChainIsOneCycle checks that the pointer chase visits every line once per lap.
func TestChainIsOneCycle(t *testing.T) {
	buf := chain(8, 3)
	n := len(buf) / 16
	seen := make([]bool, n)
	i := uint32(0)
	for range n {
		if seen[i/16] {
			t.Fatalf("line %d visited twice in one lap", i/16)
		}
		seen[i/16] = true
		i = buf[i]
	}
	if i != 0 {
		t.Errorf("after %d steps the chase is at %d, want back at 0", n, i)
	}
}
