package cfs_test

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs"
)

// The same workload under classic CFS and both EEVDF versions: two CPU hogs, nice 0 and nice 5,
// for a simulated second at HZ=1000. All three split the CPU by weight, 1024:335; EEVDF's
// 0.75/0.70 ms requests make it switch more often than classic CFS's 6 ms period.
func Example_versions() {
	for _, v := range []string{"v6.5", "v6.6", "v7.1"} {
		p, _ := cfs.Preset(v)
		c := cfs.NewRunQueue(0, p)
		a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 5)
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		c.Schedule(0)
		switches := 0
		for now := uint64(1_000_000); now <= 1_000_000_000; now += 1_000_000 {
			c.Tick(now)
			if prev := c.Curr(); c.NeedResched() && c.Schedule(now) != prev {
				switches++
			}
		}
		fmt.Printf("%v (EEVDF %t): a %d ms, b %d ms, %d switches\n", v, p.Version.EEVDF(),
			a.SumExecRuntime/1_000_000, b.SumExecRuntime/1_000_000, switches)
	}
	// Output:
	// v6.5 (EEVDF false): a 753 ms, b 247 ms, 301 switches
	// v6.6 (EEVDF true): a 753 ms, b 247 ms, 494 switches
	// v7.1 (EEVDF true): a 753 ms, b 247 ms, 494 switches
}

// Three tasks on a v7.1 CPU, one of them running for 1 ms: the average vruntime V is their
// weighted mean, and only the entities at or before it are eligible.
func ExampleAvgVruntime() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p)
	a, b, x := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0), cfs.NewTask("x", cfs.Normal, 5)
	for _, t := range []*cfs.Entity{a, b, x} {
		c.Fork(nil, t, 0)
	}
	c.Schedule(0)
	c.UpdateCurr(1_000_000) // a ran 1 ms
	q := c.Root()
	v := cfs.AvgVruntime(q.Sums())
	fmt.Println("V - a:", int64(v-a.Vruntime), "V - b:", int64(v-b.Vruntime))
	for _, t := range []*cfs.Entity{a, b, x} {
		fmt.Println(t, cfs.VruntimeEligible(q.Sums(), t.Vruntime))
	}
	fmt.Println(cfs.VruntimeEligible(q.Sums(), v), cfs.VruntimeEligible(q.Sums(), v+1))
	// Output:
	// V - a: -570290 V - b: 429710
	// a false
	// b true
	// x true
	// true false
}

// The lag a nice-0 entity may take along when it leaves a queue is clamped: to twice its
// request, at least a tick (v6.6), or the longest request on the queue plus a tick (v7.1). An
// average 5 ms either side of the entity meets the clamp on both sides.
func ExampleEntityLag() {
	for _, v := range []string{"v6.6", "v7.1"} {
		p, _ := cfs.Preset(v)
		c := cfs.NewRunQueue(0, p)
		a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
		b.SetSlice(3_000_000) // ignored by v6.6
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		q := c.Root()
		fmt.Println(v, -cfs.EntityLag(q, a, a.Vruntime-5_000_000, c.Params()), cfs.EntityLag(q, a, a.Vruntime+5_000_000, c.Params()))
	}
	// Output:
	// v6.6 1500000 1500000
	// v7.1 4000000 4000000
}

// EEVDF's virtual deadline, update_deadline's vruntime + calc_delta_fair(slice, se), of a request
// of 0.75 ms made at vruntime 0: nice 0 is the identity, a nice-5 entity's vruntime runs 3.06
// times faster, so its deadline is that much further away. For nice 19 v6.6's multiplication
// by the inverse lands 1 ns short of v7.1's division.
func ExampleCalcDeltaFair_deadline() {
	var v uint64 // the vruntime the request is made at
	fmt.Println(v + cfs.CalcDeltaFair(cfs.DeltaWMult, 750_000, cfs.TaskLoad(cfs.Normal, 0)))
	fmt.Println(v + cfs.CalcDeltaFair(cfs.DeltaWMult, 750_000, cfs.TaskLoad(cfs.Normal, 5)))
	fmt.Println(v + cfs.CalcDeltaFair(cfs.DeltaWMult, 750_000, cfs.TaskLoad(cfs.Normal, 19)))
	fmt.Println(v + cfs.CalcDeltaFair(cfs.DeltaDiv, 750_000, cfs.TaskLoad(cfs.Normal, 19)))
	// Output:
	// 750000
	// 2292537
	// 51199999
	// 51200000
}

// A task that slept with a lag of 3000 ns of virtual time rejoins two nice-0 tasks: PLACE_LAG
// inflates the lag by (W + w)/W = 3/2 so that its own arrival, which pulls the average towards
// it, leaves it with the lag it had.
func ExamplePlaceEntity_eevdf() {
	p, _ := cfs.Preset("v6.6")
	c := cfs.NewRunQueue(0, p)
	c.Fork(nil, cfs.NewTask("a", cfs.Normal, 0), 0)
	c.Fork(nil, cfs.NewTask("b", cfs.Normal, 0), 0)
	x := cfs.NewTask("x", cfs.Normal, 0)
	x.VLag = 3000
	pl := cfs.PlaceEntity(c.Root(), x, false, 0, c.Params())
	fmt.Println("lag", pl.Lag, "vruntime V", int64(pl.Vruntime-pl.V), "deadline +", pl.Deadline-pl.Vruntime)
	// Output: lag 4500 vruntime V -4500 deadline + 750000
}

// The pick: a has run, so it is past the average and not eligible; of b and x, both eligible,
// b's deadline is earlier because x's request counts 3 times as much virtual time.
func ExamplePick_eevdf() {
	for _, v := range []string{"v6.6", "v7.1"} {
		p, _ := cfs.Preset(v)
		c := cfs.NewRunQueue(0, p)
		a, b, x := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0), cfs.NewTask("x", cfs.Normal, 5)
		for _, t := range []*cfs.Entity{a, b, x} {
			c.Fork(nil, t, 0)
		}
		c.Schedule(0)
		c.UpdateCurr(1_000_000)
		se, why := cfs.Pick(c.Root(), nil, c.Params())
		fmt.Println(v, se, why)
	}
	// Output:
	// v6.6 b eligible, earliest virtual deadline
	// v7.1 b eligible, earliest virtual deadline
}

// A task asking for a 0.1 ms slice (sched_attr.sched_runtime) wakes while a default-slice task
// runs: v7.1's PREEMPT_SHORT lets it preempt at once.
func ExampleCheckPreemptWakeup_eevdf() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p)
	hog, lat := cfs.NewTask("hog", cfs.Normal, 0), cfs.NewTask("lat", cfs.Normal, 0)
	lat.SetSlice(100_000)
	c.Fork(nil, hog, 0)
	c.Schedule(0)
	d, why := c.Wakeup(lat, 200_000)
	fmt.Println(d.Explain(why))
	fmt.Println(c.Schedule(200_000))
	// Output:
	// wakeup lat vs hog: preempt: EEVDF picks the wakee (picked lat: eligible, earliest virtual deadline, ignoring slice protection)
	// lat
}

// sched_setattr's runtime is clamped to [0.1 ms, 100 ms] (__setparam_fair); 0 asks for the
// default slice, which the task's next placement fills in.
func ExampleEntity_SetSlice() {
	for _, r := range []uint64{0, 50_000, 3_000_000, 1_000_000_000} {
		e := cfs.NewTask("t", cfs.Normal, 0)
		e.SetSlice(r)
		fmt.Println(e.Slice, e.CustomSlice())
	}
	// Output:
	// 0 false
	// 100000 true
	// 3000000 true
	// 100000000 true
}

func ExampleTickNSec() {
	fmt.Println(cfs.TickNSec(1000), cfs.TickNSec(300), cfs.TickNSec(250), cfs.TickNSec(100))
	// Output: 1000000 3333333 4000000 10000000
}

// sched_setattr on a running task in v7.1: its next requests are 0.3 ms, and the queue's
// shortest and longest slices follow.
func ExampleRunQueue_SetSlice() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p.ForCPUs(8))
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	run := c.Schedule(0)
	fmt.Println(c.SetSlice(run, 300_000, 1000), run.Slice, run.CustomSlice())
	fmt.Println(c.Root().MinSlice(), c.Root().MaxSlice())
	// Output:
	// true 300000 true
	// 300000 2800000
}

// v7.1 keeps a task that goes to sleep with negative lag on its queue until the lag is burnt
// off: it is delayed, and leaves when the pick reaches it.
func ExampleRunQueue_DequeueDelayed() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p)
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)     // a ran 1 ms: its request is served
	c.Schedule(1_000_000) // b runs
	c.Sleep(a, 1_000_000) // a is 0.5 ms ahead of the average
	fmt.Println(a.Delayed(), a.OnRQ(), a.VLag, c.Root().HNrRunning())
	fmt.Println(c.DequeueDelayed(a, 1_000_000), a.Delayed(), a.OnRQ(), c.Root().HNrRunning())
	// Output:
	// true true -500000 2
	// true false false 1
}

// An exiting task is never delayed (DEQUEUE_SPECIAL): a, which a sleep would leave queued, is
// gone at once.
func ExampleRunQueue_Exit() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p)
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	c.Schedule(1_000_000) // b runs; a, 0.5 ms ahead of the average, is not eligible
	c.Exit(a, 1_000_000)
	fmt.Println(a.Delayed(), a.OnRQ(), c.Root().HNrRunning())
	// Output: false false 1
}

// A delayed sleeper stays counted in h_nr_running but leaves h_nr_runnable, which v7.1's load
// balancer reads; its wakeup counts it again.
func ExampleQueue_HNrRunnable() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p)
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	c.Schedule(1_000_000)
	c.Sleep(a, 1_000_000)
	fmt.Println(a.Delayed(), c.Root().HNrRunning(), c.Root().HNrRunnable())
	c.Wakeup(a, 1_100_000)
	fmt.Println(a.Delayed(), c.Root().HNrRunning(), c.Root().HNrRunnable())
	// Output:
	// true 2 1
	// false 2 2
}

// v7.1 protects a freshly picked entity from preemption until its vruntime reaches VProt
// (set_protect_slice): its deadline, or one shortest-queued-slice later if that comes first.
// Alone, a is protected up to its deadline, half a 0.70 ms request away (PLACE_DEADLINE_INITIAL);
// once b, asking for 0.2 ms at a time, shares the queue, a's next pick protects it for b's
// slice only, before its deadline.
func ExampleRunQueue_Schedule_protection() {
	p, _ := cfs.Preset("v7.1")
	c := cfs.NewRunQueue(0, p)
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	b.SetSlice(200_000)
	c.Fork(nil, a, 0)
	c.Schedule(0)
	fmt.Println(a.VProt-a.Vruntime, a.Deadline-a.Vruntime, cfs.Before(a.Vruntime, a.VProt))
	c.Fork(a, b, 0) // a shorter slice joins; a's protection is recomputed at its next pick
	for now := uint64(100_000); now <= 300_000; now += 100_000 {
		c.Tick(now)
		if c.NeedResched() {
			fmt.Println(now, c.Schedule(now))
		}
	}
	fmt.Println(a.VProt-a.Vruntime, a.Deadline-a.Vruntime)
	// Output:
	// 350000 350000 true
	// 100000 b
	// 200000 b
	// 300000 a
	// 200000 250000
}

// A state only explicit construction reaches: a group entity at MAX_SHARES (2^28) and a nice-0
// task 100 ns to its right. The task's deadline is earlier, but the heavy entity holds the
// average at its own vruntime, so the task is not eligible.
func ExampleNewRunQueueAt() {
	p, _ := cfs.Preset("v7.1")
	const z = 1 << 50
	c, ts, _, err := cfs.NewRunQueueAt(0, p, z, []cfs.EntityState{
		{Name: "task", Weight: 1 << 20, Vruntime: z + 100, Deadline: z + 150},
		{Name: "group", Weight: 1 << 28, Vruntime: z, Deadline: z + 200},
	}, nil)
	if err != nil {
		panic(err)
	}
	q := c.Root()
	fmt.Println(int64(cfs.AvgVruntime(q.Sums())-z), cfs.VruntimeEligible(q.Sums(), ts[0].Vruntime))
	fmt.Println(cfs.Pick(q, nil, c.Params()))
	// Output:
	// 0 false
	// group eligible, earliest virtual deadline
}

// v7.1's pick from explicit values: the running entity is eligible and before its protection
// point, so it keeps the CPU although a waiting entity has an earlier deadline; a wakeup with
// a shorter slice (PREEMPT_SHORT) asks without the protection.
func ExamplePickEligible() {
	p, _ := cfs.Preset("v7.1")
	const z = 1 << 50
	queued := []cfs.EntityState{
		{Weight: 1 << 20, Vruntime: z - 1000, Deadline: z + 100},
		{Weight: 1 << 20, Vruntime: z + 1000, Deadline: z + 200},
	}
	curr := &cfs.EntityState{Weight: 1 << 20, Vruntime: z, Deadline: z + 300, VProt: z + 500}
	// S = -1000·2^20 + 1000·2^20 over the timeline, W = 2^21; the running entity is at key 0.
	s := cfs.Sums{Version: cfs.V71, Zero: z, SumWeight: 2 << 20, Curr: true, CurrVruntime: z, CurrWeight: 1 << 20}
	fmt.Println(cfs.PickEligible(s, queued, curr, true, -1, true, &p))
	fmt.Println(cfs.PickEligible(s, queued, curr, true, -1, false, &p))
	// Output:
	// -1 running entity: slice protection holds
	// 0 eligible, earliest virtual deadline
}
