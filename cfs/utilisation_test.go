package cfs

import (
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func TestDecayUtil(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    uint64
		n    int64
		sh   uint
		want uint64
	}{
		{"no ticks", 1000, 0, 6, 1000},
		{"negative ticks", 1000, -3, 6, 1000},
		{"one tick", 1024, 1, 6, 1008},                      // 1024 - 16
		{"within a band", 100, 3, 6, 97},                    // 100 → 99 → 98 → 97, each taking 100>>6 = 1
		{"across bands", 130, 3, 6, 125},                    // 130 → 128 (-2) → 126 (-2) → 125 (-1)
		{"below 2^k stays", 63, 1_000_000, 6, 63},           // 63>>6 = 0
		{"to the fixed point", 64, 1 << 40, 6, 63},          // 64 → 63, then still
		{"hz 100 shift", 1024, 2, 2, 576},                   // 1024 → 768 → 576
		{"long sleep hz 1000", 1024, 512, 6, 63},            // reaches the band below 64 first
		{"huge value", 1 << 40, 1, 6, 1<<40 - 1<<34},        // one tick
		{"huge ticks no overflow", 1 << 40, 1 << 62, 6, 63}, // k*m never overflows
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decayUtil(tc.u, tc.n, tc.sh); got != tc.want {
				t.Errorf("decayUtil(%d, %d, %d) = %d, want %d", tc.u, tc.n, tc.sh, got, tc.want)
			}
		})
	}
}

// TestDecayUtilMatchesTicks compares decayUtil with tick-by-tick decay for every estimate up
// to 2048 (twice the largest capacity), every number of ticks up to 400 and the shifts of the
// usual tick rates (hz 100: 2, 250: 4, 1000: 6) and a few others.
func TestDecayUtilMatchesTicks(t *testing.T) {
	for _, sh := range []uint{1, 2, 4, 6, 10} {
		for u := uint64(0); u <= 2048; u++ {
			want := u
			for n := int64(1); n <= 400; n++ {
				want -= want >> sh
				if got := decayUtil(u, n, sh); got != want {
					t.Fatalf("decayUtil(%d, %d, %d) = %d, want %d", u, n, sh, got, want)
				}
			}
		}
	}
}

// TestDecayUtilComposes checks that decaying in two steps gives the one-step result, so that
// when an estimate is brought up to date does not change its value.
func TestDecayUtilComposes(t *testing.T) {
	for _, sh := range []uint{2, 4, 6} {
		for u := uint64(0); u <= 2048; u += 7 {
			for a := int64(0); a <= 80; a += 3 {
				for b := int64(0); b <= 80; b += 5 {
					if one, two := decayUtil(u, a+b, sh), decayUtil(decayUtil(u, a, sh), b, sh); one != two {
						t.Fatalf("decayUtil(%d, %d+%d, %d) = %d in one step, %d in two", u, a, b, sh, one, two)
					}
				}
			}
		}
	}
}

// TestSchedulerUtilSignal follows the utilisation of a lone task on a one-CPU machine tick by
// tick: a hog forked on an idle CPU starts at half its capacity (512) and the CPU's signal
// starts with it; each tick both lose 1/64 (hz 1000: 2^6 > 32 ticks) and gain 1024/64 = 16.
// A task that sleeps keeps its share in the signal, where it decays as the task's own estimate
// does, so with one task the signal and the estimate stay equal through runs, short sleeps and
// sleeps long enough (more than 8·64 ticks) to wake with no utilisation.
func TestSchedulerUtilSignal(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    behaviour
	}{
		{"hog", behaviour{}},
		{"short sleeps", behaviour{run: 7, sleep: 5}},
		{"long sleeps", behaviour{run: 40, sleep: 600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forVersions(t, func(t *testing.T, v Version) {
				m := newSMPMachine(t, topology.Uniform(1, 1, 1, 1, 1), 1000, vparams(v))
				m.check = m.checkInvariants
				id := m.spawn(0, sched.Attr{}, tc.b)
				task, _ := m.s.Thread(id)
				if task.util != 512 || m.s.sys.rqs[0].util != 512 {
					t.Fatalf("after the fork: task %d, CPU %d; want 512, 512", task.util, m.s.sys.rqs[0].util)
				}
				want := uint64(512) // the task's estimate, tick by tick
				sleptAt := 0
				th := m.threads[id]
				for range 3000 {
					asleep, wakeAt := th.asleep, th.wakeAt
					m.step()
					woke := asleep && wakeAt <= m.tick
					want -= want >> 6
					if woke && m.tick-sleptAt > 8<<6 {
						want = 0
					}
					if !asleep || woke {
						want += 16 // it ran at this tick
						if th.asleep {
							sleptAt = m.tick
						}
					}
					j := m.s.sys.jiffies(m.now())
					got := decayUtil(task.util, j-task.utilTick, 6)
					cpu := decayUtil(m.s.sys.rqs[0].util, j-m.s.sys.rqs[0].utilTick, 6)
					if got != want || cpu != want {
						t.Fatalf("tick %d (asleep %t): task's estimate %d, CPU's signal %d; want %d for both", m.tick, th.asleep, got, cpu, want)
					}
				}
			})
		})
	}
}
