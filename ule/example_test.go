package ule_test

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// A thread that sleeps ten times longer than it runs is interactive; one that never sleeps is
// batch, and its priority depends on how much CPU it used and on its nice value.
func Example() {
	p := ule.DefaultParams()
	score := ule.InteractScore(10_000, 100_000, p.Interact)
	fmt.Println("sleeper:", score, ule.TimesharePriority(ule.Main, p.Interact, score, 0, ule.Window{}, p.Hz))
	hog := ule.Window{Ticks: 10_240_000, FTick: 0, LTick: 10_000} // 10 s of a 10 s window
	score = ule.InteractScore(5_000_000, 0, p.Interact)
	fmt.Println("hog:", score, ule.TimesharePriority(ule.Main, p.Interact, score, 0, hog, p.Hz))
	fmt.Println("hog at nice 20:", ule.TimesharePriority(ule.Main, p.Interact, score, 20, hog, p.Hz))
	// Output:
	// sleeper: 5 65
	// hog: 50 198
	// hog at nice 20: 223
}

func ExampleInteractScore() {
	fmt.Println(ule.InteractScore(1_000, 100_000, 30)) // slept 100 times longer than it ran
	fmt.Println(ule.InteractScore(50_000, 100_000, 30))
	fmt.Println(ule.InteractScore(100_000, 50_000, 30)) // ran longer: the fast path
	// Output:
	// 0
	// 25
	// 50
}

func ExampleTimesharePriority() {
	w := ule.Window{Ticks: 5_120_000, FTick: 0, LTick: 10_000} // 50 % CPU
	fmt.Println("main:", ule.TimesharePriority(ule.Main, 30, 50, 0, w, 1000))
	fmt.Println("legacy:", ule.TimesharePriority(ule.Legacy, 30, 50, 0, w, 1000))
	// Output:
	// main: 169
	// legacy: 179
}

func ExampleSliceFor() {
	for sysload := 1; sysload <= 7; sysload++ {
		fmt.Print(ule.SliceFor(sysload, 12, 2), " ")
	}
	fmt.Println()
	// Output: 12 12 6 4 3 2 2
}

// At each stat tick the running thread's slice counter grows; when it reaches td_slice the
// thread must switch. FIFO threads are never sliced.
func ExampleSliceTick() {
	used := uint32(0)
	var r ule.SliceResult
	for tick := 1; r != ule.SliceExpired; tick++ {
		used, r = ule.SliceTick(ule.ClassTimeshare, used, 1, 4) // tdq_slice with sysload 4
		fmt.Println(tick, used, r)
	}
	_, r = ule.SliceTick(ule.ClassFIFO, 100, 1, 4)
	fmt.Println(r)
	// Output:
	// 1 1 slice running
	// 2 2 slice running
	// 3 3 slice running
	// 4 0 slice expired
	// no slice (FIFO or idle thread)
}

func ExamplePctCPUUpdate() {
	w := ule.Window{FTick: 1000, LTick: 1000}
	w = ule.PctCPUUpdate(ule.Main, w, 1500, true, 1000)  // ran 500 ticks
	w = ule.PctCPUUpdate(ule.Main, w, 2000, false, 1000) // then slept 500
	fmt.Printf("%+v %d%%\n", w, ule.PctCPU(ule.Main, w, 1000)*100/ule.FScale)
	// Output: {Ticks:512000 FTick:1000 LTick:2000} 50%
}

// The calendar: a batch thread is queued ahead of the insertion offset by its priority, and
// never into the window the dequeue offset is still draining.
func ExampleCalendarIndex() {
	fmt.Println(ule.CalendarIndex(140, 0, 0, 0))                  // 25 slots ahead
	fmt.Println(ule.CalendarIndex(140, 100, 100, 0))              // wraps: (25+100) % 109
	fmt.Println(ule.CalendarIndex(221, 10, 5, 0))                 // would land in 5..9: goes to 4
	fmt.Println(ule.CalendarIndex(200, 50, 40, ule.SRQPreempted)) // preempted: the dequeue slot
	// Output:
	// 25
	// 16
	// 4
	// 40
}

func ExampleAdvanceCalendar() {
	off, ticks := uint8(0), uint8(0)
	for range 4 {
		off, ticks = ule.AdvanceCalendar(off, ticks, 1)
		fmt.Print(off, " ")
	}
	fmt.Println()
	// Output: 2 4 6 7
}

func ExampleLegacyCalendarIndex() {
	fmt.Println(ule.LegacyCalendarIndex(180, 10, 10, 0))
	fmt.Println(ule.LegacyCalendarIndex(223, 10, 9, 0)) // would hit ridx: one queue back
	// Output:
	// 42
	// 8
}

func ExamplePick() {
	p := ule.DefaultParams()
	c := ule.NewCPUState(0, &p)
	all := topology.CPUSetOf(0)
	for i, pri := range []uint8{200, 80, 140, 230} {
		c.Add(ule.InitThread(&ule.Thread{ID: sched.ID(i), Priority: pri, Affinity: all}), 0)
	}
	for {
		t, why := c.Choose()
		if t == nil {
			fmt.Println(why)
			break
		}
		fmt.Printf("%v pri %d: %v\n", t.ID, t.Priority, why)
	}
	// Output:
	// t1 pri 80: real-time range, queue 80
	// t2 pri 140: calendar queue 140 (scan from dequeue offset 0)
	// t0 pri 200: calendar queue 200 (scan from dequeue offset 0)
	// t3 pri 230: idle range, queue 230
	// nothing queued: idle
}

func ExampleShouldPreempt() {
	main, legacy := ule.DefaultParams(), ule.LegacyParams()
	for _, c := range []struct {
		p         *ule.Params
		pri, cpri int
		remote    bool
	}{
		{&main, 20, 150, false},   // a real-time thread
		{&main, 80, 150, false},   // an interactive thread, locally
		{&main, 80, 150, true},    // the same on another CPU
		{&legacy, 48, 150, false}, // legacy's threshold is inclusive
		{&main, 200, 255, false},  // an idle CPU
	} {
		_, why := ule.ShouldPreempt(c.pri, c.cpri, c.remote, c.p)
		fmt.Println(why)
	}
	// Output:
	// pri 20 < preempt_thresh 40: preempt
	// pri 80 not < preempt_thresh 40, cpri 150: no preemption
	// remote: interactive pri 80 over batch cpri 150: preempt
	// pri 48 <= preempt_thresh 48: preempt
	// cpri 255 is idle: preempt
}

func ExampleSystem_PickCPU() {
	top := topology.Uniform(2, 1, 1, 2, 2) // two sockets of two SMT cores
	s, _ := ule.NewSystem(ule.DefaultParams(), top)
	s.CPU(3).Add(ule.InitThread(&ule.Thread{ID: 9, Priority: 150, Affinity: top.CPUs()}), 0)
	s.CPU(3).Choose() // cpu3 busy: its sibling cpu2 is not a quiet core
	t := ule.InitThread(&ule.Thread{Priority: 140, Affinity: top.CPUs(), CPU: 2, RLTick: 100})
	r := ule.NewRand(0, 0)
	cpu, why := s.PickCPU(t, 0, 101, ule.SRQBoring, false, &r)
	fmt.Println(cpu, why.Rule == ule.PickCPULLCIdle)
	fmt.Println(why)
	// Output:
	// cpu1 true
	// cpu1: idle in llc+node+package{0-3} (was cpu2, pri 140)
}

func ExampleSystem_Steal() {
	top := topology.Uniform(2, 1, 1, 2, 2)
	s, _ := ule.NewSystem(ule.LegacyParams(), top)
	victim := s.CPU(5)
	for i := range 3 {
		victim.Add(ule.InitThread(&ule.Thread{ID: sched.ID(i), Priority: 200, Affinity: top.CPUs()}), 0)
	}
	victim.Choose() // t0 runs; t1 and t2 wait
	r := ule.NewRand(0, 0)
	cpu, t, why := s.Steal(0, 0, &r)
	fmt.Println(cpu, t.ID, "(legacy skips the head, t1)")
	fmt.Println(why)
	// Output:
	// cpu5 t2 (legacy skips the head, t1)
	// steal from cpu5 found in llc+node+package{4-7} after 3 searches (0 victims refused)
}

func ExampleSystem_Balance() {
	top := topology.Uniform(1, 1, 1, 4, 1)
	s, _ := ule.NewSystem(ule.DefaultParams(), top)
	busy := s.CPU(0)
	for i := range 4 {
		busy.Add(ule.InitThread(&ule.Thread{ID: sched.ID(i), Priority: 150, Affinity: top.CPUs()}), 0)
	}
	busy.Choose()
	r := ule.NewRand(0, 0)
	for _, m := range s.Balance(0, &r, nil) {
		fmt.Println(m.Thread.ID, m.From, "->", m.To, m.Kick)
	}
	fmt.Println("loads:", s.CPU(0).Load(), s.CPU(1).Load()+s.CPU(2).Load()+s.CPU(3).Load())
	// Output:
	// t1 cpu0 -> cpu1 wake idle
	// loads: 3 1
}

func ExampleSeed000Params() {
	for _, ps := range []bool{false, true} {
		for _, pt := range []int{48, 224} {
			p := ule.Seed000Params(ps, pt)
			fmt.Println(p.Name, p.PickShort, p.PreemptThresh)
		}
	}
	// Output:
	// ule-seed000-ps0-pt48 false 48
	// ule-seed000-ps0-pt224 false 224
	// ule-seed000-ps1-pt48 true 48
	// ule-seed000-ps1-pt224 true 224
}

func ExamplePreset() {
	fmt.Println(ule.Presets())
	p, _ := ule.Preset("legacy")
	fmt.Println(p.Version, p.PreemptThresh, p.CalendarSteal)
	_, err := ule.Preset("4bsd")
	fmt.Println(err != nil)
	// Output:
	// [freebsd9 legacy main seed000 seed000-ps0-pt224 seed000-ps0-pt48 seed000-ps1-pt224 seed000-ps1-pt48]
	// legacy 48 SkipFirst
	// true
}

func ExampleNewRand() {
	r := ule.NewRand(0, 0) // FreeBSD seeds cpu0 with 0*69069+5
	fmt.Println(r.Next(), r.Next(), r.Next())
	// Output: 5 36287 53438
}

// printEnv is a sched.Env that prints what the scheduler asks for.
type printEnv struct{}

func (printEnv) Resched(cpu topology.CPU) { fmt.Println("resched", cpu) }
func (printEnv) Explaining() bool         { return true }
func (printEnv) Explain(cpu topology.CPU, tid sched.ID, why string) {
	fmt.Printf("  %v %v: %s\n", cpu, tid, why)
}

// The Scheduler composes state and decisions into the machine interface of bench/sim.
func ExampleScheduler() {
	s, err := ule.New(ule.DefaultParams())
	if err != nil {
		panic(err)
	}
	top := topology.Uniform(1, 1, 1, 2, 1)
	if err := s.Start(sched.Config{Topology: top, Hz: 1000, StatHz: 127}, printEnv{}); err != nil {
		panic(err)
	}
	s.Fork(0, 0, -1, 0, sched.Attr{})
	s.Wakeup(0, 0, 0, sched.WakeFork) // cpu0 idles: it is woken
	s.Pick(0, 0)
	s.Fork(0, 1, -1, 0, sched.Attr{})
	s.Wakeup(0, 1, 0, sched.WakeFork) // goes to the idle cpu1
	s.Pick(0, 1)
	// Output:
	//   cpu0 t0: fork: t0 pri=140 PRI_TIMESHARE cpu0 inactive, slice used 0
	// resched cpu0
	//   cpu0 t0: wakeup from cpu0: cpu0: least loaded CPU running worse priority (was cpu0, pri 140); kick wake idle (cpri 255 is idle: preempt)
	//   cpu0 t0: pick: calendar queue 140 (scan from dequeue offset 0)
	//   cpu0 t1: fork: t1 pri=140 PRI_TIMESHARE cpu0 inactive, slice used 0
	// resched cpu1
	//   cpu1 t1: wakeup from cpu0: cpu1: least loaded CPU running worse priority (was cpu0, pri 140); kick wake idle (cpri 255 is idle: preempt)
	//   cpu1 t1: pick: calendar queue 140 (scan from dequeue offset 0)
}

// ExampleFreeBSD9Params balances four CPUs the way FreeBSD 9.0 did: the pair balancer moves half
// the difference rounded up, and a CPU with one thread running and one queued cannot give the
// queued one away while its removal index is 0 (the first-thread quirk of runq_steal_from).
func ExampleFreeBSD9Params() {
	p := ule.FreeBSD9Params()
	fmt.Println(p.Name, p.Version, p.SMP, p.CalendarSteal, p.FixedSlice, p.PreemptThresh)
	s, _ := ule.NewSystem(p, topology.Uniform(1, 1, 1, 4, 1))
	fmt.Println("steal_thresh:", s.StealThreshold())
	id := sched.ID(0)
	add := func(cpu topology.CPU, n int) {
		c := s.CPU(cpu)
		for range n {
			id++
			c.Add(ule.InitThread(&ule.Thread{ID: id, Class: ule.ClassTimeshare, Priority: 180, UserPri: 180, Affinity: s.Topology().CPUs()}), 0)
		}
		c.Choose()
	}
	add(0, 4) // cpu0: one running, three queued
	add(1, 1)
	r := ule.NewRand(0, 0)
	for _, m := range s.Balance(0, &r, nil) {
		fmt.Printf("%v: cpu%d -> cpu%d\n", m.Thread.ID, m.From, m.To)
	}
	fmt.Println("loads:", s.CPU(0).Load(), s.CPU(1).Load(), s.CPU(2).Load(), s.CPU(3).Load())
	// Output:
	// ule-freebsd9 freebsd9 2008 OneQueue true 80
	// steal_thresh: 2
	// t3: cpu0 -> cpu2
	// t4: cpu0 -> cpu2
	// loads: 2 1 2 0
}

// ExampleCalendarSteal shows the forms of runq_steal_from on a queue whose first thread may run
// on the thief and whose last may not.
func ExampleCalendarSteal() {
	for _, mode := range []ule.CalendarSteal{ule.StealFirstEligible, ule.StealSkipFirst, ule.StealSkipPrevious, ule.StealOneQueue} {
		p := ule.LegacyParams()
		p.CalendarSteal = mode
		c := ule.NewCPUState(0, &p)
		head := ule.InitThread(&ule.Thread{ID: 1, Class: ule.ClassTimeshare, Priority: 200, Affinity: topology.CPUSetOf(0, 1)})
		tail := ule.InitThread(&ule.Thread{ID: 2, Class: ule.ClassTimeshare, Priority: 200, Affinity: topology.CPUSetOf(0)})
		c.Add(head, 0)
		c.Add(tail, 0)
		if t, _ := ule.StealFrom(c, 1); t != nil {
			fmt.Println(mode, t.ID)
		} else {
			fmt.Println(mode, "nothing")
		}
	}
	// Output:
	// FirstEligible t1
	// SkipFirst t1
	// SkipPrevious nothing
	// OneQueue nothing
}

// ExampleScheduler_CheckAttr shows which attributes ULE runs as asked: rtprio(2) levels map to
// PRI_MIN_REALTIME + level; a Linux sched_priority has no FreeBSD meaning.
func ExampleScheduler_CheckAttr() {
	s, _ := ule.New(ule.LegacyParams())
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.FIFO, RTPrio: 3, RTScale: sched.RTFreeBSD}))
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.FIFO, RTPrio: 50}))
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.Batch}))
	// Output:
	// <nil>
	// ule: fifo priority 50 is on the linux scale; FreeBSD's rtprio(2) takes 0..31 (RTScale freebsd)
	// ule: FreeBSD has no SCHED_BATCH class
}

// Which thread does ULE pick? The program a newcomer writes: threads built with the obvious
// calls (fields, InitThread, UpdatePriority), queued on one CPU, and the CPU's choice.
// UpdatePriority gives each thread the priority sched_priority gives it: the editor, which
// sleeps fifty times longer than it runs, is interactive (57) and is picked first, from the
// real-time range (0-114: interrupt, real-time, kernel and interactive threads); the compiler,
// which ran its whole window, is batch (198); so is a backup job at nice 20 that has no history
// yet (165: a thread that never slept scores 50, the threshold of batch, plus its nice).
func Example_whichThread() {
	p := ule.DefaultParams()
	cpu := ule.NewCPUState(0, &p)

	compiler := ule.InitThread(&ule.Thread{ID: 1, Class: ule.ClassTimeshare})
	compiler.RunTime = 5000 << 10 // 5 s of run time, in hz ticks << 10
	compiler.Window = ule.Window{Ticks: 5000 << 10, FTick: 0, LTick: 5000}

	editor := ule.InitThread(&ule.Thread{ID: 2, Class: ule.ClassTimeshare})
	editor.RunTime, editor.SlpTime = 100<<10, 5000<<10 // ran 0.1 s, slept 5 s

	backup := ule.InitThread(&ule.Thread{ID: 3, Class: ule.ClassTimeshare, Nice: 20})

	for _, t := range []*ule.Thread{compiler, editor, backup} {
		t.UpdatePriority(&p)
		cpu.Add(t, ule.SRQBoring)
		fmt.Println(t)
	}
	t, why := ule.Pick(cpu)
	fmt.Printf("ULE picks %v: %v\n", t.ID, why)
	// Output:
	// t1 pri=198 PRI_TIMESHARE cpu0 runq
	// t2 pri=57 PRI_TIMESHARE cpu0 runq
	// t3 pri=165 PRI_TIMESHARE cpu0 runq
	// ULE picks t2: real-time range, queue 57
}

func ExampleSystem_RecordSearches() {
	top := topology.Uniform(2, 1, 1, 2, 2) // two sockets of two SMT cores
	s, _ := ule.NewSystem(ule.DefaultParams(), top)
	s.CPU(3).Add(ule.InitThread(&ule.Thread{ID: 9, Priority: 150, Affinity: top.CPUs()}), 0)
	s.CPU(3).Choose()
	s.RecordSearches(true)
	t := ule.InitThread(&ule.Thread{Priority: 140, Affinity: top.CPUs(), CPU: 2, RLTick: 100})
	r := ule.NewRand(0, 0)
	cpu, _ := s.PickCPU(t, 0, 101, ule.SRQBoring, false, &r)
	for _, sr := range s.TakeSearches() {
		fmt.Printf("%s in %s (lowpri > %d): found cpu%d\n", sr.Kind, sr.Group, sr.Pri, sr.Found)
		for _, c := range sr.CPUs {
			fmt.Printf("  cpu%d load %d lowpri %d qualified %v\n", c.CPU, c.Load, c.LowPri, c.Qualified)
		}
	}
	// The cache group's search for an idle CPU (lowpri above PRI_MAX_TIMESHARE): cpu2, the
	// thread's own, qualifies too, but its core's load (cpu3's thread) loses to cpu0-1's.
	fmt.Println("chosen:", cpu)
	// Output:
	// lowest in llc+node+package{0-3} (lowpri > 223): found cpu1
	//   cpu0 load 0 lowpri 255 qualified true
	//   cpu1 load 0 lowpri 255 qualified true
	//   cpu2 load 0 lowpri 255 qualified true
	//   cpu3 load 1 lowpri 150 qualified false
	// chosen: cpu1
}
