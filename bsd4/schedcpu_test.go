package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
)

// Expected values are worked out from schedcpu in sched_4bsd.c @e2650af1: pct = pct·ccpu >>
// FSHIFT (ccpu = 1948), plus cpticks·100/realstathz (cpticks at 100 Hz).

func TestDecayPctCPU(t *testing.T) {
	tests := []struct {
		name       string
		pct        bsd4.Fixpt
		cpticks    int32
		realstathz int
		want       bsd4.Fixpt
	}{
		{"one busy second at 127 Hz", 0, 127, 127, 100},
		{"idle second decays", 2048, 0, 127, 1948},
		// 1948·1948 >> 11 = 1852, + 100.
		{"busy after busy", 1948, 127, 127, 1952},
		{"100 Hz shortcut", 0, 100, 100, 100},
		// 1000·1948 >> 11 = 951, + 50.
		{"100 Hz half busy", 1000, 50, 100, 1001},
		{"stathz 0 uses hz", 0, 1000, 1000, 100},
		{"one tick truncates", 0, 1, 127, 0},
		// schedcpu (freebsd/freebsd-src sys/kern/sched_4bsd.c @e2650af1) adds the ticks when
		// ts_cpticks != 0: one tick at 100 Hz is 1 << (FSHIFT - CCPU_SHIFT) = 1.
		{"one tick at 100 Hz", 0, 1, 100, 1},
		// Only realstathz == 100 takes the shortcut: at 101 Hz, 100·101/101 = 100.
		{"101 Hz uses the general formula", 0, 101, 101, 100},
		// The shortcut skips the u_int product 100·cpticks, which would wrap here:
		// 100·50,000,000 mod 2³² = 705,032,704, /100 = 7,050,327; the kernel adds 50,000,000.
		{"100 Hz shortcut does not wrap", 0, 50_000_000, 100, 50_000_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.DecayPctCPU(tc.pct, tc.cpticks, tc.realstathz); got != tc.want {
				t.Errorf("DecayPctCPU(%d, %d, %d) = %d, want %d", tc.pct, tc.cpticks, tc.realstathz, got, tc.want)
			}
		})
	}
}

// TestDecayPctCPUSteadyState: a thread that runs all the time settles just under FSCALE (100%):
// the truncations stop it at 2028 (99.0%).
func TestDecayPctCPUSteadyState(t *testing.T) {
	var pct bsd4.Fixpt
	for range 300 {
		pct = bsd4.DecayPctCPU(pct, 127, 127)
	}
	if pct != 2028 {
		t.Errorf("%%CPU of a hog after 300 s = %d, want 2028", pct)
	}
}

func TestSchedCPU(t *testing.T) {
	tests := []struct {
		name       string
		in         bsd4.Usage
		awake      bool
		loadav     bsd4.Fixpt
		want       bsd4.Usage
		wantReprio bool
	}{
		{
			"running thread decays",
			bsd4.Usage{EstCPU: 300, PctCPU: 0, CPTicks: 127},
			true, 2048,
			bsd4.Usage{EstCPU: 200, PctCPU: 100},
			true,
		},
		{
			"first second asleep still decays",
			bsd4.Usage{EstCPU: 300, SlpTime: 0},
			false, 2048,
			bsd4.Usage{EstCPU: 200, SlpTime: 1},
			true,
		},
		{
			"second second asleep stops",
			bsd4.Usage{EstCPU: 200, PctCPU: 2048, SlpTime: 1},
			false, 2048,
			bsd4.Usage{EstCPU: 200, PctCPU: 1948, SlpTime: 2},
			false,
		},
		{
			// One second asleep is not a long sleep: schedcpu calls updatepri only for
			// ts_slptime > 1, so only this second's decay applies: 300·4096/6144 = 200.
			"awake after one second asleep does not catch up",
			bsd4.Usage{EstCPU: 300, SlpTime: 1},
			true, 2048,
			bsd4.Usage{EstCPU: 200},
			true,
		},
		{
			// updatepri(300, 5) = 88, then this second's decay: 88·4096/6144 = 58.
			"awake after a long sleep catches up",
			bsd4.Usage{EstCPU: 300, SlpTime: 5},
			true, 2048,
			bsd4.Usage{EstCPU: 58},
			true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reprio := bsd4.SchedCPU(tc.in, tc.awake, tc.loadav, 127)
			if got != tc.want || reprio != tc.wantReprio {
				t.Errorf("SchedCPU(%+v, %t, %d, 127) = %+v, %t, want %+v, %t", tc.in, tc.awake, tc.loadav, got, reprio, tc.want, tc.wantReprio)
			}
		})
	}
}
