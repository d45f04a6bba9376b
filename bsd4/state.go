package bsd4

// This file takes read-only snapshots of 4BSD's state for the course: the picture a student
// draws of sched_4bsd.c's globals, runq and runq_pcpu[], and each thread's td_sched.

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
)

// A State is a read-only snapshot of a [System]: the global run queue, each CPU's run queue
// and running thread, every thread's estcpu and priority, and the load average decay reads.
// It is plain data, so it marshals to JSON as it is; its JSON shape is stable (the course page
// and `schedbench explain -state` read it). Taking a State only reads the System: no decision
// changes when one is taken.
type State struct {
	// LoadAvg is averunnable.ldavg, the 1-, 5- and 15-minute load averages as decimal
	// strings with two places ("0.46"), as uptime(1) prints them.
	LoadAvg [3]string `json:"loadavg"`
	// Load is sched_tdcnt (sched_load()): queued plus running threads.
	Load int `json:"load"`
	// Global is the global run queue, runq, its elements named by thread ("t3").
	Global runq.State `json:"global"`
	// CPUs are the CPUs in id order.
	CPUs []CPUState `json:"cpus"`
	// Threads are the live threads in ascending id order.
	Threads []ThreadInfo `json:"threads"`
}

// A CPUState is one CPU of a [State]: its per-CPU run queue runq_pcpu[cpu] (bound and affine
// threads only) and the thread it runs.
type CPUState struct {
	// CPU is the CPU's id.
	CPU int `json:"cpu"`
	// Running names the thread it runs, or is "" when it runs its idle thread.
	Running string `json:"running"`
	// Queue is runq_pcpu[cpu].
	Queue runq.State `json:"queue"`
}

// A ThreadInfo is one thread of a [State], its td_sched as ps(1) and the decay see it.
type ThreadInfo struct {
	// Name is the thread's name in queue listings ("t3").
	Name string `json:"name"`
	// State is new, sleeping, queued or running.
	State string `json:"state"`
	// CPU is the CPU running it, or td_lastcpu (top's C column), or -1 before it first ran.
	CPU int `json:"cpu"`
	// Pri is td_priority; UserPri is td_user_pri.
	Pri     uint8 `json:"pri"`
	UserPri uint8 `json:"user_pri"`
	// Nice is p_nice.
	Nice int `json:"nice"`
	// EstCPU is ts_estcpu; CPTicks ts_cpticks; SlpTime ts_slptime in seconds.
	EstCPU  uint32 `json:"estcpu"`
	CPTicks int32  `json:"cpticks"`
	SlpTime int32  `json:"slptime"`
	// PctCPU is ts_pctcpu as a percentage with two places ("12.50"), what ps -o %cpu shows.
	PctCPU string `json:"pctcpu"`
	// Slice is ts_slice, the statistics ticks left in its slice.
	Slice int32 `json:"slice"`
}

// Snapshot returns the [State] of s. It allocates the State, so it belongs beside a decision,
// never inside one.
func (s *System) Snapshot() State {
	var st State
	for i, f := range s.ldavg {
		st.LoadAvg[i] = f.String()
	}
	st.Load = s.load
	st.Global = s.global.Snapshot(threadName)
	for c := range s.pcpu {
		cs := CPUState{CPU: c, Queue: s.pcpu[c].runq.Snapshot(threadName)}
		if t := s.pcpu[c].cur; t != nil {
			cs.Running = threadName(t)
		}
		st.CPUs = append(st.CPUs, cs)
	}
	for _, t := range s.threads.All() {
		cpu := -1
		if c, ok := t.LastCPU(); ok {
			cpu = int(c)
		}
		if t.state == Running {
			cpu = int(t.cpu)
		}
		st.Threads = append(st.Threads, ThreadInfo{
			Name: threadName(t), State: t.state.String(), CPU: cpu,
			Pri: t.Pri, UserPri: t.UserPri, Nice: t.Attr.Nice,
			EstCPU: t.EstCPU, CPTicks: t.CPTicks, SlpTime: t.SlpTime,
			PctCPU: pct(t.PctCPU), Slice: t.Slice,
		})
	}
	return st
}

// threadName names a thread as the queue listings do.
func threadName(t *Thread) string { return t.ID.String() }

// pct formats a Fixpt fraction of FScale as a percentage with two decimal places, rounding
// down: 100·f/FScale in integer arithmetic.
func pct(f Fixpt) string {
	h := uint64(f) * 10000 / uint64(FScale)
	return fmt.Sprintf("%d.%02d", h/100, h%100)
}
