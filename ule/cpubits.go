// This file implements cpuBits, the CPU mask the searches test membership in.

package ule

import "github.com/schedkit/schedkit/topology"

// cpuBits is a CPU mask the searches can test without copying: topology.CPUSet.Has has a value
// receiver, and calling it through a pointer copies the whole 128-byte set at every test, which
// made a search over a thousand CPUs several times slower.
type cpuBits [topology.MaxCPUs / 64]uint64

// bitsOf returns the mask of the CPUs of s. The complexity is O(members of s).
func bitsOf(s *topology.CPUSet) cpuBits {
	var b cpuBits
	for c := range s.All() {
		b[c>>6] |= 1 << (c & 63)
	}
	return b
}

func (b *cpuBits) has(c topology.CPU) bool { return b[(c>>6)&(topology.MaxCPUs/64-1)]>>(c&63)&1 != 0 }

func (b *cpuBits) remove(c topology.CPU) { b[(c>>6)&(topology.MaxCPUs/64-1)] &^= 1 << (c & 63) }

func (b *cpuBits) empty() bool {
	var or uint64
	for _, w := range b {
		or |= w
	}
	return or == 0
}

// affinityBits returns t's affinity as a cpuBits, rebuilding its cache when Affinity changed.
// Building costs O(members); a thread allowed on the whole machine (the common case, and every
// new thread's) takes s's precomputed mask instead (the pointer &s.all, which tells the searches
// that every CPU is in the mask), which keeps a thread's start-up cost from growing with the
// number of CPUs. The caller must not modify the mask.
func (s *System) affinityBits(t *Thread) *cpuBits {
	if !t.affValid || t.affSrc != t.Affinity {
		t.affAll = t.Affinity == s.allSet
		if !t.affAll {
			t.affBits = bitsOf(&t.Affinity)
		}
		t.affSrc, t.affValid = t.Affinity, true
	}
	if t.affAll {
		return &s.all
	}
	return &t.affBits
}
