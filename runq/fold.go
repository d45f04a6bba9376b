package runq

// A Fold is the number of priorities that share one queue: RQ_PPQ in sys/sys/runq.h. FreeBSD
// main uses one queue per priority ([NoFold]); before the 2025 rework run queues had 64 queues and
// each held four adjacent priorities ([LegacyFold]), so priorities 0-3 shared queue 0, 4-7 queue
// 1, and so on.
//
// Folding is what broke POSIX: the 32 SCHED_FIFO/SCHED_RR levels map to 32 consecutive
// priorities, which a fold of 4 squeezes into 8 queues, so threads four levels apart were treated
// as equals and did not preempt one another. A Runq always has 256 queues; a legacy 64-queue
// run queue is a Runq whose indices are produced by LegacyFold and therefore stay in 0..63.
type Fold uint8

const (
	// NoFold maps priority p to queue p: FreeBSD main, RQ_PPQ = 1, 256 queues.
	NoFold Fold = 1
	// LegacyFold maps priority p to queue p/4: FreeBSD 13-14, RQ_PPQ = 4, 64 queues.
	LegacyFold Fold = 4
)

// Index returns the queue that holds priority pri: RQ_PRI_TO_QUEUE_IDX(pri) = pri / RQ_PPQ.
// Index panics if f is zero.
func (f Fold) Index(pri uint8) Index {
	if f == 0 {
		panic("runq: Fold.Index: zero fold")
	}
	return Index(pri / uint8(f))
}

// NumQueues returns the number of queues the fold uses, ceil(256 / RQ_PPQ): 256 for NoFold, 64
// for LegacyFold. NumQueues panics if f is zero.
func (f Fold) NumQueues() int {
	if f == 0 {
		panic("runq: Fold.NumQueues: zero fold")
	}
	return (NumQueues + int(f) - 1) / int(f)
}

// Range returns the queues that hold priorities lo through hi, both included. Range panics if f
// is zero or lo > hi.
func (f Fold) Range(lo, hi uint8) Range {
	r := Range{Lo: f.Index(lo), Hi: f.Index(hi)}
	if lo > hi {
		panic("runq: Fold.Range: inverted priority range")
	}
	return r
}
