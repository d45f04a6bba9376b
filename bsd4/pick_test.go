package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// spec describes a thread for a Pick test: its priority and the CPU it last ran on (-1: none).
type spec struct {
	pri  uint8
	last int
}

func build(q *runq.Runq[bsd4.Thread], first sched.ID, specs []spec) []*bsd4.Thread {
	var ts []*bsd4.Thread
	for i, s := range specs {
		t := bsd4.NewThread(first+sched.ID(i), s.pri)
		if s.last >= 0 {
			t.SetLastCPU(topology.CPU(s.last))
		}
		q.Add(runq.Index(s.pri), &t.Link)
		ts = append(ts, t)
	}
	return ts
}

// Cases follow sched_choose and runq_choose_fuzz (sched_4bsd.c @e2650af1, kern_switch.c main).
func TestPick(t *testing.T) {
	tests := []struct {
		name       string
		global     []spec // thread ids 0..
		local      []spec // thread ids 100..
		fuzz       int
		wantID     sched.ID
		wantFrom   bsd4.Source
		wantFuzzed bool
	}{
		{"both empty", nil, nil, 1, -1, bsd4.FromNone, false},
		{"global only", []spec{{80, -1}, {70, -1}}, nil, 1, 1, bsd4.FromGlobal, false},
		{"FIFO among equals", []spec{{70, -1}, {70, -1}}, nil, 1, 0, bsd4.FromGlobal, false},
		{"local only", nil, []spec{{90, -1}}, 1, 100, bsd4.FromPerCPU, false},
		{"local strictly better", []spec{{80, -1}}, []spec{{79, -1}}, 1, 100, bsd4.FromPerCPU, false},
		{"tie goes global", []spec{{80, -1}}, []spec{{80, -1}}, 1, 0, bsd4.FromGlobal, false},
		{"global better", []spec{{60, -1}}, []spec{{80, -1}}, 1, 0, bsd4.FromGlobal, false},
		{"fuzz 1 ignores last CPU", []spec{{70, 0}, {70, 1}}, nil, 1, 0, bsd4.FromGlobal, false},
		{"fuzz 2 prefers cache-warm", []spec{{70, 0}, {70, 1}}, nil, 2, 1, bsd4.FromGlobal, true},
		{"fuzz window too short", []spec{{70, 0}, {70, 0}, {70, 1}}, nil, 2, 0, bsd4.FromGlobal, false},
		{"fuzz head already warm", []spec{{70, 1}, {70, 1}}, nil, 3, 0, bsd4.FromGlobal, false},
		{"fuzz only in best queue", []spec{{70, 0}, {71, 1}}, nil, 4, 0, bsd4.FromGlobal, false},
		{"fuzz never-run thread", []spec{{70, -1}, {70, 1}}, nil, 2, 1, bsd4.FromGlobal, true},
		{"fuzzed global loses to local", []spec{{70, 0}, {70, 1}}, []spec{{69, -1}}, 2, 100, bsd4.FromPerCPU, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g, l runq.Runq[bsd4.Thread]
			build(&g, 0, tc.global)
			build(&l, 100, tc.local)
			p := bsd4.DefaultParams()
			p.RunqFuzz = tc.fuzz
			got, c := bsd4.Pick(&g, &l, 1, &p)
			if got != c.Thread {
				t.Errorf("Pick returned %v, its PickReason %v", got, c.Thread)
			}
			id := sched.ID(-1)
			if c.Thread != nil {
				id = c.Thread.ID
			}
			if id != tc.wantID || c.From != tc.wantFrom || c.Fuzzed != tc.wantFuzzed {
				t.Errorf("Pick(fuzz %d) = %v from %v fuzzed %t, want %v from %v fuzzed %t (%v)", tc.fuzz, id, c.From, c.Fuzzed, tc.wantID, tc.wantFrom, tc.wantFuzzed, c)
			}
			if g.Len() != len(tc.global) || l.Len() != len(tc.local) {
				t.Errorf("Pick removed a thread: queues hold %d and %d, want %d and %d", g.Len(), l.Len(), len(tc.global), len(tc.local))
			}
			if c.String() == "" {
				t.Error("PickReason.String() is empty")
			}
		})
	}
}
