// This file implements CPUSet, the fixed-size CPU bitmap.

package topology

import (
	"iter"
	"math/bits"
)

// SetWords is the number of 64-bit words of a CPUSet's bitmap: CPU c is bit c%64 of word c/64.
const SetWords = MaxCPUs / 64

// A CPUSet is a set of CPUs, a fixed-size bitmap of [MaxCPUs] bits: bit c of
// word c/64 is set exactly when CPU c is a member. It is a value type like
// FreeBSD's cpuset_t and Linux's struct cpumask: copying it copies the set
// (136 bytes), == compares two sets, and the zero value is the empty set.
//
// Beside the bitmap a CPUSet keeps a summary, one bit per word, set exactly
// when the word holds a member, as the run queue's status map summarises its
// queues. The queries and the loops over members skip the empty words with
// it, so that a set of a machine of up to 64 CPUs costs what one word costs:
// IsEmpty is one compare, First one count of trailing zeros, and merging one
// set into another touches only the words that hold a member.
//
// The queries a policy calls on hot paths (Has, Count, IsEmpty, First, Last,
// After, Before) take a pointer receiver, as golang.org/x/sys/unix.CPUSet's
// methods do: with a value receiver every call copied the set, even when
// inlined, which made a 1024-CPU search several times slower. Call them on a
// variable (x := g.CPUs(); x.Has(c)) or use [Group.Has] and [Topology.Has].
// The set-algebra methods, String and the iterators take the set by value;
// [CPUSet.Add], [CPUSet.Remove] and [CPUSet.AddSet] modify it in place. A
// CPUSet is not safe for concurrent modification.
type CPUSet struct {
	w  [SetWords]uint64
	nz uint16 // bit i is set exactly when w[i] != 0
}

// The summary has a bit per word.
const _ uint16 = 1<<SetWords - 1

// Word returns word i of s's bitmap: bit j is set exactly when CPU 64*i+j is a member. Loops
// that combine sets or visit members a word at a time (the kernels' bitmap_and and
// for_each_cpu_and) read them with it, and may stop at the last word that can hold a CPU of the
// machine ([Topology.NumIDs]) instead of at SetWords. It panics if i is not below SetWords.
func (s *CPUSet) Word(i int) uint64 {
	if uint(i) >= SetWords {
		panic("topology: CPUSet.Word of a word index outside 0..SetWords-1")
	}
	return s.w[i]
}

// CPUSetOf returns the set holding the given CPUs. It panics if a CPU is not
// below [MaxCPUs].
func CPUSetOf(cpus ...CPU) CPUSet {
	var s CPUSet
	for _, c := range cpus {
		s.Add(c)
	}
	return s
}

// CPURange returns the set of CPUs lo through hi, both bounds included; it is
// empty when lo > hi. It panics if hi is not below [MaxCPUs].
// The complexity is O(MaxCPUs/64).
func CPURange(lo, hi CPU) CPUSet {
	var s CPUSet
	if lo > hi {
		return s
	}
	if hi >= MaxCPUs {
		panic("topology: CPURange: " + hi.String() + " out of range")
	}
	for i := range SetWords {
		wlo, whi := uint(i)*64, uint(i)*64+63
		if whi < uint(lo) || wlo > uint(hi) {
			continue
		}
		m := ^uint64(0)
		if uint(lo) > wlo {
			m &= ^uint64(0) << (uint(lo) - wlo)
		}
		if uint(hi) < whi {
			m &= ^uint64(0) >> (whi - uint(hi))
		}
		s.w[i] = m
		s.nz |= 1 << i
	}
	return s
}

// Add adds c to s. It panics if c is not below [MaxCPUs].
// The complexity is O(1); Add inlines into its caller.
func (s *CPUSet) Add(c CPU) {
	if c >= MaxCPUs {
		panic(cpuRangeError{"Add", c})
	}
	s.w[c>>6] |= 1 << (c & 63)
	s.nz |= 1 << (c >> 6)
}

// Remove removes c from s; removing a CPU that is not a member does nothing.
// It panics if c is not below [MaxCPUs]. The complexity is O(1); Remove
// inlines into its caller.
func (s *CPUSet) Remove(c CPU) {
	if c >= MaxCPUs {
		panic(cpuRangeError{"Remove", c})
	}
	i := c >> 6
	w := s.w[i] &^ (1 << (c & 63))
	s.w[i] = w
	if w == 0 {
		s.nz &^= 1 << i
	}
}

// AddSet adds every CPU of t to s, in place (FreeBSD CPU_OR(s, s, t), Linux
// cpumask_or(s, s, t)): the same as s = s.Union(*t) without copying either
// set, for loops that merge a set into another on a hot path. The complexity
// is O(words of t that hold a member).
func (s *CPUSet) AddSet(t *CPUSet) {
	for m := t.nz; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		s.w[i] |= t.w[i]
	}
	s.nz |= t.nz
}

// A cpuRangeError is the panic of Add and Remove for a CPU at or above
// MaxCPUs. It is a value formatted only when printed, so that the two methods
// stay small enough to inline: building the message in place made every Add a
// call.
type cpuRangeError struct {
	op string
	c  CPU
}

// Error returns "topology: CPUSet.Add: cpu1024 out of range".
func (e cpuRangeError) Error() string {
	return "topology: CPUSet." + e.op + ": " + e.c.String() + " out of range"
}

// Has reports whether c is a member of s; it is false for every c at or above
// [MaxCPUs]. The complexity is O(1).
func (s *CPUSet) Has(c CPU) bool {
	return c < MaxCPUs && s.w[c>>6]&(1<<(c&63)) != 0
}

// Count returns the number of CPUs in s (Linux cpumask_weight, FreeBSD
// CPU_COUNT). The complexity is O(words that hold a member).
func (s *CPUSet) Count() int {
	n := 0
	for m := s.nz; m != 0; m &= m - 1 {
		n += bits.OnesCount64(s.w[bits.TrailingZeros16(m)])
	}
	return n
}

// IsEmpty reports whether s has no members. The complexity is O(1).
func (s *CPUSet) IsEmpty() bool { return s.nz == 0 }

// First returns the lowest CPU of s (Linux cpumask_first, FreeBSD CPU_FFS
// minus one), or false if s is empty. The complexity is O(1).
func (s *CPUSet) First() (CPU, bool) {
	if s.nz == 0 {
		return 0, false
	}
	i := bits.TrailingZeros16(s.nz)
	return CPU(i*64 + bits.TrailingZeros64(s.w[i])), true
}

// Last returns the highest CPU of s (FreeBSD CPU_FLS minus one), or false if
// s is empty. The complexity is O(1).
func (s *CPUSet) Last() (CPU, bool) {
	if s.nz == 0 {
		return 0, false
	}
	i := 15 - bits.LeadingZeros16(s.nz)
	return CPU(i*64 + 63 - bits.LeadingZeros64(s.w[i])), true
}

// After returns the lowest CPU of s strictly greater than c (Linux
// cpumask_next), or false if there is none. The loop
//
//	for c, ok := s.First(); ok; c, ok = s.After(c) { … }
//
// visits s in ascending order. The complexity is O(1).
func (s *CPUSet) After(c CPU) (CPU, bool) {
	n := uint(c) + 1
	i := n >> 6
	if i >= SetWords {
		return 0, false
	}
	w := s.w[i] & (^uint64(0) << (n & 63))
	if w == 0 {
		// The first word after i that holds a member; none if the shifted summary is 0,
		// when TrailingZeros16 gives 16.
		i = uint(bits.TrailingZeros16(s.nz &^ (1<<(i+1) - 1)))
		if i >= SetWords {
			return 0, false
		}
		w = s.w[i]
	}
	return CPU(i*64 + uint(bits.TrailingZeros64(w))), true
}

// Before returns the highest CPU of s strictly less than c, or false if there
// is none. With [CPUSet.Last] it visits s in descending order, the order of
// ULE's CPU searches. The complexity is O(1).
func (s *CPUSet) Before(c CPU) (CPU, bool) {
	if c == 0 {
		return 0, false
	}
	n := uint(c) - 1
	if n >= MaxCPUs {
		n = MaxCPUs - 1
	}
	i := n >> 6
	w := s.w[i] & (^uint64(0) >> (63 - n&63))
	if w == 0 {
		rest := s.nz & (1<<i - 1) // the words before i that hold a member
		if rest == 0 {
			return 0, false
		}
		i = uint(15 - bits.LeadingZeros16(rest))
		w = s.w[i]
	}
	return CPU(i*64 + 63 - uint(bits.LeadingZeros64(w))), true
}

// All returns an iterator over the CPUs of s in ascending order (Linux
// for_each_cpu, FreeBSD CPU_FOREACH_ISSET). The set is copied when All is
// called, so changing s during the loop does not change what is visited.
func (s CPUSet) All() iter.Seq[CPU] {
	return func(yield func(CPU) bool) {
		for m := s.nz; m != 0; m &= m - 1 {
			i := bits.TrailingZeros16(m)
			for w := s.w[i]; w != 0; w &= w - 1 {
				if !yield(CPU(i*64 + bits.TrailingZeros64(w))) {
					return
				}
			}
		}
	}
}

// Backward returns an iterator over the CPUs of s in descending order. The
// set is copied when Backward is called.
func (s CPUSet) Backward() iter.Seq[CPU] {
	return func(yield func(CPU) bool) {
		for m := s.nz; m != 0; {
			i := 15 - bits.LeadingZeros16(m)
			m &^= 1 << i
			w := s.w[i]
			for w != 0 {
				b := 63 - bits.LeadingZeros64(w)
				if !yield(CPU(i*64 + b)) {
					return
				}
				w &^= 1 << uint(b)
			}
		}
	}
}

// Union returns the CPUs in s or t (Linux cpumask_or, FreeBSD CPU_OR).
// The complexity is O(words of t that hold a member).
func (s CPUSet) Union(t CPUSet) CPUSet {
	s.AddSet(&t)
	return s
}

// Intersect returns the CPUs in both s and t (Linux cpumask_and, FreeBSD
// CPU_AND). The complexity is O(words of s that hold a member).
func (s CPUSet) Intersect(t CPUSet) CPUSet {
	for m := s.nz; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		if s.w[i] &= t.w[i]; s.w[i] == 0 {
			s.nz &^= 1 << i
		}
	}
	return s
}

// Difference returns the CPUs in s but not in t (Linux cpumask_andnot,
// FreeBSD CPU_ANDNOT). The complexity is O(MaxCPUs/64).
func (s CPUSet) Difference(t CPUSet) CPUSet {
	for m := s.nz & t.nz; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		if s.w[i] &^= t.w[i]; s.w[i] == 0 {
			s.nz &^= 1 << i
		}
	}
	return s
}

// Overlaps reports whether s and t have a CPU in common (Linux
// cpumask_intersects, FreeBSD CPU_OVERLAP). The complexity is O(MaxCPUs/64).
func (s CPUSet) Overlaps(t CPUSet) bool {
	for m := s.nz & t.nz; m != 0; m &= m - 1 {
		if i := bits.TrailingZeros16(m); s.w[i]&t.w[i] != 0 {
			return true
		}
	}
	return false
}

// WordsFull reports whether every bit of words lo..hi-1 of s is set: s holds the CPUs
// 64*lo..64*hi-1 (true when lo == hi). It panics unless 0 <= lo <= hi <= SetWords. Searches
// that accept a group's CPUs only if a mask holds them all test a group of whole words with it:
// the words are combined four at a time, without a comparison each. The complexity is O(hi-lo).
func (s *CPUSet) WordsFull(lo, hi int) bool {
	if lo < 0 || lo > hi || hi > SetWords {
		panic("topology: CPUSet.WordsFull of words outside 0..SetWords")
	}
	w, a := s.w[lo:hi], ^uint64(0)
	for ; len(w) >= 4; w = w[4:] {
		a &= w[0] & w[1] & w[2] & w[3]
	}
	for _, v := range w {
		a &= v
	}
	return a == ^uint64(0)
}

// SubsetOf reports whether every CPU of s is in t (Linux cpumask_subset,
// FreeBSD CPU_SUBSET with the arguments swapped). The complexity is
// O(MaxCPUs/64).
func (s CPUSet) SubsetOf(t CPUSet) bool {
	if s.nz&^t.nz != 0 {
		return false
	}
	for m := s.nz; m != 0; m &= m - 1 {
		if i := bits.TrailingZeros16(m); s.w[i]&^t.w[i] != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether s and t have the same members; it is the same as
// s == t. The complexity is O(MaxCPUs/64).
func (s CPUSet) Equal(t CPUSet) bool {
	return s == t
}
