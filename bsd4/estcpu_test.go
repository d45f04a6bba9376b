package bsd4_test

import (
	"math"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
)

// Expected values are worked out from sched_4bsd.c @e2650af1 (ESTCPULIM, sched_clock_tick,
// updatepri) with INVERSE_ESTCPU_WEIGHT = 8·smp_cpus.

func TestInverseEstcpuWeight(t *testing.T) {
	for _, tc := range []struct{ ncpu, want int }{{1, 8}, {2, 16}, {8, 64}, {64, 512}, {1024, 8192}} {
		if got := bsd4.InverseEstcpuWeight(tc.ncpu); got != uint32(tc.want) {
			t.Errorf("InverseEstcpuWeight(%d) = %d, want %d", tc.ncpu, got, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("InverseEstcpuWeight(0) did not panic")
		}
	}()
	bsd4.InverseEstcpuWeight(0)
}

func TestESTCPULim(t *testing.T) {
	tests := []struct {
		name string
		e    uint32
		iew  uint32
		fold runq.Fold
		want uint32
	}{
		// IEW·(40 − RQ_PPQ) + IEW − 1.
		{"UP main below", 100, 8, runq.NoFold, 100},
		{"UP main at limit", 319, 8, runq.NoFold, 319},
		{"UP main above", 320, 8, runq.NoFold, 319},
		{"UP main max u_int", math.MaxUint32, 8, runq.NoFold, 319},
		// 8·36 + 7 = 295: the "This was 295" of bde's commit message.
		{"UP legacy", 1000, 8, runq.LegacyFold, 295},
		// 16·36 + 15 = 591, "approximately 295 * smp_ncpu" for 2 CPUs.
		{"2 CPUs legacy", 1000, 16, runq.LegacyFold, 591},
		{"2 CPUs main", 1000, 16, runq.NoFold, 639},
		{"64 CPUs main", 1 << 20, 512, runq.NoFold, 20479},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.ESTCPULim(tc.e, tc.iew, tc.fold); got != tc.want {
				t.Errorf("ESTCPULim(%d, %d, %d) = %d, want %d", tc.e, tc.iew, tc.fold, got, tc.want)
			}
		})
	}
}

func TestEstCPUTick(t *testing.T) {
	tests := []struct {
		name       string
		e, iew     uint32
		fold       runq.Fold
		want       uint32
		wantReprio bool
	}{
		{"crosses a level", 7, 8, runq.NoFold, 8, true},
		{"inside a level", 8, 8, runq.NoFold, 9, false},
		{"from zero", 0, 8, runq.NoFold, 1, false},
		{"reaches the limit", 318, 8, runq.NoFold, 319, false},
		{"stuck at the limit", 319, 8, runq.NoFold, 319, false},
		{"legacy limit", 295, 8, runq.LegacyFold, 295, false},
		{"2 CPUs level", 15, 16, runq.NoFold, 16, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reprio := bsd4.EstCPUTick(tc.e, tc.iew, tc.fold)
			if got != tc.want || reprio != tc.wantReprio {
				t.Errorf("EstCPUTick(%d, %d, %d) = %d, %t, want %d, %t", tc.e, tc.iew, tc.fold, got, reprio, tc.want, tc.wantReprio)
			}
		})
	}
}

func TestUpdatePri(t *testing.T) {
	tests := []struct {
		name    string
		estcpu  uint32
		slptime int32
		loadav  bsd4.Fixpt
		want    uint32
	}{
		// load 0: loadfac 0, 5·0 = 0 < slptime: reset.
		{"idle machine resets", 300, 2, 0, 0},
		// load 1: loadfac 4096; slptime 2 → 0 decays.
		{"two seconds, no decay", 300, 2, 2048, 300},
		// slptime 3 → 1 decay: 300 → 200.
		{"three seconds", 300, 3, 2048, 200},
		// slptime 5 → 3 decays: 300 → 200 → 133 → 88.
		{"five seconds", 300, 5, 2048, 88},
		{"stops at zero", 1, 10, 2048, 0},
		// 5·loadfac = 20480: slptime 20480 is not greater, 20478 decays reach 0.
		{"boundary decays", 300, 20480, 2048, 0},
		{"boundary resets", 300, 20481, 2048, 0},
		// load 2: loadfac 8192, 3 decays of 4/5: 255 → 204 → 163 → 130.
		{"load 2", 255, 5, 4096, 130},
		// updatepri (freebsd/freebsd-src sys/kern/sched_4bsd.c @e2650af1) compares
		// ts_slptime > 5 * loadfac in u_int, so 5·loadfac wraps. loadav 429,496,730 gives
		// loadfac 858,993,460 and 5·loadfac = 4,294,967,300 mod 2³² = 4, while 6·loadfac
		// mod 2³² = 858,993,464. With b = loadfac/FSCALE that large, each decay_cpu takes
		// one off a small estcpu: (858,993,460·4) / 858,995,508 = 3.
		// slptime 4 is not > 4: 2 decays, 4 → 3 → 2.
		{"wrapped 5·loadfac, slptime equal", 4, 4, 429_496_730, 2},
		// slptime 5 > 4: reset, although 5 is far below the unwrapped product.
		{"wrapped 5·loadfac, slptime above", 4, 5, 429_496_730, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.UpdatePri(tc.estcpu, tc.slptime, tc.loadav); got != tc.want {
				t.Errorf("UpdatePri(%d, %d, %d) = %d, want %d", tc.estcpu, tc.slptime, tc.loadav, got, tc.want)
			}
		})
	}
}

// TestUpdatePriMatchesRepeatedDecay checks updatepri against its definition: slptime−2 decays
// at the same load, for every short sleep and a spread of loads.
func TestUpdatePriMatchesRepeatedDecay(t *testing.T) {
	for _, loadav := range []bsd4.Fixpt{512, 2048, 3000, 8192} {
		lf := bsd4.LoadFactor(loadav)
		for slp := int32(2); slp < 40; slp++ {
			for _, e := range []uint32{0, 1, 7, 100, 319, 639} {
				want := e
				for range slp - 2 {
					want = bsd4.DecayCPU(lf, want)
				}
				if got := bsd4.UpdatePri(e, slp, loadav); got != want {
					t.Fatalf("UpdatePri(%d, %d, %d) = %d, want %d", e, slp, loadav, got, want)
				}
			}
		}
	}
}

// TestArithmeticPanics checks that the estcpu and priority arithmetic rejects the zero
// INVERSE_ESTCPU_WEIGHT and zero RQ_PPQ the kernel never has, with a message starting "bsd4: ",
// instead of dividing by zero or returning an unbounded ceiling.
func TestArithmeticPanics(t *testing.T) {
	l := bsd4.DefaultParams().Layout
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"ESTCPULim(5000, 0, NoFold)", func() { bsd4.ESTCPULim(5000, 0, runq.NoFold) }, "bsd4: ESTCPULim with a zero inverse estcpu weight"},
		{"ESTCPULim(5000, 8, 0)", func() { bsd4.ESTCPULim(5000, 8, 0) }, "bsd4: ESTCPULim with a zero fold"},
		{"EstCPUTick(10, 0, NoFold)", func() { bsd4.EstCPUTick(10, 0, runq.NoFold) }, "bsd4: ESTCPULim with a zero inverse estcpu weight"},
		{"EstCPUTick(10, 8, 0)", func() { bsd4.EstCPUTick(10, 8, 0) }, "bsd4: ESTCPULim with a zero fold"},
		{"ResetPriority(10, 0, 0, l)", func() { bsd4.ResetPriority(10, 0, 0, l) }, "bsd4: ResetPriority with a zero inverse estcpu weight"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatalf("%s did not panic, want %q", tc.name, tc.want)
				}
				if msg, _ := r.(string); msg != tc.want {
					t.Errorf("%s panicked with %v, want %q", tc.name, r, tc.want)
				}
			}()
			tc.f()
		})
	}
}
