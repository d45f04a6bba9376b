package host

import (
	"runtime"
	"testing"
)

// TestSpinReadsClockSeldom: a spin of d reads the thread's CPU clock about log2(d/slack) times
// (each read runs the kernel's update_curr, which may reschedule the thread: a program that only
// computes meets the scheduler at the tick alone), and uses d of CPU within the slack and one
// chunk. Before, it read the clock every 2 µs chunk: 500 times a millisecond.
func TestSpinReadsClockSeldom(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := newSpinner()
	var stop uint32
	for _, d := range []int64{5_000, 100_000, 1_000_000, 10_000_000} {
		used, reads := spinCPU(d, 1<<62, &stop, s.chunk, s.chunkNs, s.readNs/2)
		t.Logf("d %d ns: used %d ns, %d clock reads", d, used, reads)
		if reads > 16 {
			t.Errorf("d %d ns: %d reads of the thread's CPU clock, want at most 16", d, reads)
		}
		// Below: the slack; above: a chunk, a quarter more (the chunk's speed varies with the
		// caches) and the reads themselves.
		if lo, hi := d-s.readNs, d+s.chunkNs+16*s.readNs+d/4; used < lo || used > hi {
			t.Errorf("d %d ns: used %d ns of CPU, want %d..%d", d, used, lo, hi)
		}
	}
	stop = 1
	if used, reads := spinCPU(1_000_000, 1<<62, &stop, s.chunk, s.chunkNs, s.readNs/2); used > 100_000 || reads > 2 {
		t.Errorf("stopped: used %d ns in %d reads, want at once", used, reads)
	}
}
