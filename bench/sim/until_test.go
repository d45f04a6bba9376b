package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/topology"
)

// naiveUntil is the reference model of TestUntilNaive: a waiter that runs, u times, "until a:
// recv b; run body end; run body", against messages arriving at times at on pipes isA (a) or
// not (b). It walks the waiter's script in time order: the until takes an a that is there when
// it looks; otherwise its body waits for the next b (an a arriving meanwhile does not wake it).
// It returns when the waiter exits (-1 if it never does), the wake-ups (recvs that found no b)
// and the messages it took.
func naiveUntil(at []int64, isA []bool, u int, body int64) (end, wakeups, taken int64) {
	usedA, usedB := make([]bool, len(at)), make([]bool, len(at))
	next := func(a bool, by int64) int { // the first message of the kind not taken, arrived by by (-1: any time)
		for i := range at {
			if isA[i] == a && !usedA[i] && !usedB[i] && (by < 0 || at[i] <= by) {
				return i
			}
		}
		return -1
	}
	t := int64(0)
	for range u {
		for {
			if i := next(true, t); i >= 0 {
				usedA[i], taken = true, taken+1
				break
			}
			i := next(false, -1)
			if i < 0 {
				return -1, wakeups, taken
			}
			if at[i] > t {
				t, wakeups = at[i], wakeups+1
			}
			usedB[i], taken = true, taken+1
			t += body
		}
		t += body
	}
	return t, wakeups, taken
}

// An until takes its pipe's messages when they are there and otherwise runs its body, here a
// recv on another pipe, exactly as the naive model walks the script: over random orders of
// messages on the two pipes, the waiter exits when the model says, after as many wake-ups, with
// as many messages taken.
func TestUntilNaive(t *testing.T) {
	const body = int64(10 * time.Microsecond)
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n, u := 1+rng.IntN(12), 1+rng.IntN(4)
		at, isA := make([]int64, n), make([]bool, n)
		var src strings.Builder
		src.WriteString("pipe a\npipe b\nthread sender cpus=0\n")
		for i := range n {
			at[i], isA[i] = int64(i+1)*int64(time.Millisecond), rng.IntN(3) == 0
			name := "b"
			if isA[i] {
				name = "a"
			}
			fmt.Fprintf(&src, "\tsleep 1ms\n\tsend %s\n", name)
		}
		fmt.Fprintf(&src, "end\nthread waiter cpus=1\n\trepeat %d\n\t\tuntil a\n\t\t\trecv b\n\t\t\trun 10us\n\t\tend\n\t\trun 10us\n\tend\nend\n", u)
		w, err := workload.Parse(src.String())
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1}
		r, err := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		end, wakeups, taken := naiveUntil(at, isA, u, body)
		wt, _ := r.Thread("waiter")
		if (end < 0) != (wt.End < 0) || end >= 0 && (wt.End < end || wt.End > end+int64(50*time.Microsecond)) {
			t.Errorf("seed %d: the waiter ended at %d, the model at %d\n%s", seed, wt.End, end, src.String())
		}
		if wt.Wakeups != wakeups || r.Messages != taken {
			t.Errorf("seed %d: %d wake-ups and %d messages, the model %d and %d\n%s", seed, wt.Wakeups, r.Messages, wakeups, taken, src.String())
		}
	}
}

// An until's text form reads back as it was written, and the validator refuses an until
// whose body takes no time, of an unknown pipe, or without a body.
func TestUntilText(t *testing.T) {
	src := "pipe a\npipe b\n\nthread w\n\tuntil a 2\n\t\trecv b\n\t\trun 1ms\n\tend\nend\n"
	w, err := workload.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	op := w.Threads[0].Ops[0]
	if op.Kind != workload.Until || op.Name != "a" || op.N != 2 || len(op.Body) != 2 {
		t.Errorf("parsed %+v", op)
	}
	if got := workload.Format(w); got != src {
		t.Errorf("Format gave\n%s\nwant\n%s", got, src)
	}
	for _, bad := range []string{
		"pipe a\npipe b\nthread w\n\tuntil a\n\t\trecv b\n\tend\nend\n",
		"pipe b\nthread w\n\tuntil a\n\t\trun 1ms\n\tend\nend\n",
		"pipe a\nthread w\n\tuntil a\n\tend\nend\n",
	} {
		if _, err := workload.Parse(bad); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
	if n, exact := (&workload.Workload{Pipes: []workload.Pipe{{Name: "a"}}, Threads: []workload.Thread{
		{Name: "c", Template: true, Ops: []workload.Op{workload.RunOp(workload.Fixed(1))}},
		{Name: "w", Ops: []workload.Op{workload.UntilOp("a", 1, workload.ForkOp("c", 1), workload.RunOp(workload.Fixed(1)))}},
	}}).Started(); n != 1 || exact {
		t.Errorf("Started of a fork inside an until = %d, %v; want 1 (a lower bound), false", n, exact)
	}
}
