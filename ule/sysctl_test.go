package ule

// This file derives, for the table tests of sched_initticks' values (TestParamsDerived), the
// two sysctls the model reads nowhere: kern.sched.ule.quantum and sched_idlespinthresh.

// QuantumMicros returns kern.sched.ule.quantum, the slice in microseconds:
// (1000000/realstathz) * sched_slice (7874*12 = 94,488 at stathz 127). Setting the sysctl is
// setting Slice to max(1, (quantum + period/2) / period) with period = 1000000/realstathz.
func (p *Params) QuantumMicros() int { return 1_000_000 / p.RealStatHz() * p.SliceTicks() }

// IdleSpinThreshold returns sched_idlespinthresh: IdleSpinThresh, or
// 2*max(10000, 6*hz)/realstathz.
func (p *Params) IdleSpinThreshold() int {
	if p.IdleSpinThresh >= 0 {
		return p.IdleSpinThresh
	}
	return 2 * max(10000, 6*p.Hz) / p.RealStatHz()
}
