package toy_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/toy"
)

// queue builds a queue of threads 0, 1, 2, … with the given declared lengths; a thread whose
// length is negative may run on cpu1 only.
func queue(lengths ...int64) []*toy.Thread {
	q := make([]*toy.Thread, len(lengths))
	for i, l := range lengths {
		q[i] = &toy.Thread{ID: toy.ID(i), Length: l, Arrival: uint64(i), State: toy.Queued}
		if l < 0 {
			q[i].Length, q[i].Affinity = -l, topology.CPUSetOf(1)
		}
	}
	return q
}

// The cases are OSTEP chapter 7's rules: FIFO and RR take the first in line, SJF the shortest
// declared job (an unknown length, 0, counting as the longest, ties to the earlier arrival);
// no rule gives a CPU a thread its affinity excludes.
func TestPick(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    toy.Rule
		queue   []*toy.Thread
		want    int
		skipped int
	}{
		{"empty", toy.FIFO, nil, -1, 0},
		{"fifo first in line", toy.FIFO, queue(300, 100, 200), 0, 0},
		{"rr first in line", toy.RR, queue(300, 100, 200), 0, 0},
		{"sjf shortest", toy.SJF, queue(300, 100, 200), 1, 0},
		{"sjf tie to the earlier", toy.SJF, queue(300, 100, 100), 1, 0},
		{"sjf unknown is longest", toy.SJF, queue(0, 500, 0), 1, 0},
		{"sjf all unknown: first", toy.SJF, queue(0, 0), 0, 0},
		{"fifo skips a thread pinned elsewhere", toy.FIFO, queue(-300, 100), 1, 1},
		{"sjf skips a shorter thread pinned elsewhere", toy.SJF, queue(-50, 100, 200), 1, 1},
		{"nothing allowed", toy.RR, queue(-1, -2), -1, 2},
	} {
		p := toy.Params{Rule: tc.rule, Quantum: 4}
		got, why := toy.Pick(tc.queue, 0, &p)
		wantID := toy.ID(-1)
		if tc.want >= 0 {
			wantID = tc.queue[tc.want].ID
		}
		if got != tc.want || why.Thread != wantID || why.Skipped != tc.skipped || why.String() == "" {
			t.Errorf("%s: Pick = %d (%+v), want %d with %d skipped", tc.name, got, why, tc.want, tc.skipped)
		}
	}
}

func TestExpired(t *testing.T) {
	rr := toy.Params{Rule: toy.RR, Quantum: 4}
	fifo := toy.Params{Rule: toy.FIFO, Quantum: 4}
	for _, tc := range []struct {
		ran     int
		waiting bool
		p       *toy.Params
		want    bool
	}{
		{3, true, &rr, false}, {4, true, &rr, true}, {9, true, &rr, true}, {4, false, &rr, false},
		{100, true, &fifo, false},
	} {
		got, why := toy.Expired(tc.ran, tc.waiting, tc.p)
		if got != tc.want || why.String() == "" {
			t.Errorf("Expired(%d, %t, %v) = %t (%v), want %t", tc.ran, tc.waiting, tc.p.Rule, got, why, tc.want)
		}
	}
}

func TestParams(t *testing.T) {
	for _, name := range toy.Presets() {
		p, err := toy.Preset(name)
		if err != nil || p.Validate() != nil || p.Rule.String() != name {
			t.Errorf("Preset(%q) = %+v, %v", name, p, err)
		}
	}
	for _, p := range []toy.Params{{Rule: 7}, {Rule: toy.RR}} {
		if _, err := toy.New(p); err == nil {
			t.Errorf("New(%+v) = nil error", p)
		}
	}
	if _, err := toy.Preset("mlfq"); err == nil {
		t.Error("Preset(mlfq) = nil error")
	}
}

// ExamplePick shows SJF choosing the shortest declared job and FIFO the first in line.
func ExamplePick() {
	q := queue(300, 100, 200)
	for _, rule := range []toy.Rule{toy.FIFO, toy.SJF} {
		p := toy.Params{Rule: rule}
		_, why := toy.Pick(q, 0, &p)
		fmt.Println(why)
	}
	// Output:
	// cpu0 runs t0: the first in line (fifo)
	// cpu0 runs t1: the shortest declared job, 100 ns (sjf)
}

// ExampleExpired is round robin's timer: a quantum of 4 ticks is over at the fourth.
func ExampleExpired() {
	p := toy.DefaultParams()
	for ran := 3; ran <= 4; ran++ {
		_, why := toy.Expired(ran, true, &p)
		fmt.Println(why)
	}
	// Output:
	// ran 3 of 4 ticks (rr)
	// ran 4 of 4 ticks with threads waiting: quantum over (rr)
}
