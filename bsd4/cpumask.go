// This file implements cpuMask, the per-CPU flag kept as one bit per CPU.

package bsd4

import "github.com/schedkit/schedkit/topology"

// A cpuMask is a set of CPUs whose tests and updates inline: topology.CPUSet's Add and Remove
// check their argument and do not inline, which made a flag set on every reschedule cost a call.
// The CPUs given are those of the machine (checked by the Scheduler's entry points), so the
// word index is only masked into range.
type cpuMask [topology.MaxCPUs / 64]uint64

func (m *cpuMask) has(c topology.CPU) bool {
	return m[(c>>6)&(topology.MaxCPUs/64-1)]>>(c&63)&1 != 0
}

func (m *cpuMask) add(c topology.CPU) { m[(c>>6)&(topology.MaxCPUs/64-1)] |= 1 << (c & 63) }

func (m *cpuMask) remove(c topology.CPU) { m[(c>>6)&(topology.MaxCPUs/64-1)] &^= 1 << (c & 63) }

// or adds the CPUs of o to m, looking at the first words words of each: the words that can hold
// a CPU of the machine, (NumIDs+63)/64. The complexity is O(words).
func (m *cpuMask) or(o *cpuMask, words int) {
	mw := m[:words]
	ow := o[:len(mw)]
	for i := range mw {
		mw[i] |= ow[i]
	}
}

// empty reports whether m has no CPU in its first words words. The complexity is O(words).
func (m *cpuMask) empty(words int) bool {
	for i := range words {
		if m[i] != 0 {
			return false
		}
	}
	return true
}
