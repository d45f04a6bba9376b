package host

// This file implements the probe of the IPI's latency by how long its target had been idle: a
// futex ping-pong whose replier never blocks and waits a set time before each wake-up.

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/topology"
)

// probeIdlePingPong runs n round trips (and a tenth more to warm up, not counted) between a
// sleeper on b, blocked in FUTEX_WAIT between its turns, and a replier on a that never blocks:
// each time the sleeper is woken it notes the time and blocks again, and the replier, spinning
// on the word the sleeper writes that time into, spins on the clock until idle has passed since
// then, and wakes it. The sleeper's CPU has then been idle about idle (less the sleeper's way
// into FUTEX_WAIT) when the wake-up is sent, and the replier's CPU, spinning, never idles. It
// returns, for the round trips where the sleeper slept, its one-way latencies (from before the
// replier's FUTEX_WAKE to the sleeper's return from FUTEX_WAIT) and how long after the sleeper
// noted the time the wake-up was sent. It needs two CPUs, and, its threads holding their Ps in
// raw system calls, spare Ps and no garbage collection meanwhile (as measure gives them).
func (pr *prober) probeIdlePingPong(a, b topology.CPU, n int, idle time.Duration) (lat, idles []int64, err error) {
	if a == b {
		return nil, nil, errors.New("one CPU: no other CPU to wake a thread on")
	}
	var w, start uint32
	var ready, t0 atomic.Int64
	var done atomic.Bool
	clk := newClock()
	warm := n / 10
	bDone := pr.onThread(b, func() error {
		defer done.Store(true)
		futexWait(&start)
		for i := range n + warm {
			tb := clk.now()
			ready.Store(tb)
			slept := futexWait(&w)
			now := clk.now()
			atomic.StoreUint32(&w, 0)
			if slept && i >= warm {
				sent := t0.Load()
				lat, idles = append(lat, now-sent), append(idles, sent-tb)
			}
		}
		return nil
	})
	aDone := pr.onThread(a, func() error {
		futexWait(&start)
		for range n + warm {
			var tb int64
			for tb = ready.Swap(0); tb == 0; tb = ready.Swap(0) {
				if done.Load() {
					return nil // the sleeper failed: its error says why
				}
			}
			for clk.now()-tb < int64(idle) {
			}
			t0.Store(clk.now())
			atomic.StoreUint32(&w, 1)
			futexWake(&w)
		}
		return nil
	})
	if err := startTogether(&start, aDone, bDone); err != nil {
		return nil, nil, err
	}
	return lat, idles, nil
}
