package top

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/ule"
)

// A Layout says whose top a screen imitates.
type Layout uint8

const (
	FreeBSD Layout = iota // FreeBSD's top -H, for ULE and 4BSD
	Procps                // procps' top -H, for CFS and EEVDF
)

// A Row is one thread line of a [Screen]. Under [FreeBSD] it fills Name, Pri (less PZERO),
// Nice, State, CPU, Time, WCPU and PctCPU; under [Procps] Name, Pri (PR), Nice (NI), State (R
// or S), PctCPU (%CPU over the interval), CPU (P) and Time (TIME+).
type Row struct {
	Name string `json:"name"` // THR or COMMAND
	Pri  int    `json:"pri"`  // PRI or PR
	Nice string `json:"nice"` // NICE or NI
	// State is STATE (CPUn, RUN, sleep) or S (R, S).
	State string `json:"state"`
	CPU   string `json:"cpu"`  // C or P
	Time  string `json:"time"` // TIME (m:ss) or TIME+ (m:ss.hh)
	// WCPU is FreeBSD's WCPU in percent (0 under procps); PctCPU its CPU or procps' %CPU.
	WCPU   float64 `json:"wcpu"`
	PctCPU float64 `json:"pctcpu"`
}

// A Screen is what top shows at one instant of a run: the threads alive then.
type Screen struct {
	// At is the simulated time of the screen.
	At time.Duration `json:"at"`
	// Layout says whose columns Rows fill.
	Layout Layout `json:"layout"`
	// Rows are the live threads, in id order.
	Rows []Row `json:"rows"`
}

// A Watcher takes a policy's screens over a run. It keeps each thread's CPU time at the
// previous screen, for procps' %CPU.
type Watcher struct {
	layout Layout
	rows   func() []kinfo // ULE's and 4BSD's threads, as kinfo_proc exports them
	pzero  int
	ccpu   float64
	cfs    *cfs.Scheduler
	last   map[sched.ID]int64
	lastAt int64
}

// kinfo is what top reads of one ULE or 4BSD thread, in kinfo_proc's terms.
type kinfo struct {
	name    string
	pri     int     // ki_pri.pri_level
	nice    string  // format_nice
	running bool    // TD_IS_RUNNING: STATE is CPUn
	queued  bool    // on a run queue: STATE is RUN
	cpu     int     // ki_oncpu if running, else ki_lastcpu
	pct     float64 // pctdouble(ki_pctcpu)
}

// fscale is FSCALE, 1 << FSHIFT (sys/param.h).
const fscale = 1 << 11

// ErrNoTop is returned by [New] for a policy top cannot read.
var ErrNoTop = errors.New("top shows the columns of FreeBSD's top for ule and 4bsd, of procps' top for cfs")

// New returns a Watcher of p, a started policy (its state is made by Start): ULE and 4BSD
// with [FreeBSD]'s columns, CFS and EEVDF with [Procps]'. It returns [ErrNoTop] for another.
func New(p sim.Policy) (*Watcher, error) {
	switch s := p.(type) {
	case *ule.Scheduler:
		params := s.Params()
		lay := params.Layout()
		return &Watcher{layout: FreeBSD, pzero: int(lay.MinKern) + 20, rows: func() []kinfo { return uleRows(s.Snapshot(), lay) }}, nil
	case *bsd4.Scheduler:
		const ccpuFloat = 0.95122942450071400909 * fscale // exp(-1/20) · FSCALE, 1948.12
		return &Watcher{layout: FreeBSD, pzero: int(s.System().Params().Layout.MinKern) + 20,
			ccpu: math.Trunc(ccpuFloat) / fscale, // the C conversion to fixpt_t truncates: 1948/2048
			rows: func() []kinfo { return bsd4Rows(s.System().Snapshot()) }}, nil
	case *cfs.Scheduler:
		return &Watcher{layout: Procps, cfs: s, last: map[sched.ID]int64{}}, nil
	}
	return nil, ErrNoTop
}

// Screen returns the screen at the end of r, the run's result so far. Procps' %CPU is the
// CPU time since the previous Screen (or the run's start) over the time between them.
func (w *Watcher) Screen(r *sim.Result) Screen {
	s := Screen{At: time.Duration(r.End), Layout: w.layout, Rows: []Row{}}
	if w.layout == Procps {
		w.procps(r, &s)
	} else {
		w.freebsd(r, &s)
	}
	w.lastAt = r.End
	return s
}

// procps fills s as procps' top -H shows CFS's tasks.
func (w *Watcher) procps(r *sim.Result, s *Screen) {
	interval := r.End - w.lastAt
	for i := range r.Threads {
		st := &r.Threads[i]
		t, ok := w.cfs.Thread(st.ID)
		if !ok || st.End >= 0 {
			continue
		}
		state := "S"
		if t.E.OnRQ() {
			state = "R" // running or runnable: procps shows both as R
		}
		pct := 0.0
		if interval > 0 {
			pct = 100 * float64(st.CPUTime-w.last[st.ID]) / float64(interval)
		}
		w.last[st.ID] = st.CPUTime
		cs := st.CPUTime / int64(10*time.Millisecond) // TIME+ in hundredths of a second
		s.Rows = append(s.Rows, Row{Name: st.Name, Pri: 20 + t.E.Nice(), Nice: fmt.Sprint(t.E.Nice()), State: state, PctCPU: pct,
			CPU: fmt.Sprint(int(t.CPU())), Time: fmt.Sprintf("%d:%02d.%02d", cs/6000, cs/100%60, cs%100)})
	}
}

// freebsd fills s as FreeBSD's top -H shows ULE's or 4BSD's threads.
func (w *Watcher) freebsd(r *sim.Result, s *Screen) {
	byName := map[string]*sim.ThreadStats{}
	for i := range r.Threads {
		byName[fmt.Sprintf("t%d", r.Threads[i].ID)] = &r.Threads[i]
	}
	for _, k := range w.rows() {
		st := byName[k.name]
		if st == nil || st.End >= 0 {
			continue
		}
		state := "sleep" // the model has no wait channel to name
		switch {
		case k.running:
			state = fmt.Sprintf("CPU%d", k.cpu)
		case k.queued:
			state = "RUN"
		}
		cpu := fmt.Sprint(k.cpu)
		if k.cpu < 0 {
			cpu = "-"
		}
		swtime := (r.End - st.Start) / int64(time.Second)
		secs := st.CPUTime / int64(time.Second)
		s.Rows = append(s.Rows, Row{Name: st.Name, Pri: k.pri - w.pzero, Nice: k.nice, State: state, CPU: cpu,
			Time: fmt.Sprintf("%d:%02d", secs/60, secs%60), WCPU: 100 * WeightedCPU(k.pct, swtime, w.ccpu), PctCPU: 100 * k.pct})
	}
}

// uleRows reads ULE's snapshot as top does; NICE as format_nice writes it: the nice value of a
// time-sharing thread, "r" or "i" and the user priority above the class's first for a
// real-time or idle one.
func uleRows(st ule.State, lay ule.Layout) []kinfo {
	var rows []kinfo
	for _, t := range st.Threads {
		nice := fmt.Sprint(t.Nice)
		switch t.Class {
		case ule.ClassRealtime.String(), ule.ClassFIFO.String():
			nice = fmt.Sprintf("r%d", int(t.UserPri)-int(lay.MinRealtime))
		case ule.ClassIdle.String():
			nice = fmt.Sprintf("i%d", int(t.UserPri)-int(lay.MinIdle))
		}
		rows = append(rows, kinfo{name: t.Name, pri: int(t.Pri), nice: nice, running: t.State == "running",
			queued: t.State == "runq", cpu: t.CPU, pct: pctOf(t.PctCPU)})
	}
	return rows
}

// bsd4Rows reads 4BSD's snapshot as top does.
func bsd4Rows(st bsd4.State) []kinfo {
	var rows []kinfo
	for _, t := range st.Threads {
		rows = append(rows, kinfo{name: t.Name, pri: int(t.Pri), nice: fmt.Sprint(t.Nice), running: t.State == "running",
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

// WeightedCPU is top's weighted_cpu (usr.bin/top/machine.c): pct / (1 − exp(swtime ·
// log(ccpu))), 0 while swtime (whole seconds since the process started, ki_swtime) is 0; with
// ccpu 0 (ULE's kern.ccpu) it is pct.
func WeightedCPU(pct float64, swtime int64, ccpu float64) float64 {
	if swtime == 0 {
		return 0
	}
	if ccpu == 0 {
		return pct
	}
	return pct / (1 - math.Exp(float64(swtime)*math.Log(ccpu)))
}

// Text formats s as the tool would print it, headed by its time and policy's name: FreeBSD's
// THR PRI NICE STATE C TIME WCPU CPU, or procps' COMMAND PR NI S %CPU P TIME+; a blank line
// ends it.
func (s Screen) Text(policy string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "at %v, %s\n", s.At, policy)
	if s.Layout == Procps {
		fmt.Fprintf(&b, "  %-12s %3s %3s %-1s %5s %2s %9s\n", "COMMAND", "PR", "NI", "S", "%CPU", "P", "TIME+")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "  %-12.12s %3d %3s %-1s %5.1f %2s %9s\n", r.Name, r.Pri, r.Nice, r.State, r.PctCPU, r.CPU, r.Time)
		}
	} else {
		fmt.Fprintf(&b, "  %-12s %3s %4s %-6s %2s %7s %6s %6s\n", "THR", "PRI", "NICE", "STATE", "C", "TIME", "WCPU", "CPU")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "  %-12.12s %3d %4s %-6s %2s %7s %5.2f%% %5.2f%%\n", r.Name, r.Pri, r.Nice, r.State, r.CPU, r.Time, r.WCPU, r.PctCPU)
		}
	}
	b.WriteByte('\n')
	return b.String()
}
