package host

// This file implements the experiments of the model-vs-host table: seed 000's pipeline beside a
// pinned hog, seed 000's nice 0 vs nice 19 split, and seed 004's idle group.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// PipelineCosts are the costs of seed 000's tar | gzip as workload parameters: what tar spends
// per record it writes, what gzip spends per record it compresses, and how many records the
// pipe holds. MeasurePipeline measures them from the real programs.
type PipelineCosts struct {
	// Tar and Gzip are the CPU time per record of the producer and of the consumer.
	Tar, Gzip time.Duration
	// Cap is the number of records the pipe holds (pipe capacity / record size).
	Cap int
	// Records is the number of records the pipeline moves.
	Records int
}

// Seed000Costs are the costs measured on the machine this package was developed on with
// MeasurePipeline: tar cf - of /usr/share/doc (117 MB) into gzip pinned to one CPU, tar's
// 10240-byte records (its default blocking factor of 20), 40.5 us of tar CPU per record and
// 3.12 s of gzip CPU per 121 MB read (264 us per record), a 64 KiB pipe (6 records). Records is
// 1000, about a quarter of a second of gzip.
var Seed000Costs = PipelineCosts{Tar: 40500 * time.Nanosecond, Gzip: 264 * time.Microsecond, Cap: 6, Records: 1000}

// A Hog is the kind of CPU hog seed 000 pins beside gzip.
type Hog int

// The hogs of seed 000's table: none (the baseline), nice 0, nice 19 (Linux's weakest nice;
// the seed's nice 20 is FreeBSD's) and SCHED_IDLE.
const (
	NoHog Hog = iota
	HogNice0
	HogNice19
	HogIdle
)

var hogNames = [...]string{NoHog: "no hog", HogNice0: "nice 0 hog", HogNice19: "nice 19 hog", HogIdle: "SCHED_IDLE hog"}

func (h Hog) String() string { return hogNames[h] }

// Box is the group every experiment's threads run in, so that a host run has a parent group
// whose weight CompareOptions.Weight can raise above the other programs of a busy machine. The
// simulator, where the box is the only group at the top, predicts the same with or without it.
const Box = "group box\n"

// Seed000Workload returns seed 000's pipeline: tar on cpu a sending records through a pipe to
// gzip on cpu b, beside a hog of kind h pinned to b, all in the Box.
func Seed000Workload(c PipelineCosts, h Hog, a, b int) *workload.Workload {
	text := Box + fmt.Sprintf(`pipe records cap=%d
thread tar cpus=%d group=box
	repeat %d
		run %dns
		send records
	end
end
thread gzip cpus=%d group=box
	repeat %d
		recv records
		run %dns
	end
end
`, c.Cap, a, c.Records, c.Tar.Nanoseconds(), b, c.Records, c.Gzip.Nanoseconds())
	switch h {
	case HogNice0:
		text += fmt.Sprintf("thread hog cpus=%d group=box\n\trun forever\nend\n", b)
	case HogNice19:
		text += fmt.Sprintf("thread hog cpus=%d group=box nice=19\n\trun forever\nend\n", b)
	case HogIdle:
		text += fmt.Sprintf("thread hog cpus=%d group=box class=idle\n\trun forever\nend\n", b)
	}
	return mustParse(text)
}

// Seed000Experiment returns the slowdown of gzip beside hog h against the baseline without it.
// The limit leaves room for a slowdown of 10 on the costs' gzip time, for a machine loaded with
// other work; a run in which gzip does not finish has no figure.
func Seed000Experiment(c PipelineCosts, h Hog, a, b int, reported string) Experiment {
	limit := 10*time.Duration(c.Records)*(c.Gzip+c.Tar) + 200*time.Millisecond
	return Experiment{Name: "seed000 tar|gzip, " + h.String(), Workload: Seed000Workload(c, h, a, b),
		Baseline: Seed000Workload(c, NoHog, a, b), Metric: Metric{Name: "gzip slowdown (x)", Of: CompletionOf("gzip").Of},
		Limit: limit, Reported: reported}
}

// Seed000Real runs the real tar cf - of dir piped into gzip pinned to cpu b, beside a hog of kind
// h pinned to b (a thread of the runner), and returns the pipeline's wall time. The pipeline is
// an awaited peer running in the Box with the hog, so the run ends with it.
//
// opts are the run's Options (a Limit, a Weight); their Peers are replaced.
func Seed000Real(ctx context.Context, dir string, h Hog, b int, opts Options) (time.Duration, error) {
	w := Seed000Workload(PipelineCosts{Cap: 1, Records: 1, Tar: 1, Gzip: 1}, h, b, b)
	// The hog alone, in the Box with the pipeline (not in a group of its own, which would weigh
	// as much as a nice 0 thread whatever its nice value).
	w.Pipes, w.Threads = nil, slices.DeleteFunc(w.Threads, func(t workload.Thread) bool { return t.Name != "hog" })
	if h == NoHog {
		w = mustParse(Box + "thread idle group=box\n\trun 1us\nend\n")
	}
	sh := fmt.Sprintf("tar cf - -C %s . | taskset -c %d gzip > /dev/null", shellQuote(dir), b)
	opts.Peers = []Peer{{Name: "tar|gzip", Args: []string{"sh", "-c", sh}, Group: "box", Await: true}}
	r, err := Run(ctx, w, opts)
	if err != nil {
		return 0, err
	}
	p := r.Peers[0]
	if !p.Exited || p.Err != nil {
		return 0, fmt.Errorf("host: %s did not finish within %v: %v %s", sh, opts.Limit, p.Err, p.Output)
	}
	return time.Duration(p.End - p.Start), nil
}

// Seed000RealExperiment returns seed 000's slowdown measured with the real programs on dir (the
// host figure, wall time beside hog h over wall time alone, interleaved per repetition) beside
// the modelled pipeline with costs c (the model's figure).
func Seed000RealExperiment(dir string, c PipelineCosts, h Hog, a, b int, limit time.Duration, reported string) Experiment {
	e := Seed000Experiment(c, h, a, b, reported)
	e.Name = "seed000 real tar|gzip, " + h.String()
	e.HostFigure = func(ctx context.Context, opts Options) (float64, error) {
		opts.Limit = limit
		with, err := Seed000Real(ctx, dir, h, b, opts)
		if err != nil {
			return 0, err
		}
		alone, err := Seed000Real(ctx, dir, NoHog, b, opts)
		if err != nil {
			return 0, err
		}
		return float64(with) / float64(alone), nil
	}
	return e
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// NiceSplitExperiment returns two hogs pinned to cpu, nice 0 and nice 19, for d: the ratio of
// their CPU times, which Linux's weights put at 1024:15 (68.3) and seed 000 reports as about
// 50:50 under ULE (nice 0 vs nice 20).
func NiceSplitExperiment(cpu int, d time.Duration) Experiment {
	w := mustParse(Box + fmt.Sprintf(`thread nice0 cpus=%d group=box
	run forever
end
thread nice19 cpus=%d group=box nice=19
	run forever
end
`, cpu, cpu))
	return Experiment{Name: "seed000 nice 0 vs nice 19 hogs", Workload: w, Metric: CPURatio("nice0", "nice19"),
		Limit: d, Reported: "1024:15 = 68.3 (weights); ULE ~1 (seed 000)"}
}

// Seed004Workload returns seed 004's setup on one cpu: a latency probe (every 2ms, 100us of
// work, n periods) in a normal group beside a messaging load (two senders and two receivers on a
// pipe, 20us of work per message, like perf bench sched messaging) in a group marked idle
// (cpu.idle), or in a normal group when idle is false; both groups in the Box.
func Seed004Workload(cpu, n int, idle bool) *workload.Workload {
	flag := ""
	if idle {
		flag = " idle"
	}
	return mustParse(Box + fmt.Sprintf(`group online parent=box
group offline parent=box%s
pipe msg cap=8
thread probe group=online cpus=%d
	every 2ms %d
		run 100us
	end
end
thread sender count=2 group=offline cpus=%d
	loop
		run 20us
		send msg
	end
end
thread receiver count=2 group=offline cpus=%d
	loop
		recv msg
		run 20us
	end
end
`, flag, cpu, n, cpu, cpu))
}

// Seed004Experiment returns the probe's p-th percentile wake-up latency beside the messaging
// load in an idle group (idle) or in a normal one.
func Seed004Experiment(cpu, n int, p float64, idle bool) Experiment {
	name := "seed004 probe beside idle group"
	if !idle {
		name = "seed004 probe beside normal group"
	}
	return Experiment{Name: name, Workload: Seed004Workload(cpu, n, idle),
		Metric: LatencyOf("probe", p), Limit: time.Duration(n)*2*time.Millisecond + 100*time.Millisecond}
}

// ProbeAloneExperiment returns the p-th percentile wake-up latency of seed 004's probe alone in
// the Box, without the messaging load: what the machine itself gives a periodic thread.
func ProbeAloneExperiment(cpu, n int, p float64) Experiment {
	w := mustParse(Box + fmt.Sprintf("thread probe group=box cpus=%d\n\tevery 2ms %d\n\t\trun 100us\n\tend\nend\n", cpu, n))
	return Experiment{Name: "seed004 probe alone", Workload: w, Metric: LatencyOf("probe", p),
		Limit: time.Duration(n)*2*time.Millisecond + 100*time.Millisecond}
}

// mustParse parses a workload this file builds.
func mustParse(text string) *workload.Workload {
	w, err := workload.Parse(text)
	if err != nil {
		panic("host: internal error: " + err.Error())
	}
	return w
}
