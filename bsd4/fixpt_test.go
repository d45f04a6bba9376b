package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
)

// Expected values in this file are worked out from sched_4bsd.c (freebsd/freebsd-src
// @e2650af157bc7489deaf2c9054995f0f88a6e5da): loadfactor(la) = 2·la and
// decay_cpu(lf, cpu) = (lf·cpu)/(lf + FSCALE), all u_int.

func TestLoadFactor(t *testing.T) {
	tests := []struct {
		name   string
		loadav bsd4.Fixpt
		want   bsd4.Fixpt
	}{
		{"zero", 0, 0},
		{"load 1.0", 2048, 4096},
		{"load 0.5", 1024, 2048},
		{"wraps at 2^31", 0x8000_0000, 0},
		{"wraps past 2^31", 0x8000_0001, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.LoadFactor(tc.loadav); got != tc.want {
				t.Errorf("LoadFactor(%d) = %d, want %d", tc.loadav, got, tc.want)
			}
		})
	}
}

func TestDecayCPU(t *testing.T) {
	tests := []struct {
		name    string
		loadfac bsd4.Fixpt
		estcpu  uint32
		want    uint32
	}{
		// 4096·300/6144 = 200: at load 1 one decay keeps 2/3.
		{"load 1", 4096, 300, 200},
		// 8192·255/10240 = 204: at load 2 one decay keeps 4/5.
		{"load 2", 8192, 255, 204},
		{"load 0 forgets everything", 0, 300, 0},
		{"floor to zero", 4096, 1, 0},
		{"zero stays zero", 4096, 0, 0},
		// 64 CPUs: IEW = 512 and ESTCPULIM = 20479; load 100: loadfac = 409600.
		// 409600·20479 = 8,388,198,400 wraps to 4,093,231,104; /411648 = 9943 (not 20376).
		{"u_int product wraps", 409600, 20479, 9943},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.DecayCPU(tc.loadfac, tc.estcpu); got != tc.want {
				t.Errorf("DecayCPU(%d, %d) = %d, want %d", tc.loadfac, tc.estcpu, got, tc.want)
			}
		})
	}
}

func TestDecayCPUDivideByZero(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("DecayCPU(0xFFFFF800, 1) did not panic; loadfac+FSCALE wraps to 0")
		}
	}()
	t.Errorf("DecayCPU(0xFFFFF800, 1) = %d", bsd4.DecayCPU(0xFFFF_F800, 1))
}

// TestDecayCPUNeverGrows checks, over every estcpu a 16-CPU machine can hold and a range of
// loads that do not wrap, that one decay never increases estcpu and decreases every non-zero
// value, which is what makes updatepri's loop terminate.
func TestDecayCPUNeverGrows(t *testing.T) {
	limit := bsd4.ESTCPULim(^uint32(0), bsd4.InverseEstcpuWeight(16), 1)
	for _, loadav := range []bsd4.Fixpt{0, 1, 1024, 2048, 4096, 20480, 204800} {
		lf := bsd4.LoadFactor(loadav)
		for e := uint32(0); e <= limit; e++ {
			got := bsd4.DecayCPU(lf, e)
			if got > e || (e > 0 && got == e) {
				t.Fatalf("DecayCPU(%d, %d) = %d, want less than %d", lf, e, got, e)
			}
		}
	}
}

func TestFixptString(t *testing.T) {
	tests := []struct {
		f    bsd4.Fixpt
		want string
	}{
		{0, "0.00"},
		{2048, "1.00"},
		{3072, "1.50"},
		{21, "0.01"},
		// 11/2048 = 0.0054: (11·100 + 1024) >> 11 = 1; the lowest fraction bit counts.
		{11, "0.01"},
		{10, "0.00"},
		{2047, "1.00"}, // 0.9995 rounds up and carries
		{2036, "0.99"},
		{204800, "100.00"},
	}
	for _, tc := range tests {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("Fixpt(%d).String() = %q, want %q", tc.f, got, tc.want)
		}
	}
}
