package host

// This file implements the comparison of model and host: an Experiment run on the host kernel a
// few times and under simulated policies on the discovered topology, with the ratio of the two,
// a verdict on the host's range and a t test of the host's runs against the model's.

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/stat"
	"github.com/schedkit/schedkit/internal/numfmt"
	"github.com/schedkit/schedkit/topology"
)

// A Metric is the figure an Experiment compares: a name with its unit, and how to read it from a
// run (NaN if the run lacks it).
type Metric struct {
	Name string
	Of   func(r *sim.Result) float64
}

// CompletionOf is the time from the creation of the thread named name to its exit, in
// milliseconds; NaN if it did not exit within the run.
func CompletionOf(name string) Metric {
	return Metric{Name: name + " completion (ms)", Of: func(r *sim.Result) float64 {
		t, ok := r.Thread(name)
		if !ok {
			return math.NaN()
		}
		d, ok := t.Completion()
		if !ok {
			return math.NaN()
		}
		return float64(d) / 1e6
	}}
}

// CPURatio is the CPU time of thread a over that of thread b.
func CPURatio(a, b string) Metric {
	return Metric{Name: "CPU " + a + " / " + b, Of: func(r *sim.Result) float64 {
		x, ok1 := r.Thread(a)
		y, ok2 := r.Thread(b)
		if !ok1 || !ok2 || y.CPUTime == 0 {
			return math.NaN()
		}
		return float64(x.CPUTime) / float64(y.CPUTime)
	}}
}

// ShareOf is the percentage of its lifetime (until its exit or the end of the run) the thread
// named name spent on a CPU.
func ShareOf(name string) Metric {
	return Metric{Name: name + " CPU share (%)", Of: func(r *sim.Result) float64 {
		t, ok := r.Thread(name)
		if !ok || t.Lifetime() <= 0 {
			return math.NaN()
		}
		return 100 * t.Share()
	}}
}

// LatencyOf is the p-th percentile of the wake-up latencies of the thread named name, in
// microseconds.
func LatencyOf(name string, p float64) Metric {
	return Metric{Name: fmt.Sprintf("%s p%v latency (us)", name, p), Of: func(r *sim.Result) float64 {
		t, ok := r.Thread(name)
		if !ok {
			return math.NaN()
		}
		l, ok := t.Latency(p)
		if !ok {
			return math.NaN()
		}
		return float64(l) / 1e3
	}}
}

// An Experiment is a workload and the figure that sums up a run of it.
type Experiment struct {
	// Name names the experiment in the table.
	Name string
	// Workload is what runs.
	Workload *workload.Workload
	// Baseline, if not nil, runs too, and the figure is Metric of Workload over Metric of
	// Baseline (a slowdown, as seed 000 reports it).
	Baseline *workload.Workload
	// Metric is the figure.
	Metric Metric
	// Limit bounds each run, on the host and in the model.
	Limit time.Duration
	// Reported is what was reported elsewhere for the same figure (a seed, an earlier
	// measurement), shown in the table; "" for none.
	Reported string
	// HostFigure, if not nil, measures the host's figure instead of a run of Workload (and
	// Baseline): the real programs the workload models, for instance, with the Options (Seed,
	// Weight) of the repetition.
	HostFigure func(ctx context.Context, opts Options) (float64, error)
	// Goal, if its Name is not "", is the band the nearest model's figure over the host's
	// median must lie in (Row.Goal).
	Goal Goal
	// Costs, if not nil, adjusts the costs the models charge after the profile's are applied:
	// for a step the machine charges whose cost in the experiment's own shape the profile
	// measures apart (a program figure), as hackbench's switches of address space among many
	// processes (switch_mm_ring) against perf bench sched pipe's two (switch_mm).
	Costs func(*sim.Costs)
}

// CompareOptions configure Compare.
type CompareOptions struct {
	// Reps is the number of host runs per experiment (and per baseline); 0 means 3.
	Reps int
	// Seed seeds the host runs and the simulations.
	Seed uint64
	// Topology is the simulated machine; nil means topology.Discover().
	Topology *topology.Topology
	// Release is the kernel release the nearest preset is chosen for; "" means the running one.
	Release string
	// Policies are the simulated policies (bench/presets names) shown for context beside the
	// nearest one; nil means cfs:v6.5, cfs:v6.6, cfs:v6.18, cfs:v7.1, ule:legacy and ule:main.
	Policies []string
	// Tolerance is how far outside the host's range (relative) the nearest model may be and
	// still agree; 0 means 0.10.
	Tolerance float64
	// ModelOnly skips the host runs: the rows have the models' figures only. Its output is
	// deterministic.
	ModelOnly bool
	// Weight is Options.Weight of every host run: the weight of the run's parent group against
	// the rest of the machine.
	Weight uint64
	// KeepSignals is Options.KeepSignals of every host run: SIGINT, SIGTERM and SIGHUP are left to the
	// caller, whose ctx then stops the run (Compare returns its error).
	KeepSignals bool
	// Confidence is the level, in percent, of the t test of the host's runs against the
	// nearest model's (Row.Stat); 0 means 95.
	Confidence float64
	// Profile is the machine profile the models charge; nil means sim.DefaultProfile. Its
	// Machine.Hz, if not 0, is the clock rate of the models of Linux (the cfs presets): the
	// kernel's CONFIG_HZ where it was measured.
	Profile *sim.Profile
}

// A Row is one experiment's comparison.
type Row struct {
	// Experiment and Metric name the row.
	Experiment, Metric string
	// Host are the host's figures, one per repetition, in the order measured; NaN for a
	// repetition without the figure (a thread that did not finish within the limit).
	Host []float64
	// Nearest is the preset nearest the running kernel; Models are the simulated figures, one
	// per policy, Nearest's first.
	Nearest string
	Models  []ModelFigure
	// Ratio is the nearest model's figure over the median of the host's.
	Ratio float64
	// Verdict is "agrees" when the nearest model's figure lies within the host's range widened
	// by the tolerance and that range is at most half the host's median wide, "inconclusive"
	// when it lies within a wider range, else how far it lies outside ("model 35% high").
	Verdict string
	// ModelRuns are the nearest model's figures over as many seeds as the host has
	// repetitions, the seeds of the host's runs (Seed, Seed+1, …), the first Models[0].Value;
	// none with ModelOnly. The model is deterministic per seed, and a workload without random
	// durations gives the same figure for every seed.
	ModelRuns []float64
	// Stat is the t test of Host against ModelRuns (see HostVsModel).
	Stat StatVerdict
	// Reported is the experiment's Reported.
	Reported string
	// Load is the lowest and highest one-minute load average seen during the host runs.
	Load [2]float64
	// Others is the share of the machine's CPU time that anything but the host runs took while
	// they ran (see Busy), where OthersMeasured.
	Others         float64
	OthersMeasured bool
	// Goal is the experiment's goal, and Meets whether the nearest model's ratio lies within
	// it; Goal.Name is "" for an experiment without one, or a row without a ratio.
	Goal  Goal
	Meets bool
	// Profile names the machine profile the models charged (sim.Profile.String).
	Profile string
}

// A ModelFigure is one simulated policy's figure.
type ModelFigure struct {
	Policy string
	Value  float64
}

// Compare runs each experiment on the host (Reps times, in rounds over the experiments, each
// repetition's baseline run right after it; see hostRounds) and under each simulated policy,
// and returns one Row per experiment.
func Compare(ctx context.Context, exps []Experiment, o CompareOptions) ([]Row, error) {
	if o.Reps == 0 {
		o.Reps = 3
	}
	if o.Reps < 0 || o.Reps > 100 {
		return nil, limitErr("Reps %d outside 1..100", o.Reps)
	}
	if o.Tolerance == 0 {
		o.Tolerance = 0.10
	}
	if o.Confidence == 0 {
		o.Confidence = 95
	}
	if !(o.Confidence > 0 && o.Confidence < 100) {
		return nil, limitErr("Confidence %g%% not strictly between 0 and 100", o.Confidence)
	}
	topo := o.Topology
	if topo == nil {
		var err error
		if topo, err = topology.Discover(); err != nil {
			return nil, fmt.Errorf("host: %w", err)
		}
	}
	rel := o.Release
	if rel == "" {
		rel = Release()
	}
	if o.Profile == nil {
		o.Profile = sim.DefaultProfile()
	}
	nearest := NearestPolicy(rel)
	policies := []string{nearest}
	for _, p := range cmpOr(o.Policies, contextPolicies) {
		if p != nearest {
			policies = append(policies, p)
		}
	}
	rows := make([]Row, len(exps))
	for i, e := range exps {
		rows[i] = Row{Experiment: e.Name, Metric: e.Metric.Name, Nearest: nearest, Reported: e.Reported,
			Load: [2]float64{math.Inf(1), 0}, Profile: o.Profile.String()}
	}
	if !o.ModelOnly {
		if err := hostRounds(ctx, exps, o, rows); err != nil {
			return nil, err
		}
	}
	for i, e := range exps {
		row := &rows[i]
		for _, name := range policies {
			v, err := modelExperiment(topo, o.Profile, name, e, o.Seed)
			if err != nil {
				return nil, err
			}
			row.Models = append(row.Models, ModelFigure{Policy: name, Value: v})
		}
		if !o.ModelOnly {
			row.ModelRuns = append(row.ModelRuns, row.Models[0].Value)
			for rep := 1; rep < o.Reps; rep++ {
				v, err := modelExperiment(topo, o.Profile, nearest, e, o.Seed+uint64(rep))
				if err != nil {
					return nil, err
				}
				row.ModelRuns = append(row.ModelRuns, v)
			}
		}
		row.Ratio, row.Verdict = verdict(row.Models[0].Value, row.Host, o.Tolerance)
		if e.Goal.Name != "" && !math.IsNaN(row.Ratio) {
			row.Goal, row.Meets = e.Goal, e.Goal.Meets(row.Ratio)
		}
		row.Stat = HostVsModel(row.Host, row.ModelRuns, o.Confidence)
	}
	return rows, nil
}

// hostRounds measures every experiment on the host o.Reps times into its row, a round at a
// time: the first repetition of every experiment, then the second, and so on. The machine's
// own pace drifts over minutes (on the project's CI machine a whole table has run a third slower
// than one made minutes before); repetitions made back to back would put a slow minute into
// every figure of the rows measured in it, and their medians with it, where spread over the
// table's rounds it falls on one repetition of several rows and their medians stand. Each row
// gets the load averages seen during its runs (Row.Load) and the share of the CPU time others
// took during them (Row.Others).
func hostRounds(ctx context.Context, exps []Experiment, o CompareOptions, rows []Row) error {
	others := make([]othersTally, len(exps))
	for rep := range o.Reps {
		for i, e := range exps {
			start := markCPU()
			if err := hostRun(ctx, e, o, rep, &rows[i]); err != nil {
				return err
			}
			others[i].add(start, markCPU())
		}
	}
	for i := range rows {
		rows[i].Others, rows[i].OthersMeasured = others[i].share()
	}
	return nil
}

// hostRun measures repetition rep of experiment e on the host into row.Host (its own figure,
// or the workload's metric over the baseline's when it has one, the baseline run right after),
// widening row.Load to the load averages seen.
func hostRun(ctx context.Context, e Experiment, o CompareOptions, rep int, row *Row) error {
	opts := Options{Limit: e.Limit, Seed: o.Seed + uint64(rep), Weight: o.Weight, KeepSignals: o.KeepSignals}
	if e.HostFigure != nil {
		v, err := e.HostFigure(ctx, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		row.Host = append(row.Host, v)
		row.Load[0], row.Load[1] = min(row.Load[0], loadNow()), max(row.Load[1], loadNow())
		return nil
	}
	v, err := hostFigure(ctx, e.Workload, opts, e.Metric, &row.Load)
	if err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	if e.Baseline != nil {
		b, err := hostFigure(ctx, e.Baseline, opts, e.Metric, &row.Load)
		if err != nil {
			return fmt.Errorf("%s (baseline): %w", e.Name, err)
		}
		v /= b
	}
	row.Host = append(row.Host, v)
	return nil
}

func cmpOr(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

func hostFigure(ctx context.Context, w *workload.Workload, opts Options, m Metric, load *[2]float64) (float64, error) {
	r, err := Run(ctx, w, opts)
	if err != nil {
		return 0, err
	}
	for _, l := range r.Load {
		load[0], load[1] = min(load[0], l), max(load[1], l)
	}
	return m.Of(&r.Result), nil
}

// modelExperiment returns e's figure under the named policy on topo with seed and profile p:
// Metric of a simulated run of e.Workload, over that of e.Baseline if there is one.
//
// A workload the host runner plays (one without HostFigure) runs there as threads of one process,
// the runner: its model's threads are made threads of one process too (oneProcess), so that the
// model charges no switch of address space (sim.Costs.SwitchMM) the host does not make.
func modelExperiment(topo *topology.Topology, p *sim.Profile, name string, e Experiment, seed uint64) (float64, error) {
	if e.HostFigure == nil {
		e.Workload, e.Baseline = oneProcess(e.Workload), oneProcess(e.Baseline)
	}
	v, err := modelFigure(topo, p, name, e.Workload, seed, e)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", e.Name, name, err)
	}
	if e.Baseline != nil {
		b, err := modelFigure(topo, p, name, e.Baseline, seed, e)
		if err != nil {
			return 0, fmt.Errorf("%s (baseline): %s: %w", e.Name, name, err)
		}
		v /= b
	}
	return v, nil
}

// modelFigure simulates w under the named policy on topo, charging the costs of profile prof
// as e adjusts them (e.Costs; and, for Linux's presets, ticking at its machine's HZ), for
// e.Limit at most, and returns e.Metric of the run.
func modelFigure(topo *topology.Topology, prof *sim.Profile, name string, w *workload.Workload, seed uint64, e Experiment) (float64, error) {
	p, groups, err := NewPolicy(name)
	if err != nil {
		return 0, err
	}
	cfg := sim.Config{Topology: topo, Seed: seed, FlattenGroups: !groups}
	prof.Apply(&cfg)
	if e.Costs != nil {
		e.Costs(&cfg.Costs)
	}
	switch {
	case strings.HasPrefix(name, "ule:") || strings.HasPrefix(name, "bsd4:"):
		cfg.StatHz = 127 // FreeBSD's stathz on x86
	case prof.Machine.Hz > 0:
		cfg.Hz = prof.Machine.Hz
	}
	r, err := sim.Run(cfg, p, w, e.Limit)
	if err != nil {
		return 0, err
	}
	return e.Metric.Of(r), nil
}

// runnerProcess is the process name oneProcess gives every thread of a workload.
const runnerProcess = "runner"

// oneProcess returns a copy of w whose every declaration is a thread of one process, as the host
// runner plays it; nil for nil.
func oneProcess(w *workload.Workload) *workload.Workload {
	if w == nil {
		return nil
	}
	c := *w
	c.Threads = slices.Clone(w.Threads)
	for i := range c.Threads {
		c.Threads[i].Process = runnerProcess
	}
	return &c
}

// WriteRows writes rows as an aligned text table: the experiment, the metric, the host's median
// and range over its repetitions, the figure reported elsewhere, each model's figure (nearest
// first, marked *), the ratio of the nearest model to the host's median, the verdict on the
// host's range and the t test (Row.Stat); then the load the host runs saw and what the t test
// compared.
func WriteRows(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var policies []string
	for _, r := range rows {
		for i, m := range r.Models {
			name := m.Policy
			if i == 0 {
				name += "*"
			}
			if !slices.Contains(policies, name) {
				policies = append(policies, name)
			}
		}
	}
	fmt.Fprintf(tw, "experiment\tmetric\thost median [min, max]\tload\treported\t%s\tmodel/host\tverdict\tgoal\tt test\n", strings.Join(policies, "\t"))
	lo, hi := math.Inf(1), 0.0
	profiles := []string{}
	busy := 0
	for _, r := range rows {
		s := finite(r.Host)
		host, load := "-", "-"
		if len(s) > 0 {
			host = fmt.Sprintf("%s [%s, %s]", numfmt.Sig3(stat.Median(s)), numfmt.Sig3(s[0]), numfmt.Sig3(s[len(s)-1]))
			if len(s) < len(r.Host) {
				host += fmt.Sprintf(" (%d of %d runs)", len(s), len(r.Host))
			}
			lo, hi = min(lo, r.Load[0]), max(hi, r.Load[1])
			load = loadCell(&r)
			if r.Busy() {
				busy++
			}
		}
		if r.Profile != "" && !slices.Contains(profiles, r.Profile) {
			profiles = append(profiles, r.Profile)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s", r.Experiment, r.Metric, host, load, cmpStr(r.Reported, "-"))
		for _, p := range policies {
			v := math.NaN()
			for i, m := range r.Models {
				name := m.Policy
				if i == 0 {
					name += "*"
				}
				if name == p {
					v = m.Value
				}
			}
			if math.IsNaN(v) {
				fmt.Fprint(tw, "\t-")
			} else {
				fmt.Fprintf(tw, "\t%s", numfmt.Sig3(v))
			}
		}
		goal := "-"
		switch {
		case r.Goal.Name != "" && r.Meets:
			goal = "meets " + r.Goal.Name
		case r.Goal.Name != "":
			goal = "misses " + r.Goal.Name
		}
		fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s\n", numfmt.Sig3(r.Ratio), r.Verdict, goal, r.Stat)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(profiles) > 0 {
		fmt.Fprintf(w, "(the models charge machine profile %s)\n", strings.Join(profiles, ", "))
	}
	if busy > 0 {
		fmt.Fprintf(w, "(busy: %d row(s) in whose host runs other programs, the kernel's threads or the hypervisor took more than %.0f%% of the machine's CPU time (\"others\"), or, where that was not measured, the one-minute load average rose above %.1f; their figures are the busy machine's)\n", busy, 100*BusyShare, BusyLoad)
	}
	if hi == 0 {
		_, err := fmt.Fprintln(w, "(* the preset nearest the kernel)")
		return err
	}
	_, err := fmt.Fprintf(w, "(* the preset nearest the running kernel; one-minute load average %.2f-%.2f during the host runs, their own threads included)\n"+
		"(t test: Welch's t of the host's runs, the baseline, against the nearest model's over as many seeds, the one-sample t where the model's runs are all the same; a difference is the model's mean minus the host's)\n", lo, hi)
	return err
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// loadNow returns the one-minute load average, or 0 where there is none.
func loadNow() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	v, _ := ParseLoadavg(string(b))
	return v
}

// finite returns the figures of v that are numbers, sorted.
func finite(v []float64) []float64 {
	s := slices.DeleteFunc(slices.Clone(v), math.IsNaN)
	slices.Sort(s)
	return s
}
