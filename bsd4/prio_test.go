package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/sched"
)

// Expected values follow resetpriority in sched_4bsd.c @e2650af1: PUSER + estcpu/IEW +
// (nice + 20), clamped to the time-sharing range of sys/priority.h.

func TestResetPriority(t *testing.T) {
	main, legacy, old := bsd4.LayoutMain(), bsd4.LayoutLegacy(), bsd4.Layout2011()
	tests := []struct {
		name   string
		estcpu uint32
		nice   int
		iew    uint32
		l      bsd4.Layout
		want   uint8
	}{
		{"fresh nice 0", 0, 0, 8, main, 76},
		{"UP hog at the cap", 319, 0, 8, main, 115},
		{"UP nice 20 hog at the cap", 319, 20, 8, main, 135},
		{"nice -20 fresh", 0, -20, 8, main, 56},
		{"2 CPUs halve the cost", 319, 0, 16, main, 95},
		{"8 CPUs: estcpu 240 costs 3 levels", 240, 0, 64, main, 79},
		{"UP: estcpu 240 costs 30 levels", 240, 0, 8, main, 106},
		{"legacy cap nice 20", 295, 20, 8, legacy, 164},
		{"FreeBSD 9 cap nice 20", 295, 20, 8, old, 196},
		{"clamped to PRI_MAX_TIMESHARE", 10000, 0, 8, main, 223},
		// (u_int)(−1) makes the u_int sum 56 + 0 + 0xFFFFFFFF wrap to 55, which clamps to 56.
		{"nice below PRIO_MIN wraps the sum", 0, -21, 8, main, 56},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.ResetPriority(tc.estcpu, tc.nice, tc.iew, tc.l); got != tc.want {
				t.Errorf("ResetPriority(%d, %d, %d, %+v) = %d, want %d", tc.estcpu, tc.nice, tc.iew, tc.l, got, tc.want)
			}
		})
	}
}

// TestResetPriorityRange checks, over every estcpu up to the cap, every nice value and several
// machine sizes, that a priority stays in PUSER..PUSER+79 and never improves with more estcpu.
func TestResetPriorityRange(t *testing.T) {
	l := bsd4.LayoutMain()
	for _, ncpu := range []int{1, 2, 3, 8, 64} {
		iew := bsd4.InverseEstcpuWeight(ncpu)
		limit := bsd4.ESTCPULim(^uint32(0), iew, 1)
		for nice := bsd4.PrioMin; nice <= bsd4.PrioMax; nice++ {
			prev := uint8(0)
			for e := uint32(0); e <= limit; e++ {
				got := bsd4.ResetPriority(e, nice, iew, l)
				if got < l.MinTimeshare || got > l.MinTimeshare+79 || got < prev {
					t.Fatalf("ResetPriority(%d, %d, %d) = %d, want in %d..%d and ≥ %d", e, nice, iew, got, l.MinTimeshare, l.MinTimeshare+79, prev)
				}
				prev = got
			}
		}
	}
}

func TestClassPriority(t *testing.T) {
	main, old := bsd4.LayoutMain(), bsd4.Layout2011()
	tests := []struct {
		name   string
		class  sched.Class
		rtprio int
		scale  sched.RTScale
		l      bsd4.Layout
		want   uint8
		ok     bool
	}{
		// rtprio(2) levels: rtp_to_pri, PRI_MIN_REALTIME + level (sys/kern/kern_resource.c).
		{"rtprio 0 is the best", sched.FIFO, 0, sched.RTFreeBSD, main, 8, true},
		{"rtprio 31 is the worst", sched.FIFO, 31, sched.RTFreeBSD, main, 39, true},
		{"rtprio 5 RR", sched.RR, 5, sched.RTFreeBSD, main, 13, true},
		{"rtprio 0 in the 2011 layout", sched.FIFO, 0, sched.RTFreeBSD, old, 48, true},
		{"rtprio 31 in the 2011 layout", sched.RR, 31, sched.RTFreeBSD, old, 79, true},
		// Other scales (refused by CheckAttr) read as a POSIX priority q: 31 - q.
		{"POSIX top", sched.FIFO, 31, sched.RTLinux, main, 8, true},
		{"RR clamps Linux range", sched.RR, 99, sched.RTLinux, main, 8, true},
		{"RR 1", sched.RR, 1, sched.RTLinux, main, 38, true},
		{"idle", sched.Idle, 0, sched.RTLinux, main, 224, true},
		{"normal is computed", sched.Normal, 0, sched.RTFreeBSD, main, 0, false},
		{"batch is computed", sched.Batch, 0, sched.RTLinux, main, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := bsd4.ClassPriority(tc.class, tc.rtprio, tc.scale, tc.l)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ClassPriority(%v, %d) = %d, %t, want %d, %t", tc.class, tc.rtprio, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestParamsValidate(t *testing.T) {
	for _, p := range []bsd4.Params{bsd4.DefaultParams(), bsd4.FreeBSD9Params(), bsd4.FreeBSD14Params()} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s.Validate() = %v, want nil", p.Name, err)
		}
	}
	bad := []struct {
		name string
		edit func(*bsd4.Params)
	}{
		{"quantum mode", func(p *bsd4.Params) { p.Quantum = 7 }},
		{"negative slice", func(p *bsd4.Params) { p.Slice = -1 }},
		{"negative sched_quantum", func(p *bsd4.Params) { p.SchedQuantum = -1 }},
		{"fold 2", func(p *bsd4.Params) { p.Fold = 2 }},
		{"full without preemption", func(p *bsd4.Params) { p.Preemption, p.FullPreemption = false, true }},
		{"IPI without preemption", func(p *bsd4.Params) { p.Preemption, p.IPIPreemption = false, true }},
		{"layout order", func(p *bsd4.Params) { p.Layout.MinTimeshare = 30 }},
	}
	for _, tc := range bad {
		p := bsd4.DefaultParams()
		tc.edit(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("Validate() with bad %s = nil, want an error", tc.name)
		}
	}
}
