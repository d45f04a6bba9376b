package cfs

import "testing"

// max_vruntime, min_vruntime, entity_before, entity_is_long_sleeper and place_entity of
// kernel/sched/fair.c, v6.5 (blob b3e25be58e2b).

func TestVruntimeOrder(t *testing.T) {
	const top = ^uint64(0)
	tests := []struct {
		name       string
		a, b       uint64
		before     bool
		max, minim uint64
	}{
		{"plain", 1, 2, true, 2, 1},
		{"equal", 7, 7, false, 7, 7},
		{"across the wrap", top - 5, 5, true, 5, top - 5},
		{"initial min_vruntime before 0", InitialMinVruntime, 0, true, 0, InitialMinVruntime},
		{"just under 2^63 apart", 0, 1<<63 - 1, true, 1<<63 - 1, 0},
		{"exactly 2^63 apart: each is before the other", 0, 1 << 63, true, 0, 1 << 63},
		{"more than 2^63 apart: the order flips", 0, 1<<63 + 1, false, 0, 1<<63 + 1},
	}
	for _, tc := range tests {
		if got := Before(tc.a, tc.b); got != tc.before {
			t.Errorf("%s: Before(%d, %d) = %t, want %t", tc.name, tc.a, tc.b, got, tc.before)
		}
		if got := MaxVruntime(tc.a, tc.b); got != tc.max {
			t.Errorf("%s: MaxVruntime(%d, %d) = %d, want %d", tc.name, tc.a, tc.b, got, tc.max)
		}
		if got := MinVruntime(tc.a, tc.b); got != tc.minim {
			t.Errorf("%s: MinVruntime(%d, %d) = %d, want %d", tc.name, tc.a, tc.b, got, tc.minim)
		}
	}
}

func TestIsLongSleeper(t *testing.T) {
	const th = (1 << 63) / 1024 // about 104 days
	tests := []struct {
		name           string
		execStart, now uint64
		want           bool
	}{
		{"never ran", 0, 1 << 62, false},
		{"clock behind (migration)", 100, 50, false},
		{"exactly the threshold", 1, 1 + th, false},
		{"one past the threshold", 1, 2 + th, true},
		{"short sleep", 1000, 2000, false},
	}
	for _, tc := range tests {
		if got := isLongSleeper(tc.execStart, tc.now); got != tc.want {
			t.Errorf("%s: IsLongSleeper(%d, %d) = %t, want %t", tc.name, tc.execStart, tc.now, got, tc.want)
		}
	}
}

func TestPlaceEntity(t *testing.T) {
	const mv = 1_000_000_000
	gentle := DefaultParams()
	harsh := gentle
	harsh.GentleFairSleepers = false
	noDebit := gentle
	noDebit.StartDebit = false
	// A queue with one nice-0 task running, min_vruntime mv.
	c := queueOf(gentle, NewTask("running", Normal, 0))
	q := c.Root()
	q.minVruntime = mv
	c.Curr().Vruntime = mv
	task := func(policy Class, nice int, v, execStart uint64) *Entity {
		e := NewTask("e", policy, nice)
		e.Vruntime, e.ExecStart = v, execStart
		c.attach(e)
		return e
	}
	tests := []struct {
		name    string
		se      *Entity
		initial bool
		now     uint64
		p       Params
		want    uint64
	}{
		{"wakeup: half a latency of credit", task(Normal, 0, 0, 5), false, 10, gentle, mv - 3_000_000},
		{"wakeup: never more credit than it had", task(Normal, 0, mv-1_000_000, 5), false, 10, gentle, mv - 1_000_000},
		{"wakeup: later vruntime kept", task(Normal, 0, mv+7, 5), false, 10, gentle, mv + 7},
		{"wakeup without GENTLE_FAIR_SLEEPERS: a full latency", task(Normal, 0, 0, 5), false, 10, harsh, mv - 6_000_000},
		{"wakeup of SCHED_IDLE: half a min_granularity", task(Idle, 0, 0, 5), false, 10, gentle, mv - 375_000},
		{"wakeup of a long sleeper: base even if its vruntime is later", task(Normal, 0, mv+1<<40, 1), false, 2 + (1<<63)/1024, gentle, mv - 3_000_000},
		// fork: base mv + sched_vslice; a nice-0 child joining one nice-0 task: 2999998.
		{"fork: START_DEBIT of one vslice", task(Normal, 0, mv, 0), true, 10, gentle, mv + 2999998},
		{"fork: nice 5 child, vslice 4520969", task(Normal, 5, mv, 0), true, 10, gentle, mv + 4520969},
		{"fork without START_DEBIT", task(Normal, 0, mv-5, 0), true, 10, noDebit, mv},
		{"fork: parent far ahead keeps the child there", task(Normal, 0, mv+1<<30, 0), true, 10, gentle, mv + 1<<30},
	}
	for _, tc := range tests {
		if got := placeClassic(q, tc.se, tc.initial, tc.now, &tc.p); got != tc.want {
			t.Errorf("%s: placeClassic(initial=%t) = %d, want %d (min_vruntime%+d)", tc.name, tc.initial, got, tc.want, int64(got-mv))
		}
	}
	// Across the wrap: a fresh queue's min_vruntime is 2^64 - 2^20 and a sleeper whose vruntime
	// has wrapped past 0 is after it, so it keeps its vruntime.
	q.minVruntime = InitialMinVruntime
	if got := placeClassic(q, task(Normal, 0, 5, 1), false, 10, &gentle); got != 5 {
		t.Errorf("placeClassic(wrapped vruntime 5 against min_vruntime 2^64-2^20) = %d, want 5", got)
	}
}
