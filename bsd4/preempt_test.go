package bsd4_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
)

// Cases follow maybe_preempt in sched_4bsd.c @e2650af1 with the main priority layout
// (PRI_MAX_ITHD 7, PRI_MIN_IDLE 224) unless stated.

func TestShouldPreempt(t *testing.T) {
	def := bsd4.DefaultParams()
	full := def
	full.FullPreemption = true
	none := def
	none.Preemption = false
	old := bsd4.FreeBSD9Params()
	tests := []struct {
		name        string
		pri, cur    uint8
		p           bsd4.Params
		wantPreempt bool
		wantRule    bsd4.PreemptRule
	}{
		{"no PREEMPTION option", 0, 255, none, false, bsd4.NoPreemptionOption},
		{"equal priority", 100, 100, def, false, bsd4.NotBetter},
		{"worse priority", 101, 100, def, false, bsd4.NotBetter},
		{"interrupt thread", 5, 100, def, true, bsd4.PreemptInterrupt},
		{"last ithd priority", 7, 100, def, true, bsd4.PreemptInterrupt},
		{"real time does not preempt", 8, 100, def, false, bsd4.NotInterrupt},
		{"timeshare does not preempt timeshare", 60, 120, def, false, bsd4.NotInterrupt},
		{"anything preempts the idle thread", 200, 255, def, true, bsd4.PreemptIdle},
		{"anything preempts an idle-class thread", 100, 224, def, true, bsd4.PreemptIdle},
		{"last timeshare level is not idle", 100, 223, def, false, bsd4.NotInterrupt},
		{"idle thread vs idle class", 224, 255, def, true, bsd4.PreemptIdle},
		{"FULL_PREEMPTION timeshare", 60, 120, full, true, bsd4.PreemptFull},
		{"FULL_PREEMPTION still needs better", 120, 120, full, false, bsd4.NotBetter},
		{"2011 layout ithd 47", 47, 120, old, true, bsd4.PreemptInterrupt},
		{"2011 layout realtime 48", 48, 120, old, false, bsd4.NotInterrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, got := bsd4.ShouldPreempt(tc.pri, tc.cur, &tc.p)
			if ok != got.Preempt || got.Preempt != tc.wantPreempt || got.Rule != tc.wantRule || got.Pri != tc.pri || got.CurPri != tc.cur {
				t.Errorf("ShouldPreempt(%d, %d) = %+v, want preempt %t by %v", tc.pri, tc.cur, got, tc.wantPreempt, tc.wantRule)
			}
		})
	}
}

// TestShouldPreemptExhaustive checks the decision for every pair of priorities against the two
// statements of maybe_preempt's contract: nothing preempts an equal or better thread, and with
// PREEMPTION anything better preempts an idle-priority thread; without FULL_PREEMPTION nothing
// but an interrupt thread preempts a non-idle one.
func TestShouldPreemptExhaustive(t *testing.T) {
	p := bsd4.DefaultParams()
	l := p.Layout
	for pri := range 256 {
		for cur := range 256 {
			ok, d := bsd4.ShouldPreempt(uint8(pri), uint8(cur), &p)
			want := pri < cur && (cur >= int(l.MinIdle) || pri <= int(l.MaxITHD))
			if d.Preempt != want || ok != want {
				t.Fatalf("ShouldPreempt(%d, %d).Preempt = %t, want %t (%v)", pri, cur, d.Preempt, want, d)
			}
			if d.String() == "" || d.Rule.String() == "" {
				t.Fatalf("ShouldPreempt(%d, %d) has an empty explanation", pri, cur)
			}
		}
	}
}

// TestPreemptRuleString: every rule has its own description; a value past the last rule
// formats as its number instead of indexing past the table.
func TestPreemptRuleString(t *testing.T) {
	seen := map[string]bsd4.PreemptRule{}
	for r := bsd4.NoPreemptionOption; r <= bsd4.PreemptFull; r++ {
		s := r.String()
		if s == "" || strings.HasPrefix(s, "PreemptRule(") {
			t.Errorf("PreemptRule(%d).String() = %q, want its description", uint8(r), s)
		}
		if prev, dup := seen[s]; dup {
			t.Errorf("PreemptRule(%d).String() = %q, the same as rule %d", uint8(r), s, uint8(prev))
		}
		seen[s] = r
	}
	for _, r := range []bsd4.PreemptRule{bsd4.PreemptFull + 1, 255} {
		if got, want := r.String(), fmt.Sprintf("PreemptRule(%d)", uint8(r)); got != want {
			t.Errorf("PreemptRule(%d).String() = %q, want %q", uint8(r), got, want)
		}
	}
}
