package bsd4_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/topology"
)

// Cases follow the SMP sched_add, forward_wakeup and kick_other_cpu of sched_4bsd.c @e2650af1.
func TestWakeCPU(t *testing.T) {
	def := bsd4.DefaultParams()
	noIPI := def
	noIPI.IPIWakeup = false
	ipiPre := def
	ipiPre.IPIPreemption = true
	ipiFull := ipiPre
	ipiFull.FullPreemption = true
	set := topology.CPUSetOf
	tests := []struct {
		name        string
		in          bsd4.WakeInput
		idle        topology.CPUSet
		p           bsd4.Params
		wantRule    bsd4.WakeRule
		wantCPUs    topology.CPUSet
		wantPreempt bool
	}{
		{"global: all other idle CPUs get an IPI",
			bsd4.WakeInput{Pri: 80, Self: 0, SelfPri: 100}, set(1, 2, 3), def,
			bsd4.WakeForward, set(1, 2, 3), false},
		{"global: forward skips self even if marked idle elsewhere",
			bsd4.WakeInput{Pri: 80, Self: 0, SelfPri: 100}, set(2), def,
			bsd4.WakeForward, set(2), false},
		{"global: forwarding disabled falls back to this CPU",
			bsd4.WakeInput{Pri: 80, Self: 0, SelfPri: 100}, set(1), noIPI,
			bsd4.WakeReschedSelf, set(0), false},
		{"global: no idle CPU, better than self: AST",
			bsd4.WakeInput{Pri: 80, Self: 0, SelfPri: 100}, set(), def,
			bsd4.WakeReschedSelf, set(0), false},
		{"global: no idle CPU, not better: nobody",
			bsd4.WakeInput{Pri: 100, Self: 0, SelfPri: 100}, set(), def,
			bsd4.WakeNone, set(), false},
		{"global: from an idle CPU: preempt its idle thread",
			bsd4.WakeInput{Pri: 100, Self: 1, SelfPri: bsd4.MaxIdle}, set(1, 2), def,
			bsd4.WakePreemptSelf, set(1), true},
		{"global: interrupt priority preempts self",
			bsd4.WakeInput{Pri: 3, Self: 0, SelfPri: 100}, set(), def,
			bsd4.WakePreemptSelf, set(0), true},
		{"own per-CPU queue: no forwarding",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 0, Self: 0, SelfPri: 100}, set(1), def,
			bsd4.WakeReschedSelf, set(0), false},
		{"other per-CPU queue, idle target",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 2, QueuePri: bsd4.MaxIdle, Self: 0, SelfPri: 50}, set(2), def,
			bsd4.WakeKickIdle, set(2), false},
		{"other per-CPU queue, better: AST",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 2, QueuePri: 100, Self: 0, SelfPri: 50}, set(), def,
			bsd4.WakeKickAST, set(2), false},
		{"other per-CPU queue, not better",
			bsd4.WakeInput{Pri: 100, PerCPU: true, Queue: 2, QueuePri: 100, Self: 0, SelfPri: 50}, set(), def,
			bsd4.WakeKickNotBetter, set(), false},
		{"IPI_PREEMPTION: timeshare still gets an AST",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 2, QueuePri: 100, Self: 0, SelfPri: 50}, set(), ipiPre,
			bsd4.WakeKickAST, set(2), false},
		{"IPI_PREEMPTION: interrupt priority gets IPI_PREEMPT",
			bsd4.WakeInput{Pri: 4, PerCPU: true, Queue: 2, QueuePri: 100, Self: 0, SelfPri: 50}, set(), ipiPre,
			bsd4.WakeKickPreempt, set(2), true},
		// sched_add from a kernel thread on cpu0 (schedcpu, a system call): cpu0 counts as busy
		// at priority 0, and if it is idle it looks for work when the kernel thread blocks.
		{"kernel: forward to the other idle CPUs and the idle self",
			bsd4.WakeInput{Pri: 80, Self: 0, Kernel: true}, set(0, 2, 3), def,
			bsd4.WakeForward, set(0, 2, 3), false},
		{"kernel: forward to the other idle CPUs, self busy",
			bsd4.WakeInput{Pri: 80, Self: 0, Kernel: true}, set(2, 3), def,
			bsd4.WakeForward, set(2, 3), false},
		{"kernel: only self idle: it looks for work",
			bsd4.WakeInput{Pri: 80, Self: 0, Kernel: true}, set(0), def,
			bsd4.WakeNone, set(0), false},
		{"kernel: nothing idle: nobody",
			bsd4.WakeInput{Pri: 80, Self: 0, Kernel: true}, set(), def,
			bsd4.WakeNone, set(), false},
		{"kernel: self's own queue, self idle",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 0, Self: 0, Kernel: true}, set(0, 1), def,
			bsd4.WakeNone, set(0), false},
		{"kernel: another CPU's queue: kick it, not self",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 1, QueuePri: bsd4.MaxIdle, Self: 0, Kernel: true}, set(0, 1), def,
			bsd4.WakeKickIdle, set(1), false},
		{"IPI_PREEMPTION + FULL_PREEMPTION: any better priority",
			bsd4.WakeInput{Pri: 80, PerCPU: true, Queue: 2, QueuePri: 100, Self: 0, SelfPri: 50}, set(), ipiFull,
			bsd4.WakeKickPreempt, set(2), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Idle = &tc.idle
			w, r := bsd4.WakeCPU(&in, &tc.p)
			cpus := told(w)
			if r.Rule != tc.wantRule || !cpus.Equal(tc.wantCPUs) || w.Preempt != tc.wantPreempt {
				t.Errorf("WakeCPU(%+v, idle %v) = %v %v preempt %t, want %v %v preempt %t", tc.in, tc.idle, r.Rule, cpus, w.Preempt, tc.wantRule, tc.wantCPUs, tc.wantPreempt)
			}
			if w.Set != nil && w.Set != in.Idle {
				t.Errorf("WakeCPU's Set %p is not the input's idle set %p", w.Set, in.Idle)
			}
			if r.String() == "" {
				t.Error("WakeReason.String() is empty")
			}
		})
	}
}

// told returns the CPUs w names.
func told(w bsd4.Wake) topology.CPUSet {
	var cpus topology.CPUSet
	switch {
	case w.One:
		cpus.Add(w.CPU)
	case w.Set != nil:
		cpus = *w.Set
	}
	return cpus
}

// Cases follow sched_pickcpu (sched_4bsd.c @e2650af1).
func TestPickCPU(t *testing.T) {
	all := topology.CPURange(0, 3)
	tests := []struct {
		name     string
		affinity topology.CPUSet
		last     int
		lengths  []int
		want     topology.CPU
		rule     bsd4.PickCPURule
	}{
		{"shortest allowed", topology.CPUSetOf(1, 2), -1, []int{0, 3, 1, 0}, 2, bsd4.PickCPUShortest},
		{"last CPU kept on a tie", topology.CPUSetOf(1, 2), 2, []int{0, 1, 1, 0}, 2, bsd4.PickCPULast},
		{"last CPU loses to strictly shorter", topology.CPUSetOf(1, 2), 2, []int{0, 0, 1, 0}, 1, bsd4.PickCPUShortest},
		{"last CPU not allowed", topology.CPUSetOf(1, 2), 3, []int{0, 2, 2, 0}, 1, bsd4.PickCPUShortest},
		{"first of equals in CPU order", topology.CPUSetOf(0, 1, 2, 3), -1, []int{1, 1, 1, 1}, 0, bsd4.PickCPUShortest},
		{"empty affinity allows all", topology.CPUSet{}, -1, []int{2, 1, 3, 1}, 1, bsd4.PickCPUShortest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			last, has := topology.CPU(0), tc.last >= 0
			if has {
				last = topology.CPU(tc.last)
			}
			got, why := bsd4.PickCPU(tc.affinity, last, has, all, tc.lengths)
			if got != tc.want || why.CPU != got || why.Rule != tc.rule || why.Length != tc.lengths[got] {
				t.Errorf("PickCPU(%v, last %d, %v) = %v (%v), want %v by rule %d", tc.affinity, tc.last, tc.lengths, got, why, tc.want, tc.rule)
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("PickCPU with a disjoint affinity did not panic")
		}
	}()
	bsd4.PickCPU(topology.CPUSetOf(9), 0, false, all, []int{0, 0, 0, 0})
}

// naivePickCPU is sched_pickcpu as the kernel writes it: CPU_FOREACH over the machine's CPUs,
// skipping those THREAD_CAN_SCHED refuses, starting from td_lastcpu when it is allowed.
func naivePickCPU(affinity topology.CPUSet, last topology.CPU, hasLast bool, cpus topology.CPUSet, lengths []int) (topology.CPU, bsd4.PickCPURule, bool) {
	allowed := func(c topology.CPU) bool { return affinity.IsEmpty() || affinity.Has(c) }
	best, ok := last, hasLast && cpus.Has(last) && allowed(last)
	rule := bsd4.PickCPULast
	for c := range topology.CPU(topology.MaxCPUs) {
		if !cpus.Has(c) || !allowed(c) {
			continue
		}
		if !ok || lengths[c] < lengths[best] {
			best, ok, rule = c, true, bsd4.PickCPUShortest
		}
	}
	return best, rule, ok
}

// TestPickCPUMatchesKernelLoop checks PickCPU against naivePickCPU on random machines (sparse
// CPU ids up to 1024), affinities (empty, a few CPUs, most CPUs, some outside the machine),
// last CPUs (inside and outside the machine and the affinity) and queue lengths with many ties.
func TestPickCPUMatchesKernelLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 5))
	for i := range 20000 {
		n := []int{1, 2, 4, 64, 65, 200, 1024}[rng.IntN(7)]
		var cpus, affinity topology.CPUSet
		for c := range topology.CPU(n) {
			if rng.IntN(8) > 0 {
				cpus.Add(c)
			}
		}
		switch rng.IntN(3) {
		case 1:
			for range 1 + rng.IntN(4) {
				affinity.Add(topology.CPU(rng.IntN(n)))
			}
		case 2:
			for c := range topology.CPU(n) {
				if rng.IntN(4) > 0 {
					affinity.Add(c)
				}
			}
		}
		lengths := make([]int, n)
		for c := range lengths {
			lengths[c] = rng.IntN(3)
		}
		last, hasLast := topology.CPU(rng.IntN(n)), rng.IntN(4) > 0
		want, wantRule, ok := naivePickCPU(affinity, last, hasLast, cpus, lengths)
		if !ok {
			continue // PickCPU panics; TestPickCPU checks that
		}
		got, why := bsd4.PickCPU(affinity, last, hasLast, cpus, lengths)
		wantHasLast := hasLast && cpus.Has(last) && (affinity.IsEmpty() || affinity.Has(last))
		if got != want || why.Rule != wantRule || why.CPU != got || why.Length != lengths[got] || why.HasLast != wantHasLast {
			t.Fatalf("case %d: PickCPU(%v, last %v %t, cpus %v, %v) = %v (%v), want %v by rule %d",
				i, affinity, last, hasLast, cpus, lengths, got, why, want, wantRule)
		}
	}
}
