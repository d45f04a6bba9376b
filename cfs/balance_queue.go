// This file implements the rest of a balance's decisions as pure functions:
// find_busiest_queue, should_we_balance, update_idle_cpu_scan's scan depth and the balance
// interval (get_sd_balance_interval).

package cfs

import (
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// FindBusiestQueue returns the CPU of group d.Group to pull from, as find_busiest_queue does for
// d.Migration: the largest load per capacity (compared by cross-multiplication, skipping a
// CPU whose single task is heavier than the imbalance), the largest utilisation among CPUs with
// more than one task (cpu_util_cfs_boost: Util raised to Runnable, capped at CapacityOrig; the
// first CPU keeps ties), the most fair tasks, or the largest misfit load. CPUs without fair tasks
// are skipped, and on a domain of unequal capacities so is a CPU with one task that is not
// smaller than env.DstCPU. It reports false if no CPU qualifies. FindBusiestQueue changes
// nothing. The complexity is O(CPUs of the group).
func FindBusiestQueue(env *LBEnv, d *BusiestGroup, p *smp.Params) (topology.CPU, bool) {
	var best topology.CPU
	found := false
	var bestUtil, bestLoad uint64
	bestCap := uint64(1)
	var bestNr uint32
	asym := env.SD.flags&topology.SDAsymCPUCapacity != 0
	dstCap := env.Stats[env.DstCPU].Capacity
	pct := env.SD.imbalancePct()
	for _, c := range d.Group.list {
		if !env.CPUs.Has(c) {
			continue
		}
		rq := &env.Stats[c]
		nr := rq.HNrRunning
		if nr == 0 {
			continue
		}
		capa := rq.Capacity
		if asym && !capacityGreater(dstCap, capa) && nr == 1 {
			continue
		}
		switch d.Migration {
		case smp.MigrateLoad:
			load := rq.Load
			if nr == 1 && int64(load) > d.Imbalance && !checkCPUCapacity(rq, pct) {
				continue
			}
			if load*bestCap > bestLoad*capa {
				bestLoad, bestCap, best, found = load, capa, c, true
			}
		case smp.MigrateUtil:
			// cpu_util_cfs_boost: utilisation raised to the runnable signal, capped at the
			// CPU's original capacity.
			util := min(max(rq.Util, rq.Runnable), rq.CapacityOrig)
			if nr <= 1 {
				continue
			}
			if bestUtil < util {
				bestUtil, best, found = util, c, true
			}
		case smp.MigrateTask:
			if bestNr < nr {
				bestNr, best, found = nr, c, true
			}
		case smp.MigrateMisfit:
			if rq.MisfitLoad > bestLoad {
				bestLoad, best, found = rq.MisfitLoad, c, true
			}
		}
	}
	return best, found
}

// ShouldWeBalance reports whether env.DstCPU is the CPU that balances env.SD now:
// should_we_balance of v6.5. A newly idle CPU always may, unless it has tasks again; a periodic
// balance is done by the first idle CPU of the local group's balance mask, or when none is
// idle, by the mask's first CPU, so that one CPU per group balances each level.
func ShouldWeBalance(env *LBEnv, p *smp.Params) bool {
	if !env.CPUs.Has(env.DstCPU) {
		return false
	}
	if env.Idle == smp.CPUNewlyIdle {
		return env.Stats[env.DstCPU].NrRunning == 0
	}
	bl := env.SD.groups[0].balanceList
	for _, c := range bl {
		if env.CPUs.Has(c) && env.Stats[c].Idle() {
			return c == env.DstCPU
		}
	}
	return bl[0] == env.DstCPU
}

// idleCPUScan returns how many CPUs select_idle_cpu may scan in an LLC of llcWeight CPUs whose
// utilisation sums to sumUtil, with the LLC domain's imbalance_pct pct: update_idle_cpu_scan.
// The number falls with the square of the LLC's average utilisation and reaches 0 at
// 100/pct (85% for 117).
func idleCPUScan(sumUtil uint64, llcWeight int, pct uint64) int {
	x := sumUtil / uint64(llcWeight)
	tmp := x * x * pct * pct / (10000 * topology.CapacityScale)
	tmp = min(tmp, topology.CapacityScale)
	y := (topology.CapacityScale - tmp) * uint64(llcWeight) / topology.CapacityScale
	return int(y)
}

// balanceInterval returns the number of jiffies between two periodic balances of a domain whose
// balance_interval is intervalMs, on a CPU that is busy or not, at hz with ncpus online CPUs:
// get_sd_balance_interval. A busy CPU balances busy_factor times less often, minus a jiffy so
// that levels do not fall into step; the result is at least 1 and at most
// max_load_balance_interval, HZ*ncpus/10.
func balanceInterval(intervalMs, busyFactor int, busy bool, hz, ncpus int) int64 {
	iv := int64(intervalMs)
	if busy {
		iv *= int64(busyFactor)
	}
	iv = msecsToJiffies(iv, hz)
	if busy {
		iv--
	}
	return min(max(iv, 1), max(int64(hz*ncpus/10), 1))
}

// msecsToJiffies is msecs_to_jiffies: milliseconds to jiffies, rounded up.
func msecsToJiffies(ms int64, hz int) int64 {
	return (ms*int64(hz) + 999) / 1000
}
