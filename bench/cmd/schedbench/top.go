package main

// This file implements top: a simulated run seen as FreeBSD's top(1) sees it, every -every of
// simulated time, with its columns computed as usr.bin/top/machine.c computes them from what
// the kernel exports (kinfo_proc) for each thread.

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/ule"
)

const topSynopsis = "[-every DURATION] [machine flags] WORKLOAD"

// A topRow is what top shows of one thread, in kinfo_proc's terms.
type topRow struct {
	name    string
	pri     int     // ki_pri.pri_level
	nice    string  // top's format_nice: ki_nice, or "r"/"i" and the level for real-time and idle threads
	running bool    // TD_IS_RUNNING: STATE is CPUn
	queued  bool    // on a run queue: STATE is RUN
	cpu     int     // ki_oncpu if running, else ki_lastcpu
	pct     float64 // pctdouble(ki_pctcpu): sched_pctcpu as a fraction
}

// topSource is what top reads of a policy: its rows, PZERO for the PRI column, and kern.ccpu
// for WCPU (sched_4bsd.c: exp(-1/20) in fixed point; sched_ule.c exports 0, "all cpu
// percentages from ULE are weighted").
type topSource struct {
	rows  func() []topRow
	pzero int
	ccpu  float64
}

// fscale is FSCALE, 1 << FSHIFT (sys/param.h).
const fscale = 1 << 11

func topSourceOf(p sim.Policy, name string) (topSource, error) {
	switch s := p.(type) {
	case *ule.Scheduler:
		params := s.Params()
		lay := params.Layout()
		return topSource{pzero: int(lay.MinKern) + 20, rows: func() []topRow { return uleTopRows(s.Snapshot(), lay) }}, nil
	case *bsd4.Scheduler:
		const ccpuFloat = 0.95122942450071400909 * fscale // exp(-1/20) · FSCALE, 1948.12
		ccpu := math.Trunc(ccpuFloat) / fscale            // the C conversion to fixpt_t truncates: 1948/2048
		return topSource{pzero: int(s.System().Params().Layout.MinKern) + 20, ccpu: ccpu,
			rows: func() []topRow { return bsd4TopRows(s.System().Snapshot()) }}, nil
	}
	return topSource{}, usagef("%s: top shows the columns of FreeBSD's top for ule and 4bsd, of procps' top for cfs", name)
}

// uleTopRows reads ULE's snapshot as top does; NICE as format_nice writes it: the nice value of
// a time-sharing thread, "r" or "i" and the user priority above the class's first for a
// real-time or idle one.
func uleTopRows(st ule.State, lay ule.Layout) []topRow {
	var rows []topRow
	for _, t := range st.Threads {
		nice := fmt.Sprint(t.Nice)
		switch t.Class {
		case ule.ClassRealtime.String(), ule.ClassFIFO.String():
			nice = fmt.Sprintf("r%d", int(t.UserPri)-int(lay.MinRealtime))
		case ule.ClassIdle.String():
			nice = fmt.Sprintf("i%d", int(t.UserPri)-int(lay.MinIdle))
		}
		rows = append(rows, topRow{name: t.Name, pri: int(t.Pri), nice: nice, running: t.State == "running",
			queued: t.State == "runq", cpu: t.CPU, pct: pctOf(t.PctCPU)})
	}
	return rows
}

func bsd4TopRows(st bsd4.State) []topRow {
	var rows []topRow
	for _, t := range st.Threads {
		rows = append(rows, topRow{name: t.Name, pri: int(t.Pri), nice: fmt.Sprint(t.Nice), running: t.State == "running",
			queued: t.State == "queued", cpu: t.CPU, pct: pctOf(t.PctCPU)})
	}
	return rows
}

// pctOf reads a snapshot's "12.50" as the fraction 0.125.
func pctOf(s string) float64 {
	var v float64
	fmt.Sscanf(s, "%g", &v)
	return v / 100
}

// weightedCPU is top's weighted_cpu: pct / (1 − exp(ki_swtime · log(ccpu))), 0 while ki_swtime
// (whole seconds since the process started) is 0; with ccpu 0 (ULE) it is pct.
func weightedCPU(pct float64, swtime int64, ccpu float64) float64 {
	if swtime == 0 {
		return 0
	}
	if ccpu == 0 {
		return pct
	}
	return pct / (1 - math.Exp(float64(swtime)*math.Log(ccpu)))
}

func cmdTop(e *env, args []string) error {
	var f machineFlags
	fs := flag.NewFlagSet("top", flag.ContinueOnError)
	f.register(fs, "ule")
	every := fs.Duration("every", time.Second, "simulated `time` between two screens")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, topSynopsis); err != nil {
		return err
	}
	if *every <= 0 || *every > maxUntil {
		return usagef("-every %v: want a duration above 0 and at most %v", *every, maxUntil)
	}
	s, err := f.resolve(e, fs)
	if err != nil {
		return err
	}
	if len(s.policies) != 1 {
		return usagef("top takes one policy, got %d in -policy %q", len(s.policies), f.policy)
	}
	if n := s.flags.until / *every; n > 10000 {
		return usagef("-until %v / -every %v = %d screens; at most 10000", s.flags.until, *every, n)
	}
	p := s.policies[0].new()
	m, err := sim.New(s.config(0, 0, sim.TraceOff, false), p, s.w)
	if err != nil {
		return usagef("%v", err)
	}
	w := bufio.NewWriter(e.stdout)
	var screen func(*sim.Result)
	if c, ok := p.(*cfs.Scheduler); ok {
		last := map[sched.ID]int64{}
		screen = func(r *sim.Result) { writeLinuxTop(w, r, c, last, *every, s.policies[0].name) }
	} else {
		src, err := topSourceOf(p, s.policies[0].name) // once started: its System is made by Start
		if err != nil {
			return err
		}
		screen = func(r *sim.Result) { writeTop(w, r, src, s.policies[0].name) }
	}
	for at := *every; at <= s.flags.until; at += *every {
		if err := runMachine(e.ctx, m, at); err != nil {
			return err
		}
		screen(m.Result())
		if m.Done() {
			break
		}
	}
	return w.Flush()
}

// writeLinuxTop writes one screen of procps' top -H for a run of CFS or EEVDF: PR is the
// task's prio less MAX_RT_PRIO (/proc/PID/stat's priority field: 20 + nice for the fair
// policies), NI its nice value, %CPU its CPU time over the screen's interval (procps' Irix
// mode, the default: 100 % is one CPU) and P the CPU it last ran on (task_cpu, the stat file's
// processor field). last holds each thread's CPU time at the previous screen.
func writeLinuxTop(w io.Writer, r *sim.Result, c *cfs.Scheduler, last map[sched.ID]int64, every time.Duration, policy string) {
	fmt.Fprintf(w, "at %v, %s\n", time.Duration(r.End), policy)
	fmt.Fprintf(w, "  %-12s %3s %3s %-1s %5s %2s %9s\n", "COMMAND", "PR", "NI", "S", "%CPU", "P", "TIME+")
	for i := range r.Threads {
		st := &r.Threads[i]
		t, ok := c.Thread(st.ID)
		if !ok || st.End >= 0 {
			continue
		}
		state := "S"
		if t.E.OnRQ() {
			state = "R" // running or runnable: procps shows both as R
		}
		pct := 100 * float64(st.CPUTime-last[st.ID]) / float64(every)
		last[st.ID] = st.CPUTime
		cs := st.CPUTime / int64(10*time.Millisecond) // TIME+ in hundredths of a second
		fmt.Fprintf(w, "  %-12.12s %3d %3d %-1s %5.1f %2d %3d:%02d.%02d\n", st.Name, 20+t.E.Nice(), t.E.Nice(), state, pct, t.CPU(),
			cs/6000, cs/100%60, cs%100)
	}
	fmt.Fprintln(w)
}

// writeTop writes one screen: top's thread lines (top -H) at the run's time, in FreeBSD's
// smp_Proc_format columns that the model has: THR, PRI, NICE, STATE, C, TIME, WCPU, CPU.
func writeTop(w io.Writer, r *sim.Result, src topSource, policy string) {
	fmt.Fprintf(w, "at %v, %s\n", time.Duration(r.End), policy)
	fmt.Fprintf(w, "  %-12s %3s %4s %-6s %2s %7s %6s %6s\n", "THR", "PRI", "NICE", "STATE", "C", "TIME", "WCPU", "CPU")
	byName := map[string]*sim.ThreadStats{}
	for i := range r.Threads {
		byName[fmt.Sprintf("t%d", r.Threads[i].ID)] = &r.Threads[i]
	}
	for _, row := range src.rows() {
		st := byName[row.name]
		if st == nil || st.End >= 0 {
			continue
		}
		state := "sleep" // the model has no wait channel to name
		switch {
		case row.running:
			state = fmt.Sprintf("CPU%d", row.cpu)
		case row.queued:
			state = "RUN"
		}
		cpu := fmt.Sprint(row.cpu)
		if row.cpu < 0 {
			cpu = "-"
		}
		swtime := (r.End - st.Start) / int64(time.Second)
		secs := st.CPUTime / int64(time.Second)
		fmt.Fprintf(w, "  %-12.12s %3d %4s %-6s %2s %4d:%02d %5.2f%% %5.2f%%\n", st.Name, row.pri-src.pzero, row.nice, state, cpu,
			secs/60, secs%60, 100*weightedCPU(row.pct, swtime, src.ccpu), 100*row.pct)
	}
	fmt.Fprintln(w)
}
