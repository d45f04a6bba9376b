package cfs_test

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs"
)

// Two CPU hogs, nice 0 and nice 5, share one CPU for a simulated second at HZ=1000: CFS gives
// them CPU time in the ratio of their weights, 1024:335.
func Example() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 5)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	for now := uint64(1_000_000); now <= 1_000_000_000; now += 1_000_000 {
		c.Tick(now)
		if c.NeedResched() {
			c.Schedule(now)
		}
	}
	fmt.Printf("a ran %d ms, b ran %d ms (weights %d:%d)\n",
		a.SumExecRuntime/1_000_000, b.SumExecRuntime/1_000_000, cfs.Weight(0), cfs.Weight(5))
	// Output: a ran 753 ms, b ran 247 ms (weights 1024:335)
}

func ExampleWeight() {
	for _, nice := range []int{-1, 0, 1} {
		fmt.Println(nice, cfs.Weight(nice), cfs.TaskLoad(cfs.Normal, nice).Inverse())
	}
	// Output:
	// -1 1277 3363326
	// 0 1024 4194304
	// 1 820 5237765
}

func ExampleCalcDeltaFair() {
	// One millisecond of run time in virtual time: light entities age fast.
	for _, e := range []*cfs.Entity{
		cfs.NewTask("nice-5", cfs.Normal, -5), cfs.NewTask("nice0", cfs.Normal, 0),
		cfs.NewTask("nice19", cfs.Normal, 19), cfs.NewTask("idle", cfs.Idle, 0),
	} {
		fmt.Println(e, cfs.CalcDeltaFair(cfs.DeltaWMult, 1_000_000, e.Load()))
	}
	// Output:
	// nice-5 328099
	// nice0 1000000
	// nice19 68266666
	// idle 341333333
}

func ExampleCalcDelta() {
	// Half of a 6 ms period for one of two nice-0 tasks: v6.5 multiplies by the sum's computed
	// inverse and lands 2 ns short; v7.1 divides.
	sum := cfs.LoadWeight{Weight: 2 * cfs.NiceZeroLoad}
	fmt.Println(cfs.CalcDelta(cfs.DeltaWMult, 6_000_000, cfs.NiceZeroLoad, sum))
	fmt.Println(cfs.CalcDelta(cfs.DeltaDiv, 6_000_000, cfs.NiceZeroLoad, sum))
	// Output:
	// 2999998
	// 3000000
}

func ExamplePreset() {
	for _, n := range []int{1, 2, 4, 8, 64} {
		p, _ := cfs.Preset("v6.5")
		p = p.ForCPUs(n)
		fmt.Println(n, p.Latency, p.MinGranularity, p.WakeupGranularity)
	}
	// Output:
	// 1 6000000 750000 1000000
	// 2 12000000 1500000 2000000
	// 4 18000000 2250000 3000000
	// 8 24000000 3000000 4000000
	// 64 24000000 3000000 4000000
}

func ExamplePresets() {
	for _, name := range cfs.Presets() {
		p, err := cfs.Preset(name)
		fmt.Println(name, p.Name, p.Version.EEVDF(), err)
	}
	_, err := cfs.Preset("v6.7")
	fmt.Println(err)
	// Output:
	// v6.5 cfs-v6.5 false <nil>
	// v6.6 cfs-v6.6 true <nil>
	// v6.18 cfs-v6.18 true <nil>
	// v7.1 cfs-v7.1 true <nil>
	// cfs: unknown preset "v6.7" (known: v6.5, v6.6, v6.18, v7.1)
}

// Seed 004's proposed tick rule is a rule of classic CFS's tick; EEVDF has no such rule, so
// asking for it there is an error rather than a run that silently ignores it.
func ExampleParams_Validate() {
	for _, name := range []string{"v6.5", "v7.1"} {
		p, _ := cfs.Preset(name)
		p.FavorNonIdleTick = true
		fmt.Println(name, p.Validate())
	}
	// Output:
	// v6.5 <nil>
	// v7.1 cfs: Params.FavorNonIdleTick has no meaning in v7.1: a classic CFS parameter, and EEVDF has no latency period, granularities or tick preemption rule
}

func ExampleNew() {
	p, _ := cfs.Preset("v6.6")
	p.DelayDequeue = true // a v7.1 feature
	_, err := cfs.New(p)
	fmt.Println(err)
	// Output: cfs: Params.DelayDequeue has no meaning in v6.6: a feature of v6.12 and later
}

// get_update_sysctl_factor on 6 CPUs: 1+ilog2(6) with the default logarithmic scaling, 6 with
// linear scaling, 1 without; the latency scales by that factor.
func ExampleParams_ForCPUs() {
	p := cfs.DefaultParams()
	var f []uint64
	for _, s := range []cfs.TunableScaling{cfs.ScalingLog, cfs.ScalingLinear, cfs.ScalingNone} {
		p.Scaling = s
		f = append(f, p.ForCPUs(6).Latency/p.Latency)
	}
	fmt.Println(f[0], f[1], f[2])
	// Output: 3 6 1
}

func ExamplePeriod() {
	p := cfs.DefaultParams()
	fmt.Println(cfs.Period(8, &p), cfs.Period(9, &p))
	// Output: 6000000 6750000
}

func ExampleSlice() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 1)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	p := c.Params()
	fmt.Println(cfs.Slice(c.Root(), a, p), cfs.Slice(c.Root(), b, p))
	// sched_vslice: the slice in the entity's virtual time.
	fmt.Println(cfs.CalcDeltaFair(p.CalcDelta, cfs.Slice(c.Root(), a, p), a.Load()), cfs.CalcDeltaFair(p.CalcDelta, cfs.Slice(c.Root(), b, p), b.Load()))
	// Output:
	// 3331885 2668111
	// 3331885 3331884
}

func ExampleBefore() {
	// Vruntimes wrap around: the initial min_vruntime, 2^64 - 2^20, is before 0.
	fmt.Println(cfs.Before(cfs.InitialMinVruntime, 0), cfs.MaxVruntime(cfs.InitialMinVruntime, 5), cfs.MinVruntime(5, cfs.InitialMinVruntime))
	// Output: true 5 18446744073708503040
}

func ExamplePlaceEntity() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	runner := cfs.NewTask("runner", cfs.Normal, 0)
	c.Fork(nil, runner, 0)
	c.Schedule(0)
	c.Tick(50_000_000)
	q := c.Root()
	sleeper, idle := cfs.NewTask("sleeper", cfs.Normal, 0), cfs.NewTask("idle", cfs.Idle, 0)
	// A sleeper with an old vruntime gets half a latency of credit, an idle one half a
	// minimum granularity.
	fmt.Println(int64(cfs.PlaceEntity(q, sleeper, false, 50_000_000, c.Params()).Vruntime - q.MinVruntime()))
	fmt.Println(int64(cfs.PlaceEntity(q, idle, false, 50_000_000, c.Params()).Vruntime - q.MinVruntime()))
	// Output:
	// -3000000
	// -375000
}

func ExamplePick() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	// Each task forked starts one virtual slice after min_vruntime, and the slice shrinks as
	// the queue fills: a at +6 ms, b at +3 ms, c at +2 ms.
	for _, n := range []string{"a", "b", "c"} {
		c.Fork(nil, cfs.NewTask(n, cfs.Normal, 0), 0)
	}
	se, why := cfs.Pick(c.Root(), nil, c.Params())
	fmt.Println(se, "-", why)
	// Output: c - leftmost: smallest vruntime
}

func ExampleCheckPreemptTick() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	c.Fork(nil, cfs.NewTask("a", cfs.Normal, 0), 0)
	c.Fork(nil, cfs.NewTask("b", cfs.Normal, 0), 0)
	c.Schedule(0)
	for _, now := range []uint64{500_000, 2_000_000, 3_000_000} {
		d, why := c.Tick(now)
		fmt.Println(d.Explain(why))
	}
	// Output:
	// tick b: keep running: ran less than the minimum granularity (ran 500000 ns, ideal 2999998 ns)
	// tick b: keep running: vruntime still before the leftmost (ran 2000000 ns, ideal 2999998 ns, lead -1000000 ns over a)
	// tick b: resched: ran longer than its ideal slice (ran 3000000 ns, ideal 2999998 ns)
}

func ExampleCheckPreemptWakeup() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	batch := cfs.NewTask("batch", cfs.Normal, 0)
	c.Fork(nil, batch, 0)
	c.Schedule(0)
	c.Tick(20_000_000)
	// A SCHED_IDLE wakee never preempts; a normal one with a sleeper's credit does.
	for _, w := range []*cfs.Entity{cfs.NewTask("idle", cfs.Idle, 0), cfs.NewTask("editor", cfs.Normal, 0)} {
		d, why := c.Wakeup(w, 20_000_000)
		fmt.Println(d.Explain(why))
	}
	// Output:
	// wakeup idle vs batch: no preemption: SCHED_BATCH/SCHED_IDLE wakee never wakeup-preempts
	// wakeup editor vs batch: preempt: vruntime lead beyond wakeup granularity (lead 3000000 ns, granularity 1000000 ns)
}

// wakeup_preempt_entity's rule, judged between a running nice-0 task and a wakee whose vruntime
// is ahead by lead: the wakee preempts only with a lead beyond the wakeup granularity (1 ms)
// converted into its own virtual time (wakeup_gran), which a nice-10 wakee sees as 9.3 ms.
func ExampleCheckPreemptWakeup_granularity() {
	const z = 1 << 40
	for _, w := range []struct {
		nice int
		lead uint64
	}{{0, 0}, {0, 1_000_000}, {0, 1_000_001}, {10, 9_309_091}} {
		c, ts, _, err := cfs.NewRunQueueAt(0, cfs.DefaultParams(), z,
			[]cfs.EntityState{{Name: "wakee", Weight: cfs.TaskLoad(cfs.Normal, w.nice).Weight, Vruntime: z}},
			&cfs.EntityState{Name: "curr", Weight: cfs.NiceZeroLoad, Vruntime: z + w.lead})
		if err != nil {
			panic(err)
		}
		d, why := cfs.CheckPreemptWakeup(c, ts[0], false, c.Params())
		fmt.Println(d.Explain(why))
	}
	// Output:
	// wakeup wakee vs curr: no preemption: vruntime lead within wakeup granularity (lead 0 ns, granularity 1000000 ns)
	// wakeup wakee vs curr: no preemption: vruntime lead within wakeup granularity (lead 1000000 ns, granularity 1000000 ns)
	// wakeup wakee vs curr: preempt: vruntime lead beyond wakeup granularity (lead 1000001 ns, granularity 1000000 ns)
	// wakeup wakee vs curr: preempt: vruntime lead beyond wakeup granularity (lead 9309091 ns, granularity 9309090 ns)
}

func ExampleGroup() {
	// cgroup v2: a latency-sensitive service and a batch job in an idle cgroup (cpu.idle = 1).
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	online, offline := cfs.NewGroup("online", nil, 1), cfs.NewGroup("offline", nil, 1)
	offline.SetIdle(true)
	svc, job := cfs.NewTask("svc", cfs.Normal, 0), cfs.NewTask("job", cfs.Normal, 0)
	svc.SetGroup(online)
	job.SetGroup(offline)
	c.Fork(nil, job, 0)
	c.Schedule(0)
	fmt.Println(offline.Shares(), offline.Entity(c).IsIdle())
	d, why := c.Wakeup(svc, 1_000_000)
	fmt.Println(d.Explain(why))
	// Output:
	// 3072 true
	// wakeup online vs offline: preempt: non-idle side preempts idle side
}

func ExampleGroup_SetCPUWeight() {
	g := cfs.NewGroup("g", nil, 1)
	fmt.Println(g.SetCPUWeight(50), g.Shares(), g.CPUWeight())
	fmt.Println(g.SetCPUWeight(0))
	// Output:
	// <nil> 524288 50
	// cfs: cpu.weight 0 of group "g" outside [1, 10000]
}

func ExampleGroupShares() {
	// A group with default shares whose load is split 1:3 between two CPUs.
	fmt.Println(cfs.GroupShares(cfs.NiceZeroLoad, 1024, 3072), cfs.GroupShares(cfs.NiceZeroLoad, 3072, 1024))
	// Output: 262144 786432
}

func ExampleTaskLoad() {
	fmt.Println(cfs.TaskLoad(cfs.Normal, 0), cfs.TaskLoad(cfs.Idle, 0))
	// Output: {1048576 4194304} {3072 1431655765}
}

func ExampleLoadWeight_Inverse() {
	task := cfs.TaskLoad(cfs.Normal, 0)
	sum := cfs.LoadWeight{Weight: task.Weight} // a sum of loads carries no cached inverse
	fmt.Println(task.Inverse(), sum.Inverse())
	// Output: 4194304 4194303
}

func ExampleRunQueue_SetNice() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	a := cfs.NewTask("a", cfs.Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, cfs.NewTask("b", cfs.Normal, 0), 0)
	c.Schedule(0)
	fmt.Println(c.SetNice(a, 10, 1_000_000), a.Load().Weight)
	// Output: false 112640
}

func ExampleRunQueue_Yield() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	c.Fork(nil, cfs.NewTask("a", cfs.Normal, 0), 0)
	c.Fork(nil, cfs.NewTask("b", cfs.Normal, 0), 0)
	run := c.Schedule(0)
	c.Yield(100)
	fmt.Println(run, c.Root().Skip())
	// Output: b b
}

func ExampleRunQueue_Sleep() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	sleeper := c.Schedule(0)
	c.Sleep(sleeper, 1_000_000) // blocks after 1 ms
	fmt.Println(c.NeedResched(), c.Schedule(1_000_000), c.Root().HNrRunning())
	// 50 ms later it wakes with half a latency period of credit and preempts the runner.
	c.Tick(51_000_000)
	d, _ := c.Wakeup(sleeper, 51_000_000)
	fmt.Println(d.Preempt, int64(sleeper.Vruntime-c.Root().MinVruntime()))
	// Output:
	// true a 1
	// true -3000000
}

func ExampleRunQueue_IdleOnly() {
	c := cfs.NewRunQueue(0, cfs.DefaultParams())
	c.Fork(nil, cfs.NewTask("backup", cfs.Idle, 0), 0)
	fmt.Println(c.IdleOnly())
	// Output: true
}
