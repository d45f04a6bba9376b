package bsd4

import "fmt"

// This file implements FreeBSD's fixed-point numbers (sys/param.h) and the two macros that
// turn the load average into a decay factor (sched_4bsd.c).

// Fixpt is the kernel's fixpt_t: an unsigned 32-bit fixed-point number with FShift fraction
// bits, so FScale is 1.0. Load averages (struct loadavg) and %CPU (ts_pctcpu) are Fixpt.
// Arithmetic on it wraps modulo 2³² exactly as u_int arithmetic does in C.
type Fixpt uint32

const (
	// FShift is FSHIFT, the number of fraction bits of a Fixpt (sys/param.h).
	FShift = 11
	// FScale is FSCALE, 1.0 as a Fixpt: 2048.
	FScale Fixpt = 1 << FShift
)

// String formats f as a decimal with two places, the way uptime(1) prints a load average:
// 2048 is "1.00". The digits are those of f/FScale rounded to the nearest hundredth.
func (f Fixpt) String() string {
	whole := uint64(f) >> FShift
	hundredths := ((uint64(f)&uint64(FScale-1))*100 + uint64(FScale)/2) >> FShift
	if hundredths == 100 {
		whole, hundredths = whole+1, 0
	}
	return fmt.Sprintf("%d.%02d", whole, hundredths)
}

// LoadFactor returns loadfactor(loadav) = 2·loadav (sched_4bsd.c), the "b" of the kernel's
// comment on digital decay: estcpu is multiplied by b/(b+1) once a second, which forgets 90% of
// it in about 5·loadav seconds. The product is a u_int in the kernel and wraps the same way here
// (beyond a load average of about a million).
func LoadFactor(loadav Fixpt) Fixpt { return 2 * loadav }

// DecayCPU returns decay_cpu(loadfac, estcpu) = (loadfac·estcpu)/(loadfac+FScale)
// (sched_4bsd.c): estcpu scaled by b/(b+1) with b = loadfac/FScale. All operands are u_int in
// the kernel, so the product wraps modulo 2³² before the division: on a machine with many CPUs
// (large estcpu, see [InverseEstcpuWeight]) and a high load the result collapses. DecayCPU
// panics with an integer division by zero when loadfac+FScale wraps to zero, as the kernel
// would trap.
func DecayCPU(loadfac Fixpt, estcpu uint32) uint32 {
	return uint32(loadfac) * estcpu / (uint32(loadfac) + uint32(FScale))
}
