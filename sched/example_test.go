package sched_test

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// ExampleAttr describes a niced batch job pinned to two CPUs.
func ExampleAttr() {
	a := sched.Attr{Class: sched.Batch, Nice: 10, Affinity: topology.CPUSetOf(2, 3)}
	fmt.Println(a.Class, a.Nice, a.Affinity, a.Validate(), a.Allowed(1), a.Allowed(3))
	// Output: batch 10 2-3 <nil> false true
}

// ExampleParseClass reads a class name from a workload file.
func ExampleParseClass() {
	for _, s := range []string{"fifo", "other", "deadline"} {
		c, err := sched.ParseClass(s)
		fmt.Println(c, err)
	}
	// Output:
	// fifo <nil>
	// normal <nil>
	// normal sched: unknown scheduling class "deadline" (want normal, batch, idle, fifo or rr)
}

// ExampleGroup is seed 004's setting: an idle cgroup for batch work beside a normal one.
func ExampleGroup() {
	online := sched.Group{ID: 1, Parent: sched.RootGroup, Weight: sched.DefaultWeight}
	offline := sched.Group{ID: 2, Parent: sched.RootGroup, Weight: sched.DefaultWeight, Idle: true}
	fmt.Println(online.Validate(), offline.Validate(), offline.Idle)
	// Output: <nil> <nil> true
}

// ExampleConfig is a FreeBSD-like machine clock: hz 1000, stathz 127.
func ExampleConfig() {
	c := sched.Config{Topology: topology.Uniform(1, 1, 1, 4, 2), Hz: 1000, StatHz: 127, Seed: 1}
	fmt.Println(c.Validate(), c.Topology.NumCPUs(), c.RealStatHz())
	// Output: <nil> 8 127
}

// ExampleStopReason shows which stops leave a thread runnable.
func ExampleStopReason() {
	for _, r := range []sched.StopReason{sched.Sleep, sched.Preempt, sched.Yield, sched.Exit} {
		fmt.Print(r, "=", r.Runnable(), " ")
	}
	fmt.Println()
	// Output: sleep=false preempt=true yield=true exit=false
}

// ExampleID prints thread identities as traces show them.
func ExampleID() {
	fmt.Println(sched.ID(0), sched.ID(42))
	// Output: t0 t42
}

// recorder is an Env that prints what a policy asks of the machine.
type recorder struct{}

func (recorder) Resched(cpu topology.CPU) { fmt.Println("resched", cpu) }
func (recorder) Explaining() bool         { return true }
func (recorder) Explain(cpu topology.CPU, tid sched.ID, why string) {
	fmt.Println("explain", cpu, tid, why)
}

// ExampleEnv shows the machine side of the contract: a policy that decides a woken thread must
// preempt CPU 1 explains why (only when the machine records explanations) and asks for the
// reschedule.
func ExampleEnv() {
	var env sched.Env = recorder{}
	woken, cpu := sched.ID(3), topology.CPU(1)
	if env.Explaining() {
		env.Explain(cpu, woken, "woken thread has priority 40 < running thread's 120")
	}
	env.Resched(cpu)
	// Output:
	// explain cpu1 t3 woken thread has priority 40 < running thread's 120
	// resched cpu1
}

// setRecorder is a recorder that can also reschedule a set of CPUs in one call.
type setRecorder struct{ recorder }

func (r setRecorder) ReschedSet(set topology.CPUSet) {
	fmt.Println("resched set", set)
	for c := range set.All() {
		r.Resched(c)
	}
}

// reschedAll reschedules every CPU of set: in one call when env offers it, else one CPU at a
// time in ascending order, which the contract of ReschedSet makes the same thing.
func reschedAll(env sched.Env, set topology.CPUSet) {
	if rs, ok := env.(sched.ReschedSetter); ok {
		rs.ReschedSet(set)
		return
	}
	for c := range set.All() {
		env.Resched(c)
	}
}

// ExampleReschedSetter wakes two idle CPUs, as 4BSD's forward_wakeup does, through an Env that
// reschedules one CPU at a time and through one that takes the set.
func ExampleReschedSetter() {
	idle := topology.CPUSetOf(1, 2)
	reschedAll(recorder{}, idle)
	reschedAll(setRecorder{}, idle)
	// Output:
	// resched cpu1
	// resched cpu2
	// resched set 1-2
	// resched cpu1
	// resched cpu2
}

// ExampleWakeFlags marks the first wake-up of a forked thread whose parent keeps running.
func ExampleWakeFlags() {
	f := sched.WakeFork
	fmt.Println(f&sched.WakeFork != 0, f&sched.WakeSync != 0)
	// Output: true false
}

// A policy's System keeps a Slab of its per-thread records and takes one at each Fork: the
// records come zeroed, a chunk at a time, and stay where they are.
func ExampleSlab() {
	type thread struct {
		id   sched.ID
		prio int
	}
	var slab sched.Slab[thread]
	var threads []*thread
	for i := range 3 {
		t := slab.New()
		t.id, t.prio = sched.ID(i+1), 100+i
		threads = append(threads, t)
	}
	for _, t := range threads {
		fmt.Println(t.id, t.prio)
	}
	fmt.Println(*slab.New() == thread{})
	// Output:
	// t1 100
	// t2 101
	// t3 102
	// true
}
