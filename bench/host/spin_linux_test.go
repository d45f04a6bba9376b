package host

import (
	"math/bits"
	"runtime"
	"slices"
	"testing"
)

// TestSpinReadsClockSeldom: a spin of d reads the thread's CPU clock about log2(d/slack) times,
// within maxReads on a busy machine too (each read runs the kernel's update_curr, which may
// reschedule the thread: a program that only computes meets the scheduler at the tick alone),
// and uses d of CPU within the slack and one chunk. Before, it read the clock every 2 µs chunk:
// 500 times a millisecond.
func TestSpinReadsClockSeldom(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := newSpinner()
	var stop uint32
	// Each figure is the median of 9 spins: an interrupt on a busy machine is charged to the
	// thread that it lands on, and one can add tens of microseconds to a spin.
	spin := func(d, chunk int64) (used, reads int64) {
		var us, rs []int64
		for range 9 {
			u, r := spinCPU(d, 1<<62, &stop, chunk, s.chunkNs, s.readNs/2)
			us, rs = append(us, u), append(rs, r)
		}
		slices.Sort(us)
		slices.Sort(rs)
		return us[4], rs[4]
	}
	for _, d := range []int64{5_000, 100_000, 1_000_000, 10_000_000} {
		used, reads := spin(d, s.chunk)
		t.Logf("d %d ns: used %d ns, %d clock reads (medians)", d, used, reads)
		if want := maxReads(d); reads > want {
			t.Errorf("d %d ns: %d reads of the thread's CPU clock, want at most %d", d, reads, want)
		}
		// Below: the slack; above: a chunk, a quarter more (the chunk's speed varies with the
		// caches) and the reads themselves.
		if lo, hi := d-s.readNs, d+s.chunkNs+16*s.readNs+d/4; used < lo || used > hi {
			t.Errorf("d %d ns: used %d ns of CPU, want %d..%d", d, used, lo, hi)
		}
	}
	// A chunk calibrated four times too slow (a busy moment) is corrected by the rounds: without
	// the correction each round would do an eighth of what is left, some 32-45 reads for 1 ms.
	if _, reads := spin(1_000_000, s.chunk/4); reads > maxReads(1_000_000) {
		t.Errorf("a chunk four times too small: %d reads for 1 ms, want at most %d", reads, maxReads(1_000_000))
	}
	stop = 1
	if used, reads := spinCPU(1_000_000, 1<<62, &stop, s.chunk, s.chunkNs, s.readNs/2); used > 100_000 || reads > 2 {
		t.Errorf("stopped: used %d ns in %d reads, want at once", used, reads)
	}
}

// maxReads is the most clock reads a spin of d ns may take: twice the halvings from d down to a
// microsecond, and four more for the last rounds (the old loop: one every 2 us chunk).
func maxReads(d int64) int64 { return 2*int64(bits.Len64(uint64(d/1000))) + 4 }
