package ule_test

import (
	"testing"

	"github.com/schedkit/schedkit/ule"
)

// walk runs th through cycles of run stat ticks followed by slp hz ticks of sleep, the way
// sched_clock, sched_sleep and sched_wakeup account them, and returns the final tick.
func walk(p *ule.Params, th *ule.Thread, cycles, run, slp int, ticks uint32) uint32 {
	hzPerStat := uint32(p.Hz / p.RealStatHz()) // 7 at 1000/127: close enough to step the clock
	for range cycles {
		for range run {
			ticks += hzPerStat
			th.ChargeTick(p, ticks, 1, p.SliceTicks())
		}
		if slp == 0 {
			continue
		}
		th.Priority = th.Sleep(p, ticks, 0)
		ticks += uint32(slp)
		th.WakeAccount(p, ticks)
		th.UpdatePriority(p)
		th.Priority = th.UserPri
	}
	return ticks
}

func TestInteractivityClassification(t *testing.T) {
	for _, p := range []ule.Params{ule.DefaultParams(), ule.LegacyParams()} {
		l := p.Layout()
		t.Run(p.Version.String(), func(t *testing.T) {
			sleeper := newThread(1, 140, oneCPU)
			hog := newThread(2, 140, oneCPU)
			half := newThread(3, 140, oneCPU)
			sleeper.Window = ule.Window{FTick: 1, LTick: 1}
			hog.Window, half.Window = sleeper.Window, sleeper.Window
			// The sleeper runs one stat tick (about 8 ms) and sleeps 100 ms, for 20 s.
			walk(&p, sleeper, 200, 1, 100, 1)
			// The hog never sleeps.
			walk(&p, hog, 2540, 1, 0, 1)
			// half runs 10 stat ticks (about 79 ms) and sleeps 70 ms.
			walk(&p, half, 130, 10, 70, 1)

			if s := sleeper.Score(&p); s >= int(p.Interact) || sleeper.UserPri > l.MaxInteract {
				t.Errorf("sleeper: score %d, user priority %d: want interactive (< %d, <= %d)", s, sleeper.UserPri, p.Interact, l.MaxInteract)
			}
			if s := hog.Score(&p); s != 50 || hog.UserPri < l.MinBatch {
				t.Errorf("hog: score %d, user priority %d: want 50 and batch", s, hog.UserPri)
			}
			// The hog's history is bounded: run time stays below SCHED_SLP_RUN_MAX.
			if hog.RunTime >= uint32(ule.SlpRunMax(p.Hz)) {
				t.Errorf("hog run time %d not bounded by %d", hog.RunTime, ule.SlpRunMax(p.Hz))
			}
			// Running more than sleeping is not interactive either.
			if s := half.Score(&p); s < int(p.Interact) {
				t.Errorf("runs 79 ms, sleeps 70 ms: score %d, want batch", s)
			}
			// A hog at 100 % CPU sits near the bottom of the batch range, the sleeper far above.
			if hog.UserPri <= sleeper.UserPri {
				t.Errorf("hog priority %d not worse than the sleeper's %d", hog.UserPri, sleeper.UserPri)
			}
		})
	}
}

func TestSleepBoostAndWake(t *testing.T) {
	p := ule.DefaultParams()
	th := newThread(1, 198, oneCPU)
	if got := th.Sleep(&p, 500, 0); got != 115 || th.SlpTick != 500 {
		t.Errorf("Sleep: priority %d, slptick %d, want the static boost 115 and 500", got, th.SlpTick)
	}
	inter := newThread(2, 80, oneCPU)
	if got := inter.Sleep(&p, 500, 0); got != 80 {
		t.Errorf("interactive Sleep = %d, want 80 (already better than the boost)", got)
	}
	p1 := p
	p1.StaticBoost = 1
	if got := th.Sleep(&p1, 500, 46); got != 46 {
		t.Errorf("static_boost 1: Sleep(PSOCK) = %d, want 46", got)
	}
	rt := newThread(3, 20, oneCPU)
	rt.Class = ule.ClassRealtime
	if got := rt.Sleep(&p, 500, 0); got != 20 {
		t.Errorf("real-time Sleep = %d, want 20 (no boost)", got)
	}
	th.Slice = 7
	th.WakeAccount(&p, 600)
	if th.SlpTime != 100<<10 || th.SlpTick != 0 || th.Slice != 0 {
		t.Errorf("WakeAccount: slptime %d, slptick %d, slice %d, want %d, 0, 0", th.SlpTime, th.SlpTick, th.Slice, 100<<10)
	}
	// Waking in the same tick it slept accounts nothing.
	th.SlpTick = 600
	th.WakeAccount(&p, 600)
	if th.SlpTime != 100<<10 {
		t.Errorf("same-tick wake changed slptime to %d", th.SlpTime)
	}
	ith := newThread(4, 3, oneCPU)
	ith.Class, ith.BaseIthdPri = ule.ClassIthd, 1
	ith.WakeAccount(&p, 700)
	if ith.Priority != 1 {
		t.Errorf("ithread wake: priority %d, want its base 1", ith.Priority)
	}
}

func TestForkAndExit(t *testing.T) {
	p := ule.DefaultParams()
	parent := newThread(1, 140, oneCPU)
	parent.RunTime, parent.SlpTime = 4_000_000, 1_000_000
	parent.Window = ule.Window{Ticks: 0, FTick: 0, LTick: 1000}
	parent.CPU = 0
	child := ule.InitThread(&ule.Thread{ID: 2, Class: ule.ClassTimeshare})
	parent.Fork(&p, child, 1100, 12)
	// Child: history 5,000,000 / (5,000,000/512,000 = 9); slice already used 12 - 2.
	if child.RunTime != 444_444 || child.SlpTime != 111_111 || child.Slice != 10 || child.Window != parent.Window {
		t.Errorf("child: run %d slp %d slice %d window %+v (parent %+v)", child.RunTime, child.SlpTime, child.Slice, child.Window, parent.Window)
	}
	// sched_fork_thread: the child is first queued at the parent's td_base_pri (140), not at
	// the user priority it computes from its inherited history (sched_fork_thread in
	// sched_ule.c @3521c70f; fork1 copies td_base_pri).
	if child.Priority != 140 || child.BasePri != 140 || child.UserPri == 140 {
		t.Errorf("child: priority %d, base %d, user %d; want 140, 140 and its own user priority",
			child.Priority, child.BasePri, child.UserPri)
	}
	// Parent: window advanced as running (100 ticks), charged one tickincr.
	if parent.Ticks != 100<<10 || parent.RunTime != 4_000_000+8062 {
		t.Errorf("parent: window ticks %d, run %d", parent.Ticks, parent.RunTime)
	}
	// ExitChild: run 4,008,062 + 444,444 = 4,452,506; with sleep 1,000,000 the sum passes
	// SCHED_SLP_RUN_MAX (5,120,000) but not 6/5 of it: both scale by 4/5.
	parent.ExitChild(&p, child)
	if parent.RunTime != 3_562_004 || parent.SlpTime != 800_000 {
		t.Errorf("ExitChild: run %d slp %d, want 3,562,004 and 800,000", parent.RunTime, parent.SlpTime)
	}
}

func TestCPUStateClockAndSlice(t *testing.T) {
	p := ule.DefaultParams()
	c := ule.NewCPUState(0, &p)
	for i := range 6 {
		c.Add(newThread(i, 150, oneCPU), 0)
	}
	// tdq_slice: sysload 6, load 5: 12/5 = 2.
	if c.Slice() != 2 || c.SysLoad != 6 {
		t.Fatalf("Slice = %d with sysload %d, want 2 with 6", c.Slice(), c.SysLoad)
	}
	c.Choose()
	c.ClockQueue(1)
	// sched_clock: switch counts rotate; the offsets were equal, so the insertion offset
	// moves by 2 and the dequeue offset follows over the empty slots 0 and 1 (the queued
	// threads sit in slot 35).
	if c.SwitchCnt != 6 || c.OldSwitchCnt != 0 || c.TSOff != 2 || c.DeqOff != 2 {
		t.Errorf("switch counts %d/%d, offsets %d/%d, want 6/0 and 2/2", c.SwitchCnt, c.OldSwitchCnt, c.TSOff, c.DeqOff)
	}
	ith := newThread(9, 2, oneCPU)
	ith.Class = ule.ClassIthd
	if c.ThreadSlice(ith) != 12 {
		t.Errorf("ithread slice %d, want sched_slice 12", c.ThreadSlice(ith))
	}
}

func TestSetNice(t *testing.T) {
	p := ule.DefaultParams()
	s := mustSystem(t, p, twoCPU)
	th := newThread(1, 140, twoCPU)
	th.RunTime = 100_000 // batch: score 50
	th.Window = ule.Window{FTick: 0, LTick: 10000}
	s.CPU(0).Add(th, 0)
	r := ule.NewRand(0, 0)
	// nice 0 -> 20: 115 + 0 + 50 = 165, worse: the thread stays in its calendar slot.
	if _, readded := s.SetNice(th, 25, 0, 100, &r); readded || th.Nice != 20 || th.Priority != 165 || th.UserPri != 165 {
		t.Fatalf("SetNice(25): readded %v nice %d priority %d/%d", readded, th.Nice, th.Priority, th.UserPri)
	}
	// nice -20: 115, better: removed and added again (SRQ_BORROWING).
	if res, readded := s.SetNice(th, -20, 0, 100, &r); !readded || th.Priority != 115 || res.CPU != th.CPU {
		t.Fatalf("SetNice(-20): readded %v priority %d result %v", readded, th.Priority, res)
	}
	checkCPUs(t, s)
}

// UpdatePriority gives a thread that is neither queued nor running the user priority as its
// priority too (the API of issue 30: a thread built field by field is picked at the kernel's
// priority), and leaves the priority of a queued or running thread, and of the other classes,
// to the System.
func TestUpdatePriority(t *testing.T) {
	p := ule.DefaultParams()
	fresh := ule.InitThread(&ule.Thread{ID: 1, Class: ule.ClassTimeshare, Nice: 10})
	fresh.UpdatePriority(&p)
	// A thread that never slept scores 50: batch, 115 + 0 % CPU + (10+20)*5/4 = 152.
	if fresh.Priority != 152 || fresh.BasePri != 152 || fresh.UserPri != 152 {
		t.Errorf("fresh nice-10 thread: priority %d base %d user %d, want 152 152 152", fresh.Priority, fresh.BasePri, fresh.UserPri)
	}
	c := ule.NewCPUState(0, &p)
	c.Add(fresh, 0)
	fresh.Nice = -20
	fresh.UpdatePriority(&p) // queued: only the user priority changes
	if fresh.Priority != 152 || fresh.UserPri != 115 {
		t.Errorf("queued thread after nice -20: priority %d user %d, want 152 (unchanged) and 115", fresh.Priority, fresh.UserPri)
	}
	c.Choose()
	fresh.Nice = 0
	fresh.UpdatePriority(&p) // running: the same
	if fresh.Priority != 152 || fresh.UserPri != 140 {
		t.Errorf("running thread after nice 0: priority %d user %d, want 152 (unchanged) and 140", fresh.Priority, fresh.UserPri)
	}
	rt := ule.InitThread(&ule.Thread{ID: 2, Class: ule.ClassRealtime, Priority: 20, BasePri: 20, UserPri: 20})
	rt.UpdatePriority(&p)
	if rt.Priority != 20 || rt.UserPri != 20 {
		t.Errorf("real-time thread: priority %d user %d, want 20 20", rt.Priority, rt.UserPri)
	}
}
