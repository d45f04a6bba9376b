package runq

import (
	"iter"
	"math/bits"
	"strconv"
	"strings"
)

// wordBits is the number of queues one status word covers: RQSW_BPW.
const wordBits = 64

// A Status is the 256-bit map of non-empty queues: rq_status.rq_sw in FreeBSD. Bit i%64 of
// word i/64 is set exactly when queue i holds at least one element. The zero value has every
// bit clear.
//
// Status is pure bit arithmetic and knows nothing of queues; a [Runq] keeps its own Status in
// step with its queues. Methods take a pointer receiver so that loops never copy the 32-byte
// array (see docs/performance.md §4: a copy right after a one-word store cannot be store-forwarded).
type Status [NumQueues / wordBits]uint64

// Set marks queue i non-empty. The complexity is O(1).
func (s *Status) Set(i Index) { s[i>>6] |= 1 << (i & 63) }

// Clear marks queue i empty. The complexity is O(1).
func (s *Status) Clear(i Index) { s[i>>6] &^= 1 << (i & 63) }

// Has reports whether queue i is marked non-empty. The complexity is O(1).
func (s *Status) Has(i Index) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// Empty reports whether every bit is clear. The complexity is O(NumQueues/64).
func (s *Status) Empty() bool {
	return s[0]|s[1]|s[2]|s[3] == 0
}

// Count returns the number of set bits. The complexity is O(NumQueues/64).
func (s *Status) Count() int {
	n := 0
	for w := range len(s) {
		n += bits.OnesCount64(s[w])
	}
	return n
}

// First returns the lowest set bit, or false if none is set. The complexity is O(NumQueues/64).
func (s *Status) First() (Index, bool) {
	for w := range len(s) {
		if x := s[w]; x != 0 {
			return Index(w*wordBits + bits.TrailingZeros64(x)), true
		}
	}
	return 0, false
}

// After returns the lowest set bit strictly greater than i, or false if there is none. After
// replaces the kernel's "search from i+1" loops, which cannot be written with a uint8 when i is
// 255. The complexity is O(NumQueues/64).
func (s *Status) After(i Index) (Index, bool) {
	if i == MaxIndex {
		return 0, false
	}
	return s.FirstIn(Range{Lo: i + 1, Hi: MaxIndex})
}

// FirstIn returns the lowest set bit in r, or false if r has none. It masks the first and last
// words exactly as runq_findq does. FirstIn panics if r is inverted. The complexity is
// O(r.Len()/64).
func (s *Status) FirstIn(r Range) (Index, bool) {
	r.mustBeValid("Status.FirstIn")
	lo, hi := int(r.Lo)/wordBits, int(r.Hi)/wordBits
	for w := lo; w <= hi; w++ {
		x := s[w]
		if w == lo {
			x &= ^uint64(0) << (r.Lo % wordBits)
		}
		if w == hi {
			x &= ^uint64(0) >> (wordBits - 1 - r.Hi%wordBits)
		}
		if x != 0 {
			return Index(w*wordBits + bits.TrailingZeros64(x)), true
		}
	}
	return 0, false
}

// All returns an iterator over the set bits in ascending order. Bits changed during the
// iteration may or may not be seen.
func (s *Status) All() iter.Seq[Index] {
	return func(yield func(Index) bool) {
		for w := range len(s) {
			for x := s[w]; x != 0; x &= x - 1 {
				if !yield(Index(w*wordBits + bits.TrailingZeros64(x))) {
					return
				}
			}
		}
	}
}

// String formats the set bits as a sorted list of indices and ranges in braces, for example
// "{0 7 56-58}"; the empty Status is "{}".
func (s *Status) String() string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	var lo, prev int = -2, -2
	flush := func() {
		if lo < 0 {
			return
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(strconv.Itoa(lo))
		if prev > lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(prev))
		}
	}
	for i := range s.All() {
		if int(i) != prev+1 {
			flush()
			lo = int(i)
		}
		prev = int(i)
	}
	flush()
	b.WriteByte('}')
	return b.String()
}
