// Package slicememo is the fast form behind cfs's sched_slice for the tick: a one-entry memo of
// the last slice computed for a task queued on its CPU's root queue, with every value the
// computation read.
//
// Classic CFS's tick asks check_preempt_tick at every tick of a busy CPU whose queue holds more
// than one entity, and check_preempt_tick computes sched_slice: a period, then a __calc_delta of
// it by the task's weight over its queue's load, whose inverse is a division for a sum of loads.
// From tick to tick of a task running among the same competitors nothing it reads changes, so
// cfs remembers the result here and reuses it while the [Key] is the same. The rule that chooses
// it (cfs's slice function documents it) is: the entity is a task, queued, on its CPU's root
// queue; any other entity's slice reads more levels and is computed every time. BASE_SLICE's
// floor, a comparison, is applied after the memo and is not part of it.
//
// The equivalence test is this package's: it drives cfs run queues through random hierarchies
// and tick sequences and compares every tick's ideal slice, and every queued entity's slice,
// with sched_slice computed afresh from cfs's exported state and arithmetic.
package slicememo

// A Memo holds the value last computed with its key: everything sched_slice reads, before its
// BASE_SLICE floor, for a task queued on its CPU's root queue. The key is seven words: the
// period's entity count (the queue's nr_running, or the CPU's h_nr_running with ALT_PERIOD; 0
// never matches, since a queued task makes it at least 1), the queue's load weight, its cached
// inverse with the __calc_delta method in the upper half, the task's weight, and the tunables the
// period reads (latency, minimum granularity and sched_nr_latency). They are passed as
// arguments, compared one by one, the ones that change most often first, so that the lookup
// inlines and reads the live values where they are.
//
// The zero Memo holds nothing. A Memo is not safe for concurrent use; cfs keeps one per CPU.
type Memo struct {
	nr, loadWeight, loadInvMethod, weight uint64
	latency, minGranularity, nrLatency    uint64
	slice                                 uint64
}

// Get returns the value remembered for the key, and false if the Memo holds another key (or
// none).
func (m *Memo) Get(nr, loadWeight, loadInvMethod, weight, latency, minGranularity, nrLatency uint64) (uint64, bool) {
	if m.nr == nr && m.loadWeight == loadWeight && m.weight == weight && m.loadInvMethod == loadInvMethod &&
		m.latency == latency && m.minGranularity == minGranularity && m.nrLatency == nrLatency && nr != 0 {
		return m.slice, true
	}
	return 0, false
}

// Put remembers slice for the key, forgetting what the Memo held.
func (m *Memo) Put(nr, loadWeight, loadInvMethod, weight, latency, minGranularity, nrLatency, slice uint64) {
	*m = Memo{nr, loadWeight, loadInvMethod, weight, latency, minGranularity, nrLatency, slice}
}
