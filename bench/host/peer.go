package host

// This file implements Peer, a real program run beside a workload's threads, and the readers of
// the outputs of the programs schedulers are measured with: perf bench sched messaging and pipe,
// hackbench, cyclictest and stress-ng's --metrics-brief.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/sched"
)

// A Peer is a real program a run starts beside the workload's threads, in one of the workload's
// groups and with scheduling attributes, and kills at the end of the run if it has not exited.
type Peer struct {
	// Name names the peer in the Result.
	Name string
	// Args are the program and its arguments, such as
	// {"perf", "bench", "sched", "messaging", "-g", "1", "-l", "1000"}.
	Args []string
	// Attr are the attributes it starts with: Class (Normal, Batch or Idle: a real-time peer
	// would be beyond the runner's hard deadline), Nice and Affinity.
	Attr sched.Attr
	// Group is the workload group it runs in; "" is the workload's root group.
	Group string
	// Await makes the peer the measure of the run's length: a run with awaited peers ends when
	// they have all exited (within the limit), stopping the threads still running, as a hog
	// beside a measured program is stopped when the program is done. A run without awaited
	// peers ends when its threads have exited, and kills the peers still running then.
	Await bool
}

// A PeerResult is what a peer did.
type PeerResult struct {
	// Name is the peer's name.
	Name string
	// Output is what it wrote to its standard output and error, at most 1 MiB.
	Output string
	// Exited reports whether it exited by itself before the end of the run; Err is its exit
	// status if it failed (nil for a peer that was killed at the end of the run).
	Exited bool
	Err    error
	// Start and End are when it started and ended, in nanoseconds since the start of the run.
	Start, End int64
}

// Bench is perf bench sched messaging's or pipe's summary, or hackbench's.
type Bench struct {
	// Total is the time the benchmark took ("Total time: 0.123 [sec]", "Time: 0.123").
	Total time.Duration
	// PerOp is perf bench sched pipe's "usecs/op", 0 for the others.
	PerOp time.Duration
	// OpsPerSec is perf bench sched pipe's "ops/sec", 0 for the others.
	OpsPerSec int64
	// Tasks is the number of processes or threads the benchmark ran (messaging's "== N
	// processes run", hackbench's "(== N tasks)"); 0 for pipe.
	Tasks int
}

// ParsePerfBench reads the output of perf bench sched messaging or perf bench sched pipe.
func ParsePerfBench(out string) (Bench, error) {
	const file = "perf bench"
	var b Bench
	seen := false
	for i, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		col := len(l) - len(strings.TrimLeft(l, " \t")) + 1
		switch {
		case strings.HasPrefix(t, "Total time:"):
			v := strings.TrimSpace(strings.TrimPrefix(t, "Total time:"))
			num, unit, _ := strings.Cut(v, " ")
			if unit != "[sec]" {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: col, Msg: "Total time without [sec]"}
			}
			d, err := parseSeconds(num)
			if err != nil {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: col + 12, Msg: err.Error()}
			}
			b.Total, seen = d, true
		case strings.HasSuffix(t, "usecs/op"):
			f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "usecs/op")), 64)
			if err != nil || f < 0 || f > 1e12 {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: col, Msg: "bad usecs/op"}
			}
			b.PerOp = time.Duration(f * 1e3)
		case strings.HasSuffix(t, "ops/sec"):
			n, err := parseCount(strings.TrimSpace(strings.TrimSuffix(t, "ops/sec")))
			if err != nil {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: col, Msg: "ops/sec: " + err.Error()}
			}
			b.OpsPerSec = n
		case strings.HasPrefix(t, "#") && (strings.HasSuffix(t, "processes run") || strings.HasSuffix(t, "threads run")):
			_, rest, ok := strings.Cut(t, "== ")
			n, _, _ := strings.Cut(rest, " ")
			v, err := strconv.Atoi(n)
			if !ok || err != nil || v < 0 {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: col, Msg: "bad task count"}
			}
			b.Tasks = v
		}
	}
	if !seen {
		return Bench{}, &ParseError{File: file, Line: strings.Count(out, "\n") + 1, Col: 1, Msg: "no Total time line"}
	}
	return b, nil
}

// ParseHackbench reads the output of hackbench (rt-tests).
func ParseHackbench(out string) (Bench, error) {
	const file = "hackbench"
	var b Bench
	seen := false
	for i, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "Time:"):
			d, err := parseSeconds(strings.TrimSpace(strings.TrimPrefix(l, "Time:")))
			if err != nil {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: 7, Msg: err.Error()}
			}
			b.Total, seen = d, true
		case strings.HasPrefix(l, "Running in"):
			_, rest, ok := strings.Cut(l, "(== ")
			n, _, _ := strings.Cut(rest, " ")
			v, err := strconv.Atoi(n)
			if !ok || err != nil || v < 0 {
				return Bench{}, &ParseError{File: file, Line: i + 1, Col: 1, Msg: "bad task count"}
			}
			b.Tasks = v
		}
	}
	if !seen {
		return Bench{}, &ParseError{File: file, Line: strings.Count(out, "\n") + 1, Col: 1, Msg: "no Time: line"}
	}
	return b, nil
}

// parseSeconds reads a non-negative decimal number of seconds below a year.
func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f < 3.2e7) {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	return time.Duration(f * 1e9), nil
}

// A CyclicThread is one measuring thread's line of cyclictest's output: latencies in
// microseconds, as cyclictest prints them.
type CyclicThread struct {
	// Thread is the thread number (T:), TID its thread id, Prio its priority (P:).
	Thread, TID, Prio int
	// Interval is the period in microseconds (I:), Cycles the number of periods measured (C:).
	Interval, Cycles int64
	// Min, Act, Avg and Max are the latencies in microseconds.
	Min, Act, Avg, Max int64
}

// ParseCyclictest reads the thread lines ("T: 0 ( 2702) P: 2 I:1000 C: 50 Min: 12 Act: 13
// Avg: 14 Max: 25") of cyclictest's output; other lines are skipped. It is an error if there is
// none.
func ParseCyclictest(out string) ([]CyclicThread, error) {
	const file = "cyclictest"
	var ts []CyclicThread
	for i, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "T:") {
			continue
		}
		// "T: 0 ( 2702) P: 2 I:1000 …": the TID loses its parentheses and each key its value.
		f := strings.Fields(strings.NewReplacer("(", " ", ")", " ", ":", ": ").Replace(l))
		pattern := []string{"T:", "", "", "P:", "", "I:", "", "C:", "", "Min:", "", "Act:", "", "Avg:", "", "Max:", ""}
		if len(f) < len(pattern) {
			return nil, &ParseError{File: file, Line: i + 1, Col: len(l) + 1, Msg: "thread line cut short"}
		}
		var v []int64
		for j, want := range pattern {
			col := 1 + max(0, strings.Index(l, strings.TrimSuffix(f[j], ":")))
			if want != "" {
				if f[j] != want {
					return nil, &ParseError{File: file, Line: i + 1, Col: col, Msg: fmt.Sprintf("%q where %s was expected", f[j], want)}
				}
				continue
			}
			n, err := parseCount(f[j])
			if err != nil {
				return nil, &ParseError{File: file, Line: i + 1, Col: col, Msg: err.Error()}
			}
			v = append(v, n)
		}
		ts = append(ts, CyclicThread{Thread: int(v[0]), TID: int(v[1]), Prio: int(v[2]), Interval: v[3], Cycles: v[4],
			Min: v[5], Act: v[6], Avg: v[7], Max: v[8]})
	}
	if len(ts) == 0 {
		return nil, &ParseError{File: file, Line: strings.Count(out, "\n") + 1, Col: 1, Msg: "no thread line"}
	}
	return ts, nil
}

// A StressMetric is one stressor's line of stress-ng --metrics-brief.
type StressMetric struct {
	// Stressor names it, such as "cpu".
	Stressor string
	// BogoOps is its bogo operation count; Real, User and Sys its times.
	BogoOps         int64
	Real, User, Sys time.Duration
	// PerSec is bogo ops per second of real time, PerCPUSec per second of user and system time.
	PerSec, PerCPUSec float64
}

// ParseStressNG reads the metric lines of stress-ng --metrics-brief ("stress-ng: metrc: [pid]
// cpu 1758 1.00 0.99 0.00 1755.99 1760.29"); header lines are skipped. It is an error if there
// is none.
func ParseStressNG(out string) ([]StressMetric, error) {
	const file = "stress-ng"
	var ms []StressMetric
	for i, l := range strings.Split(out, "\n") {
		_, rest, ok := strings.Cut(l, "metrc: [")
		if !ok {
			continue
		}
		_, rest, ok = strings.Cut(rest, "] ")
		f := strings.Fields(rest)
		if !ok || len(f) != 7 || f[0] == "stressor" || strings.HasPrefix(f[0], "(") {
			continue
		}
		col := len(l) - len(rest) + 1
		n, err := parseCount(f[1])
		if err != nil {
			return nil, &ParseError{File: file, Line: i + 1, Col: col, Msg: err.Error()}
		}
		var d [3]time.Duration
		for j := range d {
			if d[j], err = parseSeconds(f[2+j]); err != nil {
				return nil, &ParseError{File: file, Line: i + 1, Col: col, Msg: err.Error()}
			}
		}
		var r [2]float64
		for j := range r {
			if r[j], err = strconv.ParseFloat(f[5+j], 64); err != nil || r[j] < 0 {
				return nil, &ParseError{File: file, Line: i + 1, Col: col, Msg: strconv.Quote(f[5+j]) + " is not a rate"}
			}
		}
		ms = append(ms, StressMetric{Stressor: f[0], BogoOps: n, Real: d[0], User: d[1], Sys: d[2], PerSec: r[0], PerCPUSec: r[1]})
	}
	if len(ms) == 0 {
		return nil, &ParseError{File: file, Line: strings.Count(out, "\n") + 1, Col: 1, Msg: "no metric line"}
	}
	return ms, nil
}
