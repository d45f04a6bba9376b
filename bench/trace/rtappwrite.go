package trace

// This file implements WriteRTApp: a workload as an rt-app JSON description.

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// WriteRTApp writes w as an rt-app JSON description (see ReadRTApp for the mapping, which it
// inverts): a task per thread declaration (templates get instance 0 and are started by their
// fork events), the ops at the top of a script as phases — a run of plain ops is one phase, a
// repeat N or loop of plain ops a phase with loop N or -1, an every PERIOD N a phase ending
// in a timer of that period — and durations in whole microseconds. duration is global.duration
// in seconds (0 writes -1: until the tasks end).
//
// What rt-app cannot express comes back as warnings, and the JSON carries the nearest thing:
// a duration that is not whole microseconds (rounded down), a uniform or exponential duration
// (its mean), run forever (a phase of loop -1), pipes (a condition variable each: send is
// lock, signal, unlock; recv is lock, wait, unlock; a signal with no waiter is lost in rt-app,
// kept in a pipe; counts above 1 repeat the events), join and exit (left out), poll and
// until (left out, an until with its body), control groups (left out), FreeBSD-numbered
// real-time priorities, a slice. A loop, repeat or every
// nested inside another cannot be written as phases and is an error, as is a workload that
// does not validate. It returns the first error of out.
func WriteRTApp(out io.Writer, w *workload.Workload, duration int64) ([]Warning, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	ww := &rtappWriter{bw: bufio.NewWriter(out)}
	ww.s("{\n\t\"global\": {\n\t\t\"duration\": ")
	if duration > 0 {
		ww.s(strconv.FormatInt(max(1, duration/1e9), 10))
	} else {
		ww.s("-1")
	}
	ww.s(",\n\t\t\"default_policy\": \"SCHED_OTHER\",\n\t\t\"calibration\": \"CPU0\"\n\t},\n\t\"tasks\": {")
	for i := range w.Threads {
		if err := ww.thread(&w.Threads[i], i == 0); err != nil {
			return ww.warns, err
		}
	}
	ww.s("\n\t}\n}\n")
	if ww.err != nil {
		return ww.warns, ww.err
	}
	return ww.warns, ww.bw.Flush()
}

type rtappWriter struct {
	bw    *bufio.Writer
	err   error
	warns []Warning
	n     int // event counter, for unique keys
}

func (ww *rtappWriter) s(s string) {
	if ww.err == nil {
		_, ww.err = ww.bw.WriteString(s)
	}
}

func (ww *rtappWriter) warn(format string, args ...any) {
	ww.warns = append(ww.warns, Warning{File: "rt-app", Msg: fmt.Sprintf(format, args...)})
}

// us converts d to microseconds, warning when it rounds.
func (ww *rtappWriter) us(th string, d workload.Dist) string {
	v := d.A
	switch d.Kind {
	case workload.Uniform:
		v = (d.A + d.B) / 2
		ww.warn("%s: %s written as its mean, %s", th, d, v)
	case workload.Exp:
		ww.warn("%s: %s written as its mean, %s", th, d, v)
	}
	if v%1000 != 0 {
		ww.warn("%s: %s is not whole microseconds; rounded down", th, v)
	}
	return strconv.FormatInt(int64(v)/1000, 10)
}

func (ww *rtappWriter) thread(th *workload.Thread, first bool) error {
	if !first {
		ww.s(",")
	}
	ww.s("\n\t\t" + strconv.Quote(th.Name) + ": {\n")
	ww.attrs(th)
	ops := th.Ops
	loop := "1"
	if len(ops) == 1 && ops[0].Kind == workload.Loop {
		loop, ops = "-1", ops[0].Body
	}
	ww.s("\t\t\t\"loop\": " + loop + ",\n\t\t\t\"phases\": {")
	var plain []workload.Op
	phase := 0
	flush := func(ph string, loopN string, timer workload.Duration, body []workload.Op) error {
		if len(body) == 0 && timer == 0 {
			return nil
		}
		if phase > 0 {
			ww.s(",")
		}
		ww.s("\n\t\t\t\t\"p" + strconv.Itoa(phase) + "\": {\n\t\t\t\t\t\"loop\": " + loopN)
		phase++
		for _, op := range body {
			if err := ww.event(th.Name, op); err != nil {
				return err
			}
		}
		if timer > 0 {
			ww.n++
			ww.s(",\n\t\t\t\t\t\"timer" + strconv.Itoa(ww.n) + "\": {\"ref\": \"unique\", \"period\": " + usString(timer) + ", \"mode\": \"absolute\"}")
		}
		ww.s("\n\t\t\t\t}")
		return nil
	}
	for _, op := range ops {
		switch op.Kind {
		case workload.Loop, workload.Repeat, workload.Every:
			if err := flush("", "1", 0, plain); err != nil {
				return err
			}
			plain = nil
			for _, b := range op.Body {
				if b.Kind == workload.Loop || b.Kind == workload.Repeat || b.Kind == workload.Every {
					return fmt.Errorf("trace: %s: a %s inside a %s cannot be written as rt-app phases", th.Name, b.Kind, op.Kind)
				}
			}
			n := strconv.Itoa(op.N)
			switch {
			case op.Kind == workload.Loop || (op.Kind == workload.Every && op.N == 0):
				n = "-1"
			case op.Kind == workload.Every:
				n = strconv.Itoa(op.N)
			}
			var timer workload.Duration
			if op.Kind == workload.Every {
				timer = op.Time.A
			}
			if err := flush("", n, timer, op.Body); err != nil {
				return err
			}
		default:
			plain = append(plain, op)
		}
	}
	if err := flush("", "1", 0, plain); err != nil {
		return err
	}
	if phase == 0 {
		ww.s("\n\t\t\t\t\"p0\": {\"loop\": 1, \"run0\": 0}")
	}
	ww.s("\n\t\t\t}\n\t\t}")
	return nil
}

// attrs writes thread th's attributes as rt-app's: its instances, delay, policy, priority
// and CPUs, warning of those rt-app cannot express.
func (ww *rtappWriter) attrs(th *workload.Thread) {
	inst := th.Instances()
	ww.s("\t\t\t\"instance\": " + strconv.Itoa(inst) + ",\n")
	if th.Start > 0 {
		ww.s("\t\t\t\"delay\": " + usString(th.Start) + ",\n")
	}
	ww.s("\t\t\t\"policy\": \"" + policyName(th.Class) + "\",\n")
	if th.Class.RealTime() {
		ww.s("\t\t\t\"priority\": " + strconv.Itoa(th.RTPrio) + ",\n")
	} else if th.Nice != 0 {
		ww.s("\t\t\t\"priority\": " + strconv.Itoa(min(th.Nice, 19)) + ",\n")
		if th.Nice > 19 {
			ww.warn("%s: nice %d is beyond Linux's 19; written as 19", th.Name, th.Nice)
		}
	}
	if th.CPUs.Count() > 0 {
		ww.s("\t\t\t\"cpus\": [")
		k := 0
		for c := range th.CPUs.All() {
			if k > 0 {
				ww.s(", ")
			}
			ww.s(strconv.Itoa(int(c)))
			k++
		}
		ww.s("],\n")
	}
	if th.Group != "" {
		ww.warn("%s: control group %q cannot be expressed; left out", th.Name, th.Group)
	}
	if th.Slice != 0 {
		ww.warn("%s: slice %s cannot be expressed; left out", th.Name, th.Slice)
	}
}

func policyName(c sched.Class) string {
	switch c {
	case sched.Batch:
		return "SCHED_BATCH"
	case sched.Idle:
		return "SCHED_IDLE"
	case sched.FIFO:
		return "SCHED_FIFO"
	case sched.RR:
		return "SCHED_RR"
	}
	return "SCHED_OTHER"
}

// event writes one plain op as rt-app events.
func (ww *rtappWriter) event(th string, op workload.Op) error {
	key := func(k string) string {
		ww.n++
		return ",\n\t\t\t\t\t\"" + k + strconv.Itoa(ww.n) + "\": "
	}
	times := max(op.N, 1)
	switch op.Kind {
	case workload.Run:
		if op.Time.Kind == workload.Forever {
			ww.warn("%s: run forever written as a run of 1 s in a loop of -1", th)
			ww.s(key("run") + "1000000")
			return nil
		}
		ww.s(key("run") + ww.us(th, op.Time))
	case workload.Spin:
		// rt-app's runtime event computes for a duration of wall-clock time.
		ww.s(key("runtime") + ww.us(th, op.Time))
	case workload.Sleep:
		ww.s(key("sleep") + ww.us(th, op.Time))
	case workload.Send:
		ww.warn("%s: pipe %s written as condition variable %s: a signal with no waiter is lost", th, op.Name, op.Name)
		for range times {
			ww.s(key("lock") + strconv.Quote(op.Name+"_mutex"))
			ww.s(key("signal") + strconv.Quote(op.Name))
			ww.s(key("unlock") + strconv.Quote(op.Name+"_mutex"))
		}
	case workload.Recv:
		for range times {
			ww.s(key("lock") + strconv.Quote(op.Name+"_mutex"))
			ww.s(key("wait") + "{\"ref\": " + strconv.Quote(op.Name) + ", \"mutex\": " + strconv.Quote(op.Name+"_mutex") + "}")
			ww.s(key("unlock") + strconv.Quote(op.Name+"_mutex"))
		}
	case workload.Fork:
		for range times {
			ww.s(key("fork") + strconv.Quote(op.Name))
		}
	case workload.Yield:
		ww.s(key("yield") + "\"\"")
	case workload.Join, workload.Exit, workload.SetGroup, workload.Poll, workload.Until:
		ww.warn("%s: %s cannot be expressed; left out", th, op.Kind)
	case workload.Nice, workload.SetClass, workload.SetCPUs:
		ww.warn("%s: %s inside a phase cannot be expressed (rt-app changes attributes per phase); left out", th, op.Kind)
	}
	return nil
}
