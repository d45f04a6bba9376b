package sim

// This file implements the machine's recording of latency samples: every thread's series keep
// their exact samples in chunks of one machine-wide arena while they are small, and move into a
// Histogram once they outgrow the exact budget.

import (
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/bench/sim/internal/samplesort"
)

// chunkLen is the number of samples in a chunk: 16 of 32 bits, one 64-byte cache line. The
// arena hands out chunks from blocks of blockLen (16 KiB), so that it grows without copying.
const (
	chunkLen   = 16
	blockBits  = 8
	blockLen   = 1 << blockBits
	maxChunks  = 1<<31/chunkLen - 1 // chunk numbers fit an int32 with room to spare
	noChunk    = 0
	liveInHist = -1
)

type chunk [chunkLen]uint32

// A sampleArena holds the exact samples of a machine's live latency series (see liveSeries) in
// chunks of chunkLen, handed out in order of need from blocks of blockLen. Each series writes
// the chunk it took last, so the series being filled write to the few hundred kilobytes handed
// out most recently, whichever threads they belong to: the machine's hot path writes its samples
// into a compact, recently touched region instead of a growing array per series (three per
// thread), whose scattered ends cost a cache and a TLB miss apiece once there are thousands of
// threads. A series links its chunks from the newest back (prev), since only reading needs them
// all, in any order: the samples are sorted then.
//
// Chunk 0 is never handed out (noChunk). Chunks of series that moved into a Histogram, or that a
// warm-up discarded, go to a free list, linked through prev, which is taken first. hists holds
// the Histograms of the series that left the arena.
type sampleArena struct {
	blocks []*[blockLen]chunk
	prev   []int32 // the series' previous chunk, or the next free chunk; noChunk ends a list
	used   int32   // chunks handed out from the blocks, chunk 0 included
	free   int32   // the first free chunk, or noChunk
	hists  []*Histogram
	// pend holds samples for hists not yet added, as index<<32 | sample, in order: see later.
	pend []uint64
}

// pendLen is how many samples for the arena's Histograms wait before they are added.
const pendLen = 2048

// later queues sample v (below 2^32) for hists[i]. A series that left the arena counts its
// samples in its Histogram's buckets, one counter among thousands of series' rows, usually a
// cache and TLB miss; added one at a time from the machine's hot path each miss stalls the
// event, while flush's loop of independent additions lets the processor overlap them. The
// samples of one series keep their order, so every Histogram ends as it would have.
func (a *sampleArena) later(i int32, v int64) {
	if len(a.pend) == cap(a.pend) {
		a.flush()
	}
	a.pend = append(a.pend, uint64(i)<<32|uint64(v))
}

// flush adds the queued samples to their Histograms. Whatever reads a Histogram of the arena
// flushes first.
func (a *sampleArena) flush() {
	for _, e := range a.pend {
		a.hists[e>>32].add(int64(uint32(e)))
	}
	if a.pend == nil {
		a.pend = make([]uint64, 0, pendLen)
	}
	a.pend = a.pend[:0]
}

// at returns chunk c.
func (a *sampleArena) at(c int32) *chunk { return &a.blocks[c>>blockBits][c&(blockLen-1)] }

// take returns a chunk to follow chunk p of a series (noChunk for a series' first).
func (a *sampleArena) take(p int32) int32 {
	c := a.free
	if c != noChunk {
		a.free = a.prev[c]
		a.prev[c] = p
		return c
	}
	if a.used == 0 {
		a.used, a.prev = 1, append(a.prev, noChunk) // chunk 0 stands for none
	}
	if a.used&(blockLen-1) == 0 || a.blocks == nil {
		if a.used > maxChunks-blockLen {
			panic(fmt.Sprintf("sim: more than %d latency samples kept exactly", maxChunks*chunkLen))
		}
		a.blocks = append(a.blocks, new([blockLen]chunk))
	}
	c = a.used
	a.used++
	a.prev = append(a.prev, p)
	return c
}

// release puts the chunks of the list ending at tail on the free list.
func (a *sampleArena) release(tail int32) {
	for c := tail; c != noChunk; {
		p := a.prev[c]
		a.prev[c] = a.free
		a.free = c
		c = p
	}
}

// A liveSeries is a latency series of a thread of a running machine (see Series). While it has
// fewer samples than the exact budget and every one fits 32 bits, it holds n of them: the first
// in first, the others in the machine's sampleArena, the newest in chunk tail. Once a sample
// would break either rule, the series moves into a Histogram, the arena's hists[tail], which
// keeps its samples in exact, unsorted, then in buckets, and n is liveInHist. A series costs
// its own 12 bytes until its second sample.
type liveSeries struct {
	tail  int32
	n     int32
	first uint32
}

// record adds sample v ≥ 0 to s, on the machine's hot path: a store into the series' newest
// chunk; recordSlow does the rest (the first sample, a new chunk every chunkLen samples).
func (m *Machine) record(s *liveSeries, v int64) {
	// 1 ≤ n < budget (n = liveInHist wraps), and sample n does not start a chunk.
	if n := s.n; (n-1)&(chunkLen-1) != 0 && uint32(n-1) < m.budget-1 && uint64(v) < 1<<32 {
		m.arena.at(s.tail)[(n-1)&(chunkLen-1)] = uint32(v)
		s.n = n + 1
		return
	}
	m.recordSlow(s, v)
}

// recordSlow is record for a series' first sample, one that needs a new chunk, reaches the
// budget or does not fit 32 bits, and for a series in its Histogram.
func (m *Machine) recordSlow(s *liveSeries, v int64) {
	n := s.n
	switch {
	case n == liveInHist:
		if uint64(v) < 1<<32 {
			m.arena.later(s.tail, v)
			return
		}
		m.arena.flush()
		m.arena.hists[s.tail].add(v)
	case uint32(n) >= m.budget || uint64(v) >= 1<<32:
		// The series moves into a Histogram: its samples widened to 64 bits, then v, which
		// counts them all into buckets if the budget is reached.
		h := &Histogram{limit: int32(m.budget)}
		h.exact = m.samplesFrom(s, 0, make([]int64, 0, min(2*int64(n)+1, int64(m.budget))))
		if n > 1 {
			m.arena.release(s.tail)
		}
		h.add(v)
		*s = liveSeries{tail: int32(len(m.arena.hists)), n: liveInHist}
		m.arena.hists = append(m.arena.hists, h)
	case n == 0:
		s.first, s.n = uint32(v), 1
	default:
		// n-1 samples fill the chunks so far: a new one.
		s.tail = m.arena.take(s.tail)
		m.arena.at(s.tail)[0] = uint32(v)
		s.n = n + 1
	}
}

// samplesFrom appends the samples of s recorded after its first from to dst, in the order they
// were recorded. Sample i ≥ 1 sits at slot (i-1) mod chunkLen of the series' chunk (i-1)/chunkLen,
// so the walk back from the newest chunk, tail, stops at the chunk of sample from.
func (m *Machine) samplesFrom(s *liveSeries, from int32, dst []int64) []int64 {
	n := s.n
	if n <= from {
		return dst
	}
	if from == 0 {
		dst = append(dst, int64(s.first))
		from = 1
	}
	start := len(dst)
	dst = slices.Grow(dst, int(n-from))[:start+int(n-from)]
	d := dst[start:]                       // d[i-from] is sample i
	lo, hi := (n-2)/chunkLen*chunkLen+1, n // the chunk holds samples lo..hi-1
	for c := s.tail; hi > from; c = m.arena.prev[c] {
		i := max(lo, from)
		for j, x := range m.arena.at(c)[(i-1)&(chunkLen-1) : (hi-2)&(chunkLen-1)+1] {
			d[int(i-from)+j] = int64(x)
		}
		hi, lo = lo, lo-chunkLen
	}
	return dst
}

// A sortedSeries is what a Result took of a live series: its first len(v) samples, sorted.
// The next Result of the same series sorts only the samples recorded since and merges them in,
// so that a machine read as it runs (schedbench top) sorts each sample once; a Result of a series
// with no new samples shares v. The machine drops them when a warm-up ends.
type sortedSeries struct {
	v []int64 // cap(v) == len(v): whoever appends to it copies it first
}

// snapshotSeries returns a Histogram of the samples of s, exact values sorted, given c, what the
// last snapshot of s took (empty for the first), which it updates. The Histogram's exact
// samples are c's, shared with the machine and the other Results it made of s, which never
// write to them.
func (m *Machine) snapshotSeries(s *liveSeries, c *sortedSeries) Histogram {
	h := Histogram{limit: int32(m.budget)}
	var fresh []int64
	if s.n == liveInHist {
		m.arena.flush()
		live := m.arena.hists[s.tail]
		if live.buckets != nil || len(live.exact) < len(c.v) {
			c.v = nil
			return live.snapshot()
		}
		h.limit = live.limit
		// Its samples are in the order recorded (see recordSlow), like the arena's.
		fresh = append(m.freshBuf[:0], live.exact[len(c.v):]...)
		slices.Sort(fresh) // they may not fit 32 bits
	} else {
		if int(s.n) < len(c.v) {
			c.v = nil
		}
		fresh = m.samplesFrom(s, int32(len(c.v)), m.freshBuf[:0])
		// slices.Sort(fresh), by a radix sort: the samples fit 32 bits (see liveSeries).
		m.sortBuf = samplesort.Sort32(fresh, m.sortBuf)
	}
	m.freshBuf = fresh[:0]
	if len(fresh) > 0 {
		c.v = mergeSorted(c.v, fresh)
	}
	h.exact = c.v
	if n := len(c.v); n > 0 {
		h.n, h.min, h.max = int64(n), c.v[0], c.v[n-1]
	}
	return h
}

// mergeSorted returns the sorted a and b merged into a new slice of exactly their length.
func mergeSorted(a, b []int64) []int64 {
	out := make([]int64, len(a)+len(b))
	i, j := 0, 0
	for k := range out {
		if j == len(b) || i < len(a) && a[i] <= b[j] {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
	return out
}

// resetSeries empties s, giving its chunks back: a warm-up ends. A Histogram it had moved into
// stays in hists, unused (a warm-up happens once).
func (m *Machine) resetSeries(s *liveSeries) {
	if s.n > 1 {
		m.arena.release(s.tail)
	}
	*s = liveSeries{}
}
