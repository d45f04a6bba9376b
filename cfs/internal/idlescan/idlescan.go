// Package idlescan is the fast form behind cfs's select_idle_cpu when no idle core is known:
// the scan of the waking CPU's last-level cache for the first idle (or SCHED_IDLE-only) CPU the
// task may use, from the CPU after the target, wrapping round, examining at most the budget
// SIS_UTIL gives it.
//
// The kernel (and cfs's readable selectIdleCPU) walks the cache's CPUs one at a time and reads
// each run queue. cfs's System keeps which CPUs are idle as a [Mask], a bit per CPU updated where
// it writes a CPU's task counts, so the scan takes the span, the task's affinity and the mask a
// word of 64 CPUs at a time: the first candidate is the lowest bit of their intersection, and
// the CPUs examined before it (which the budget counts) are the allowed CPUs of the span below
// it, a population count.
//
// The same mask answers select_idle_smt, the search of the previous CPU's SMT siblings for an
// idle one, when those siblings lie in that CPU's word of the bitmap: [Mask.Sibling] is their
// lowest allowed idle CPU, an AND of three words and a count of trailing zeros.
//
// The kernel's loop, which [Scan] reproduces exactly: for each allowed CPU of the span in the
// wrapped order, count it as scanned and decrement the budget; if the budget reaches 0, give up
// (that CPU is not examined); if the CPU is idle, take it.
package idlescan

import (
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// A Mask is a set of CPUs, the idle ones, a bit per CPU id. The zero Mask holds none. A Mask is
// not safe for concurrent use.
type Mask struct {
	w [topology.SetWords]uint64
}

// Set records whether CPU c is idle.
func (m *Mask) Set(c topology.CPU, idle bool) {
	if idle {
		m.w[c>>6] |= 1 << (c & 63)
	} else {
		m.w[c>>6] &^= 1 << (c & 63)
	}
}

// Has reports whether CPU c is idle.
func (m *Mask) Has(c topology.CPU) bool { return m.w[c>>6]&(1<<(c&63)) != 0 }

// Word returns word i of the bitmap: CPUs 64×i to 64×i+63, a bit each.
func (m *Mask) Word(i int) uint64 { return m.w[i] }

// Sibling is select_idle_smt's loop where core's SMT siblings other than core itself lie in
// core's word of the bitmap (word core/64), others holding their bits: in ascending order, the
// first sibling that allowed holds and m marks idle, and whether there is one.
func (m *Mask) Sibling(core topology.CPU, others uint64, allowed *topology.CPUSet) (topology.CPU, bool) {
	i := int(core >> 6)
	b := others & allowed.Word(i) & m.w[i]
	if b == 0 {
		return 0, false
	}
	return core&^63 + topology.CPU(bits.TrailingZeros64(b)), true
}

// A Span is a set of CPUs as [Mask.Scan] reads it: the set, and Words, which lists in ascending
// order the words of the bitmap that hold its CPUs (word i holds CPUs 64×i to 64×i+63; it may
// list empty words too). [NewSpan] builds one.
type Span struct {
	Set   topology.CPUSet
	Words []uint16
}

// NewSpan returns the Span of s, listing exactly the words that hold its CPUs.
func NewSpan(s topology.CPUSet) *Span {
	sp := &Span{Set: s}
	for i := range topology.SetWords {
		if s.Word(i) != 0 {
			sp.Words = append(sp.Words, uint16(i))
		}
	}
	return sp
}

// Scan is select_idle_cpu's loop over the CPUs of span sp that allowed holds, in ascending
// order from CPU from wrapping round to the CPUs below it, with a budget of nr (at least 1; the
// kernel's nr, SIS_UTIL's nr_idle_scan + 1, or any larger number for no bound). It reads only
// the words sp lists. It returns the first idle CPU of m met before the
// budget runs out, whether there was one, and the number of CPUs counted as scanned: the
// allowed CPUs up to and including the one found, or up to the one at which the budget ran out.
func (m *Mask) Scan(sp *Span, allowed *topology.CPUSet, from topology.CPU, nr int) (cpu topology.CPU, ok bool, scanned int) {
	span, words := &sp.Set, sp.Words
	n := len(words)
	fw, fb := int(from>>6), uint(from&63)
	if n == 1 {
		// The span in one word (every last-level cache of up to 64 CPUs): rotated right by from's
		// bit when from lies in that word, its bits in ascending order are the wrapped order.
		i := int(words[0])
		a := span.Word(i) & allowed.Word(i)
		if i != fw {
			fb = 0
		}
		a = bits.RotateLeft64(a, -int(fb))
		idle := a & bits.RotateLeft64(m.w[i], -int(fb))
		if idle == 0 {
			return 0, false, min(bits.OnesCount64(a), nr)
		}
		b := bits.TrailingZeros64(idle)
		rank := bits.OnesCount64(a&(1<<b-1)) + 1
		if rank < nr {
			return topology.CPU(i<<6 + (b+int(fb))&63), true, rank
		}
		return 0, false, nr
	}
	// The scan starts at from's word if span has CPUs there, without the bits below from, and
	// ends there with only those bits; otherwise it starts at the next word of span, wrapping to
	// its first, and reads each word once.
	j0 := 0
	for j0 < n && int(words[j0]) < fw {
		j0++
	}
	last := n
	if j0 < n && int(words[j0]) == fw {
		last = n + 1
	} else {
		fb = 0
	}
	for k := range last {
		j := j0 + k
		if j >= n {
			j -= n
		}
		i := int(words[j])
		keep := ^uint64(0)
		switch k {
		case 0:
			keep <<= fb
		case n:
			keep = 1<<fb - 1
		}
		a := span.Word(i) & allowed.Word(i) & keep
		if a == 0 {
			continue
		}
		if idle := a & m.w[i]; idle != 0 {
			b := bits.TrailingZeros64(idle)
			rank := scanned + bits.OnesCount64(a&(1<<b-1)) + 1
			if rank < nr {
				return topology.CPU(i<<6 + b), true, rank
			}
			return 0, false, nr
		}
		scanned += bits.OnesCount64(a)
		if scanned >= nr {
			return 0, false, nr
		}
	}
	return 0, false, scanned
}
