package bsd4_test

import (
	"fmt"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// printEnv is a sched.Env that prints what the scheduler asks for.
type printEnv struct{ pending []topology.CPU }

func (e *printEnv) Resched(cpu topology.CPU)               { e.pending = append(e.pending, cpu) }
func (e *printEnv) Explaining() bool                       { return false }
func (e *printEnv) Explain(topology.CPU, sched.ID, string) {}

// Example runs three CPU hogs on two CPUs for ten simulated seconds: the global run queue
// shares the CPUs among them, and their priorities sink as their estcpu grows.
func Example() {
	env := &printEnv{}
	s, err := bsd4.New(bsd4.DefaultParams())
	if err != nil {
		panic(err)
	}
	cfg := sched.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000, StatHz: 127, Seed: 1}
	if err := s.Start(cfg, env); err != nil {
		panic(err)
	}
	running := []sched.ID{-1, -1}
	settle := func(now int64) {
		for len(env.pending) > 0 {
			c := env.pending[0]
			env.pending = env.pending[1:]
			if running[c] >= 0 {
				s.Stop(now, c, running[c], sched.Preempt)
				running[c] = -1
			}
			if id, ok := s.Pick(now, c); ok {
				running[c] = id
			}
		}
	}
	for id := range sched.ID(3) {
		s.Fork(0, id, -1, 0, sched.Attr{})
		s.Wakeup(0, id, 0, sched.WakeFork)
		settle(0)
	}
	ran := map[sched.ID]int{}
	for tick := int64(1); tick <= 10*127; tick++ {
		now := tick * 1_000_000_000 / 127
		for c := range topology.CPU(2) {
			ran[running[c]]++
			s.Tick(now, c)
		}
		settle(now)
	}
	for id := range sched.ID(3) {
		t, _ := s.Thread(id)
		fmt.Printf("%v ran %d of 1270 ticks, estcpu %d, pri %d\n", id, ran[id], t.EstCPU, t.Pri)
	}
	fmt.Println("load average", s.System().LoadAvg()[0])
	// Output:
	// t0 ran 850 of 1270 ticks, estcpu 76, pri 80
	// t1 ran 849 of 1270 ticks, estcpu 78, pri 80
	// t2 ran 841 of 1270 ticks, estcpu 75, pri 80
	// load average 0.46
}

// ExampleDecayCPU shows 4BSD forgetting CPU use more slowly on a busier machine: one second's
// decay keeps 2/3 of estcpu at load 1 and 4/5 at load 2.
func ExampleDecayCPU() {
	for _, load := range []bsd4.Fixpt{bsd4.FScale / 2, bsd4.FScale, 2 * bsd4.FScale} {
		fmt.Printf("load %v: 300 -> %d\n", load, bsd4.DecayCPU(bsd4.LoadFactor(load), 300))
	}
	// Output:
	// load 0.50: 300 -> 150
	// load 1.00: 300 -> 200
	// load 2.00: 300 -> 240
}

// ExampleUpdatePri shows a sleeper's estcpu at wake-up: the decays it missed are applied at
// the current load, and on an almost idle machine it is forgiven entirely.
func ExampleUpdatePri() {
	for _, slp := range []int32{2, 3, 5, 10} {
		fmt.Printf("slept %2d s at load 1.00: estcpu 300 -> %d\n", slp, bsd4.UpdatePri(300, slp, bsd4.FScale))
	}
	fmt.Println("slept 2 s at load 0.00: estcpu 300 ->", bsd4.UpdatePri(300, 2, 0))
	// Output:
	// slept  2 s at load 1.00: estcpu 300 -> 300
	// slept  3 s at load 1.00: estcpu 300 -> 200
	// slept  5 s at load 1.00: estcpu 300 -> 88
	// slept 10 s at load 1.00: estcpu 300 -> 10
	// slept 2 s at load 0.00: estcpu 300 -> 0
}

// ExampleResetPriority shows that the same estcpu is a different priority on a machine of a
// different size, because INVERSE_ESTCPU_WEIGHT is 8 per CPU.
func ExampleResetPriority() {
	for _, ncpu := range []int{1, 2, 8} {
		iew := bsd4.InverseEstcpuWeight(ncpu)
		fmt.Printf("%d CPUs: estcpu 240 nice 0 -> pri %d\n", ncpu, bsd4.ResetPriority(240, 0, iew, bsd4.LayoutMain()))
	}
	// Output:
	// 1 CPUs: estcpu 240 nice 0 -> pri 106
	// 2 CPUs: estcpu 240 nice 0 -> pri 91
	// 8 CPUs: estcpu 240 nice 0 -> pri 79
}

// ExampleInverseEstcpuWeight shows the estcpu ceiling growing with the machine.
func ExampleInverseEstcpuWeight() {
	for _, ncpu := range []int{1, 4} {
		iew := bsd4.InverseEstcpuWeight(ncpu)
		fmt.Printf("%d CPUs: IEW %d, ESTCPULIM %d (main), %d (64 queues)\n", ncpu, iew,
			bsd4.ESTCPULim(1<<20, iew, runq.NoFold), bsd4.ESTCPULim(1<<20, iew, runq.LegacyFold))
	}
	// Output:
	// 1 CPUs: IEW 8, ESTCPULIM 319 (main), 295 (64 queues)
	// 4 CPUs: IEW 32, ESTCPULIM 1279 (main), 1183 (64 queues)
}

// ExampleEstCPUTick charges a running thread one statistics tick at a time; its priority is
// recomputed each time estcpu crosses a multiple of IEW.
func ExampleEstCPUTick() {
	e := uint32(5)
	for range 4 {
		var reprio bool
		e, reprio = bsd4.EstCPUTick(e, 8, runq.NoFold)
		fmt.Println(e, reprio)
	}
	// Output:
	// 6 false
	// 7 false
	// 8 true
	// 9 false
}

// ExampleSchedCPU follows one thread through schedcpu: a second of running, then sleep.
func ExampleSchedCPU() {
	u := bsd4.Usage{EstCPU: 127, CPTicks: 127}
	u, re := bsd4.SchedCPU(u, true, bsd4.FScale, 127)
	fmt.Printf("ran:        %+v recompute=%t\n", u, re)
	u, re = bsd4.SchedCPU(u, false, bsd4.FScale, 127)
	fmt.Printf("asleep 1 s: %+v recompute=%t\n", u, re)
	u, re = bsd4.SchedCPU(u, false, bsd4.FScale, 127)
	fmt.Printf("asleep 2 s: %+v recompute=%t\n", u, re)
	// Output:
	// ran:        {EstCPU:84 PctCPU:0.05 CPTicks:0 SlpTime:0} recompute=true
	// asleep 1 s: {EstCPU:56 PctCPU:0.05 CPTicks:0 SlpTime:1} recompute=true
	// asleep 2 s: {EstCPU:56 PctCPU:0.04 CPTicks:0 SlpTime:2} recompute=false
}

// ExampleDecayPctCPU shows %CPU, as ps(1) prints it, rising for a thread that runs all the time.
func ExampleDecayPctCPU() {
	var pct bsd4.Fixpt
	for s := 1; s <= 60; s++ {
		pct = bsd4.DecayPctCPU(pct, 127, 127)
		if s == 1 || s == 20 || s == 60 {
			fmt.Printf("after %2d s: %d%%\n", s, pct*100/bsd4.FScale)
		}
	}
	// Output:
	// after  1 s: 4%
	// after 20 s: 62%
	// after 60 s: 94%
}

// ExampleLoadAvg_Update samples the load average of a machine with two runnable threads every 5
// seconds for a minute.
func ExampleLoadAvg_Update() {
	var l bsd4.LoadAvg
	for range 12 {
		l = l.Update(2)
	}
	fmt.Println(l[0], l[1], l[2])
	// Output: 1.26 0.36 0.13
}

// ExampleLoadAvg_Update32 shows why FreeBSD 9's u_int load average misreports a machine with
// about 1,100 runnable threads, which current kernels' 64-bit arithmetic gets right.
func ExampleLoadAvg_Update32() {
	full := bsd4.LoadAvg{1100 * bsd4.FScale, 1100 * bsd4.FScale, 1100 * bsd4.FScale}
	fmt.Println(full.Update(1100)[0], full.Update32(1100)[0])
	// Output: 1100.00 76.00
}

// ExampleLoadavIntervalTicks shows FreeBSD 9's load-average jitter, in whole ticks at hz 100.
func ExampleLoadavIntervalTicks() {
	fmt.Println(bsd4.LoadavIntervalTicks(0, 100), bsd4.LoadavIntervalTicks(200, 100), bsd4.LoadavIntervalTicks(201, 100))
	// Output: 4000000000 6000000000 4000000000
}

// ExampleLoadavInterval shows the 4-6 s jitter of load-average sampling.
func ExampleLoadavInterval() {
	fmt.Println(bsd4.LoadavInterval(0), bsd4.LoadavInterval(2_000_000))
	// Output: 4000000000 6000000000
}

// ExamplePick shows sched_choose preferring the CPU's own queue only when it is strictly better,
// and runq_fuzz preferring a thread that last ran on this CPU.
func ExamplePick() {
	var global, own runq.Runq[bsd4.Thread]
	a, b := bsd4.NewThread(1, 80), bsd4.NewThread(2, 80)
	b.SetLastCPU(3)
	global.Add(80, &a.Link)
	global.Add(80, &b.Link)
	c := bsd4.NewThread(3, 80)
	own.Add(80, &c.Link)
	p := bsd4.DefaultParams()
	_, why := bsd4.Pick(&global, &own, 3, &p)
	fmt.Println(why)
	p.RunqFuzz = 2
	_, why = bsd4.Pick(&global, &own, 3, &p)
	fmt.Println(why)
	own.Remove(&c.Link)
	c.Pri = 79
	own.Add(79, &c.Link)
	p.RunqFuzz = 1
	_, why = bsd4.Pick(&global, &own, 3, &p)
	fmt.Println(why)
	// Output:
	// cpu3 runs t1 from the global queue (pri 80 is not worse than per-CPU t3 pri 80; ties go to the global queue)
	// cpu3 runs t2 from the global queue (pri 80 is not worse than per-CPU t3 pri 80; ties go to the global queue, runq_fuzz preferred it for having last run here)
	// cpu3 runs t3 from its per-CPU queue (pri 79 beats global t1 pri 80)
}

// ExampleShouldPreempt shows that under GENERIC's options a time-sharing thread never preempts
// another at once, while anything preempts the idle thread.
func ExampleShouldPreempt() {
	p := bsd4.DefaultParams()
	for _, c := range [][2]uint8{{60, 120}, {120, bsd4.MaxIdle}, {4, 120}} {
		_, why := bsd4.ShouldPreempt(c[0], c[1], &p)
		fmt.Println(why)
	}
	p.FullPreemption = true
	_, why := bsd4.ShouldPreempt(60, 120, &p)
	fmt.Println(why)
	// Output:
	// pri 60 does not preempt pri 120: only interrupt threads preempt without FULL_PREEMPTION
	// pri 120 preempts pri 255: the CPU runs an idle-priority thread
	// pri 4 preempts pri 120: interrupt-thread priority
	// pri 60 preempts pri 120: FULL_PREEMPTION: any better priority
}

// ExampleWakeCPU shows the three ways sched_add tells CPUs about a new thread.
func ExampleWakeCPU() {
	p := bsd4.DefaultParams()
	idle := topology.CPUSetOf(2, 3)
	for _, in := range []bsd4.WakeInput{
		{Pri: 90, Self: 0, SelfPri: 100, Idle: &idle},
		{Pri: 90, Self: 0, SelfPri: 100},
		{Pri: 90, PerCPU: true, Queue: 1, QueuePri: 100, Self: 0, SelfPri: 100},
	} {
		_, why := bsd4.WakeCPU(&in, &p)
		fmt.Println(why)
	}
	// Output:
	// pri 90 queued on the global queue by cpu0: forward_wakeup: IPI to the idle CPUs 2-3
	// pri 90 queued on the global queue by cpu0: maybe_resched: reschedule this CPU at its next AST (pri 90 does not preempt pri 100: only interrupt threads preempt without FULL_PREEMPTION)
	// pri 90 queued on cpu1's queue by cpu0: kick_other_cpu: NEEDRESCHED and IPI_AST 1
}

// ExamplePickCPU places a thread allowed on CPUs 1 and 2 on the shorter of their queues.
func ExamplePickCPU() {
	lengths := []int{0, 2, 1, 0}
	_, why := bsd4.PickCPU(topology.CPUSetOf(1, 2), 1, true, topology.CPURange(0, 3), lengths)
	fmt.Println(why)
	// Output: cpu2: shortest allowed queue (1 queued; last cpu1)
}

// ExampleSliceTick counts down a 3-tick slice.
func ExampleSliceTick() {
	slice := int32(3)
	for range 3 {
		_, why := bsd4.SliceTick(slice, 3)
		slice = why.Left
		fmt.Println(why)
	}
	// Output:
	// 2 of 3 stathz ticks left
	// 1 of 3 stathz ticks left
	// slice of 3 stathz ticks used up; refilled
}

// ExampleSwitchTick shows FreeBSD 9's per-CPU quantum: 100 hz ticks after the last switch.
func ExampleSwitchTick() {
	for _, ticks := range []int32{1094, 1102} {
		_, why := bsd4.SwitchTick(ticks, 1000, 100)
		fmt.Println(why)
	}
	// Output:
	// 6 of 100 hz ticks since the last context switch left
	// quantum of 100 hz ticks since the last context switch used up
}

// ExampleClassPriority maps rtprio(2) levels into FreeBSD's real-time range (rtp_to_pri), on
// the main layout and on the 2011 one, whose 64 queues fold four levels into one.
func ExampleClassPriority() {
	for _, l := range []int{0, 1, 3, 4, 31} {
		pri, _ := bsd4.ClassPriority(sched.FIFO, l, sched.RTFreeBSD, bsd4.LayoutMain())
		old, _ := bsd4.ClassPriority(sched.FIFO, l, sched.RTFreeBSD, bsd4.Layout2011())
		fmt.Printf("rtprio %2d -> %d (2011: %d, queue %d)\n", l, pri, old, old/4)
	}
	// Output:
	// rtprio  0 -> 8 (2011: 48, queue 12)
	// rtprio  1 -> 9 (2011: 49, queue 12)
	// rtprio  3 -> 11 (2011: 51, queue 12)
	// rtprio  4 -> 12 (2011: 52, queue 13)
	// rtprio 31 -> 39 (2011: 79, queue 19)
}

// ExampleFreeBSD9Params compares the presets.
func ExampleFreeBSD9Params() {
	for _, p := range []bsd4.Params{bsd4.DefaultParams(), bsd4.FreeBSD14Params(), bsd4.FreeBSD9Params()} {
		fmt.Printf("%-9s quantum %-11v RQ_PPQ %d PUSER %d\n", p.Name, p.Quantum, p.Fold, p.Layout.MinTimeshare)
	}
	// Output:
	// 4bsd-main quantum slice       RQ_PPQ 1 PUSER 56
	// 4bsd-14   quantum slice       RQ_PPQ 4 PUSER 88
	// 4bsd-9    quantum switchticks RQ_PPQ 4 PUSER 120
}

// ExamplePreset lists the presets and loads one by name.
func ExamplePreset() {
	fmt.Println(bsd4.Presets())
	p, _ := bsd4.Preset("freebsd9")
	fmt.Println(p.Name, p.Quantum)
	_, err := bsd4.Preset("ule")
	fmt.Println(err)
	// Output:
	// [freebsd14 freebsd9 main]
	// 4bsd-9 switchticks
	// bsd4: unknown preset "ule" (known: freebsd14, freebsd9, main)
}

// ExampleScheduler_CheckAttr shows which attributes 4BSD runs as asked.
func ExampleScheduler_CheckAttr() {
	s, _ := bsd4.New(bsd4.FreeBSD9Params())
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.RR, RTPrio: 0, RTScale: sched.RTFreeBSD}))
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.RR, RTPrio: 99}))
	fmt.Println(s.CheckAttr(sched.Attr{Group: 2}))
	// Output:
	// <nil>
	// bsd4: rr priority 99 is on the linux scale; FreeBSD's rtprio(2) takes 0..31 (RTScale freebsd)
	// bsd4: no group scheduling in 4BSD (group 2)
}

// ExampleSystem_Snapshot shows the picture the course draws of 4BSD: one hog on one CPU, its
// estcpu and priority after a simulated second, and the global queue it left empty. %CPU is
// still small: ts_pctcpu forgets only 1/20 a second (ccpu = exp(-1/20)), so it rises slowly.
func ExampleSystem_Snapshot() {
	s, err := bsd4.New(bsd4.DefaultParams())
	if err != nil {
		panic(err)
	}
	env := &printEnv{}
	if err := s.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000, StatHz: 127, Seed: 1}, env); err != nil {
		panic(err)
	}
	s.Fork(0, 0, -1, 0, sched.Attr{})
	s.Wakeup(0, 0, 0, sched.WakeFork)
	s.Pick(0, 0)
	for tick := int64(1); tick <= 127; tick++ {
		s.Tick(tick*1_000_000_000/127, 0)
	}
	st := s.System().Snapshot()
	th := st.Threads[0]
	fmt.Printf("cpu0 runs %s; global queue holds %d\n", st.CPUs[0].Running, st.Global.Len)
	fmt.Printf("%s %s pri %d estcpu %d pctcpu %s%%\n", th.Name, th.State, th.Pri, th.EstCPU, th.PctCPU)
	// Output:
	// cpu0 runs t0; global queue holds 0
	// t0 running pri 78 estcpu 17 pctcpu 4.88%
}
