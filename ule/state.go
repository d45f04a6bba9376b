package ule

// This file takes read-only snapshots of ULE's state for the course: the picture a student
// draws of sched_ule.c's per-CPU struct tdq (its run queues and calendar) and each thread's
// td_sched (priority, interactivity history, slice, %CPU).

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
)

// A State is a read-only snapshot of a [Scheduler]: each CPU's struct tdq and every live
// thread's td_sched. It is plain data, so it marshals to JSON as it is; its JSON shape is stable
// (the course page and `schedbench explain -state` read it). Taking a State only reads the
// Scheduler: no decision changes when one is taken.
type State struct {
	// Version is the generation of sched_ule.c: "main", "legacy" or "freebsd9".
	Version string `json:"version"`
	// Ticks is the clock (ticks) the %CPU figures are taken at: the last the scheduler was told.
	Ticks uint32 `json:"ticks"`
	// CPUs are the CPUs in id order.
	CPUs []CPUInfo `json:"cpus"`
	// Threads are the live threads in ascending id order.
	Threads []ThreadInfo `json:"threads"`
}

// A CPUInfo is one CPU of a [State]: its struct tdq.
type CPUInfo struct {
	// CPU is tdq_id.
	CPU int `json:"cpu"`
	// Running names tdq_curthread ("t3"), or is "" while the idle thread runs.
	Running string `json:"running"`
	// Load is tdq_load, SysLoad tdq_sysload, Transferable tdq_transferable.
	Load         int `json:"load"`
	SysLoad      int `json:"sysload"`
	Transferable int `json:"transferable"`
	// LowPri is tdq_lowpri: the best (lowest) priority on the CPU, the running thread's included.
	LowPri uint8 `json:"lowpri"`
	// Calendar is the timeshare calendar's two offsets.
	Calendar Calendar `json:"calendar"`
	// Queues are the run queues: main's one of 256 queues ("runq", its ranges playing the
	// realtime, timeshare and idle roles), or legacy's three of 64 ("realtime", "timeshare",
	// "idle"), elements named by thread.
	Queues []NamedQueue `json:"queues"`
}

// A Calendar is the timeshare calendar of a CPU: the queue a batch thread is inserted relative
// to, and the queue the choice starts its search from, both modulo Size. In main they are
// tdq_ts_off and tdq_ts_deq_off over the 109 timeshare queues; in legacy and FreeBSD 9,
// tdq_idx and tdq_ridx over the 64 queues of tdq_timeshare.
type Calendar struct {
	Insert uint8 `json:"insert"`
	Remove uint8 `json:"remove"`
	Size   int   `json:"size"`
}

// A NamedQueue is one run queue of a CPU, by its name in sched_ule.c.
type NamedQueue struct {
	Name  string     `json:"name"`
	Queue runq.State `json:"queue"`
}

// A ThreadInfo is one thread of a [State]: its td_sched as ps(1), top(1) and the interactivity
// scorer see it.
type ThreadInfo struct {
	// Name is the thread's name in queue listings ("t3").
	Name string `json:"name"`
	// State is "inactive" (new, asleep or exited), "runq" or "running"; CPU is ts_cpu.
	State string `json:"state"`
	CPU   int    `json:"cpu"`
	// Class is td_pri_class; Nice is p_nice.
	Class string `json:"class"`
	Nice  int    `json:"nice"`
	// Pri is td_priority, UserPri td_user_pri.
	Pri     uint8 `json:"pri"`
	UserPri uint8 `json:"user_pri"`
	// Score is sched_interact_score, 0 (interactive) to 100; a timeshare thread scoring under
	// kern.sched.interact (30) gets an interactive priority.
	Score int `json:"score"`
	// RunTime and SlpTime are ts_runtime and ts_slptime, in ticks (the kernel keeps them in
	// ticks << SCHED_TICK_SHIFT; these are shifted back, rounding down).
	RunTime uint32 `json:"runtime_ticks"`
	SlpTime uint32 `json:"slptime_ticks"`
	// Slice is the slice the thread gets on its CPU (tdq_slice: stathz ticks, shorter under
	// load), SliceUsed ts_slice, the ticks of it used.
	Slice     int    `json:"slice"`
	SliceUsed uint32 `json:"slice_used"`
	// PctCPU is sched_pctcpu at Ticks as a percentage with two places ("12.50"), what ps -o
	// %cpu and top's WCPU column start from.
	PctCPU string `json:"pctcpu"`
}

// Snapshot returns the [State] of s. It allocates the State, so it belongs beside a decision,
// never inside one. Snapshot panics, with a message starting "ule:", before Start.
func (s *Scheduler) Snapshot() State {
	if s.sys == nil {
		panic("ule: Snapshot before Start")
	}
	p := &s.params
	st := State{Version: p.Version.String(), Ticks: s.ticksAt}
	for c := range s.sys.top.CPUs().All() {
		q := s.sys.CPU(c)
		ci := CPUInfo{CPU: int(c), Load: q.Load(), SysLoad: int(q.SysLoad), Transferable: q.Transferable(), LowPri: q.LowPri()}
		if q.Cur != nil {
			ci.Running = threadName(q.Cur)
		}
		if p.Version == Main {
			ci.Calendar = Calendar{Insert: q.TSOff, Remove: q.DeqOff, Size: TSModulo}
			ci.Queues = []NamedQueue{{"runq", q.Runq().Snapshot(threadName)}}
		} else {
			ci.Calendar = Calendar{Insert: q.Idx, Remove: q.Ridx, Size: legacyNQS}
			ci.Queues = []NamedQueue{{"realtime", q.rq[rqRealtime].Snapshot(threadName)},
				{"timeshare", q.LegacyTimeshare().Snapshot(threadName)}, {"idle", q.LegacyIdle().Snapshot(threadName)}}
		}
		st.CPUs = append(st.CPUs, ci)
	}
	for _, t := range s.threads.All() {
		w := PctCPUUpdate(p.Version, t.Window, s.ticksAt, t.State == Running, p.Hz)
		st.Threads = append(st.Threads, ThreadInfo{
			Name: threadName(t), State: t.State.String(), CPU: int(t.CPU),
			Class: t.Class.String(), Nice: t.Nice, Pri: t.Priority, UserPri: t.UserPri,
			Score:   InteractScore(t.RunTime, t.SlpTime, p.Interact),
			RunTime: t.RunTime >> TickShift, SlpTime: t.SlpTime >> TickShift,
			Slice: s.sys.CPU(t.CPU).ThreadSlice(t), SliceUsed: t.Slice,
			PctCPU: pct(PctCPU(p.Version, w, p.Hz)),
		})
	}
	return st
}

// threadName names a thread as the queue listings do.
func threadName(t *Thread) string { return t.ID.String() }

// pct formats sched_pctcpu's fixed-point fraction of FSCALE as a percentage with two decimal
// places, rounding down: 100·f/FSCALE in integer arithmetic.
func pct(f uint32) string {
	h := uint64(f) * 10000 / uint64(FScale)
	return fmt.Sprintf("%d.%02d", h/100, h%100)
}
