// This file implements sched_random, the per-CPU linear congruential generator ULE breaks ties
// with.

package ule

import "github.com/schedkit/schedkit/topology"

// A Rand is ULE's per-CPU random source, sched_random: the linear congruential generator
// x = x*69069 + 5 modulo 2^32, returning the upper 16 bits. FreeBSD seeds CPU i with
// i*69069 + 5 (sched_setup_smp) and each CPU draws from its own state; the searches use it to
// break ties between equally loaded CPUs and the balancer to jitter its period.
//
// The zero Rand is a valid generator. A Rand is not safe for concurrent use.
type Rand struct {
	x uint32
}

// NewRand returns the generator of cpu. With seed 0 it starts where FreeBSD's does, at
// cpu*69069 + 5; another seed is mixed into the start so that runs with different seeds
// differ while staying reproducible.
func NewRand(cpu topology.CPU, seed uint64) Rand {
	x := uint32(cpu)*69069 + 5
	if seed != 0 {
		// splitmix64 finalizer: spreads every bit of seed over the 32-bit state.
		z := seed + 0x9e3779b97f4a7c15
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		x += uint32(z) ^ uint32(z>>32)
	}
	return Rand{x: x}
}

// Next advances the generator and returns its upper 16 bits, 0..65535: sched_random(). The
// complexity is O(1).
func (r *Rand) Next() uint32 {
	r.x = r.x*69069 + 5
	return r.x >> 16
}

// State returns the generator's 32-bit state (DPCPU randomval).
func (r *Rand) State() uint32 { return r.x }
