// Package flatbalance is the fast form behind cfs's find_busiest_group for a flat domain: a
// domain whose groups are single CPUs of one capacity, as the cache level of a machine without
// SMT is. There find_busiest_group visits every CPU, and a CPU about to idle balances at nearly
// every switch; but the busiest group it acts on can be found from the CPUs that hold two tasks
// or more alone, which an [Index] keeps as a bitmap, a word per 64 CPUs, updated as each CPU's
// task count changes.
//
// Why those CPUs are enough (the rule cfs's FindBusiestGroup documents, and this package's tests
// check against cfs's full visit). A group of one CPU has a type above group_fully_busy only when
// it is overloaded (more tasks than CPUs: two or more, so in the index), imbalanced (never, for a
// flat domain, whose groups are no domain's local group above) or misfit (on a flat domain, only
// when the CPU lost capacity to other classes, which the machines cfs's System models never do).
// group_overloaded is the highest type, and update_sd_pick_busiest keeps, among overloaded
// groups, the first in ring order of the largest avg_load; so if a remote CPU of the index with
// fair tasks is overloaded, the busiest group is among them. If none is, every candidate (a
// remote CPU with fair tasks) has a type below group_misfit_task; if one of them has two fair
// tasks or more, only the full visit can tell ([Index.Busiest] reports it as unsure). Otherwise
// every candidate has one fair task, and a busiest group of one CPU, one fair task and a type
// below group_misfit_task is always found balanced, whichever the visit would have picked.
// SG_OVERLOAD is set by any CPU of the index still considered.
//
// The scan is written for the branch predictor: group_is_overloaded's utilisation test, and
// whether a CPU beats the busiest so far, follow no pattern a predictor could learn, so the scan
// tests the runnable threshold first (a CPU with two runnable tasks meets it whatever its
// utilisation when imbalance_pct is below 200, as the kernel's always are) and takes a new
// busiest by conditional moves. It does branch on one comparison: a candidate whose avg_load is
// below the busiest's so far cannot be picked whatever its type, so group_is_overloaded's tests
// are left out for it (at 64 CPUs under the periodic sets, about half the candidates). Whether
// the answer is unsure matters only when no busiest is found, and then no candidate was passed
// over and none is overloaded: a second pass, made only then, reads the candidates' counts of
// fair tasks, so that the scan keeps no count of its own. The scan also forms
// group_is_overloaded's thresholds (capacity × imbalance_pct and capacity × 100) where it tests
// them rather than holding them: each held value costs the loop a register, and at 64 CPUs the
// loop's spills cost more than the two multiplications.
package flatbalance

import (
	"math/bits"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// An Index is the set of CPUs whose nr_running is two or more, as a bitmap by CPU id. The zero
// Index holds no CPU and must be sized with [Index.Init] before use. An Index is not safe for
// concurrent use.
type Index struct {
	multi []uint64
}

// Init sizes x for CPU ids below n and empties it.
func (x *Index) Init(n int) {
	x.multi = make([]uint64, (n+63)/64)
}

// Update records that CPU c's nr_running went from was to nr. Only a change across two touches
// the bitmap.
func (x *Index) Update(c topology.CPU, was, nr uint32) {
	if nr >= 2 {
		if was < 2 {
			x.multi[c>>6] |= 1 << (c & 63)
		}
	} else if was >= 2 {
		x.multi[c>>6] &^= 1 << (c & 63)
	}
}

// Has reports whether CPU c is in the index.
func (x *Index) Has(c topology.CPU) bool { return x.multi[c>>6]&(1<<(c&63)) != 0 }

// Busiest is update_sd_pick_busiest over the CPUs of x in span (the domain's CPUs, a bitmap by
// CPU id) still in cpus (env->cpus), for a balance of dst over groups of one CPU of capacity gc
// each with imbalance_pct pct, reading each candidate's statistics in stats (indexed by CPU
// id): the fair tasks the balancer counts (HNrRunning: h_nr_running, or v7.1's h_nr_runnable),
// cpu_load, cpu_util_cfs and cpu_runnable, of the CPUs of the index the scan visits alone. Among the CPUs whose group is overloaded and has fair tasks (dst's own
// excluded), the first in ring order from dst of the largest avg_load. It returns that CPU, or
// -1; whether a CPU of x is in cpus at all (SG_OVERLOAD); and, when it returns -1, whether a
// candidate below overloaded has two fair tasks or more (then only the full visit can decide;
// with a busiest CPU found, unsure is false, as it does not matter). The three sets are
// intersected a word at a time; the cost is O(words of span + CPUs of x in it), and a candidate
// whose avg_load is below the busiest so far is passed over without group_is_overloaded's
// tests. Busiest panics if a CPU it reads has no statistics.
func (x *Index) Busiest(span []uint64, cpus *topology.CPUSet, dst topology.CPU, gc, pct uint64, stats []smp.CPUStat) (best int, over, unsure bool) {
	const ring = topology.MaxCPUs - 1                       // MaxCPUs is a power of two
	bestAvg, bestPos := uint64(0), uint64(topology.MaxCPUs) // none yet
	multi := x.multi[:len(span)]
	dw, db := int(dst>>6), uint64(1)<<(dst&63)
	for i, m := range span {
		w := multi[i] & m & cpus.Word(i)
		if w == 0 {
			continue
		}
		over = true
		if i == dw {
			w &^= db // dst's own group is no candidate
		}
		// The word's CPUs: bit k is CPU i·64+k, whose statistics are row[k] and whose
		// position in the ring that starts at dst is rel+k (modulo the ring).
		row := stats[min(i<<6, len(stats)):]
		rel := uint64(i<<6) - uint64(dst)
		for ; w != 0; w &= w - 1 {
			k := bits.TrailingZeros64(w)
			if k >= len(row) {
				panic("flatbalance: Index.Busiest of a CPU beyond the statistics")
			}
			f := &row[k]
			if f.HNrRunning == 0 {
				continue
			}
			// avg_load. At full capacity the division is by SCHED_CAPACITY_SCALE.
			avg := f.Load
			if gc != topology.CapacityScale {
				avg = avg * topology.CapacityScale / gc
			}
			if avg < bestAvg {
				// It cannot be the busiest, overloaded or not (bestAvg only grows), and
				// with a busiest found whether it has two fair tasks no longer matters:
				// group_is_overloaded's tests are left out.
				continue
			}
			// group_is_overloaded's tests for a group of one CPU with two tasks or more.
			if !(gc*pct < f.Runnable*100 || gc*100 < f.Util*pct) {
				// A candidate below overloaded: found balanced like any other with one fair
				// task (the others delayed, v7.1); with more, only the full visit can tell,
				// which matters only if no busiest is found (see unsureOf).
				continue
			}
			// The position in the ring that starts at dst: the first of equal avg_loads wins.
			pos := (rel + uint64(k)) & ring
			// avg > bestAvg || avg == bestAvg && pos < bestPos: the borrow of
			// (bestAvg, ^bestPos) - (avg, ^pos). Before the first candidate, bestPos is
			// MaxCPUs, beyond every position.
			_, earlier := bits.Sub64(pos, bestPos, 0)
			if _, better := bits.Sub64(bestAvg, avg, earlier); better != 0 {
				bestAvg, bestPos = avg, pos
			}
		}
	}
	if bestPos == topology.MaxCPUs {
		return -1, over, over && x.unsureOf(span, cpus, dst, stats)
	}
	return int((uint64(dst) + bestPos) & ring), over, false
}

// unsureOf is Busiest's unsure when it found no busiest: whether a candidate (a CPU of x in span
// and cpus other than dst, with fair tasks), none of which is overloaded, has two fair tasks or
// more. It is asked only then, so that the scan keeps no count for it.
func (x *Index) unsureOf(span []uint64, cpus *topology.CPUSet, dst topology.CPU, stats []smp.CPUStat) bool {
	dw, db := int(dst>>6), uint64(1)<<(dst&63)
	for i, m := range span {
		w := x.multi[i] & m & cpus.Word(i)
		if i == dw {
			w &^= db
		}
		row := stats[min(i<<6, len(stats)):]
		for ; w != 0; w &= w - 1 {
			if row[bits.TrailingZeros64(w)].HNrRunning >= 2 {
				return true
			}
		}
	}
	return false
}

// SpanUtil is the sum of cpu_util_cfs (stats[c].Util) over the CPUs of span (the domain's CPUs,
// a bitmap by CPU id) still in cpus: update_sd_lb_stats' sum_util over a flat domain's groups of
// one CPU, as update_idle_cpu_scan reads it, taken a word of the two sets at a time instead of
// a group at a time. The sum wraps as the kernel's unsigned long does. SpanUtil panics if a CPU
// it reads has no statistics.
func SpanUtil(span []uint64, cpus *topology.CPUSet, stats []smp.CPUStat) uint64 {
	var sum uint64
	for i, m := range span {
		row := stats[min(i<<6, len(stats)):]
		for w := m & cpus.Word(i); w != 0; w &= w - 1 {
			sum += row[bits.TrailingZeros64(w)].Util
		}
	}
	return sum
}
