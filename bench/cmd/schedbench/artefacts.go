package main

// This file implements -o DIR: every artefact of a run written atomically into one directory,
// with names a person can guess, and index.html bundling them.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/plot"
	"github.com/schedkit/schedkit/bench/report"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/stat"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/internal/numfmt"
	"github.com/schedkit/schedkit/internal/outfile"
)

// An artefact is one file of -o: a name and what to write into it.
type artefact struct {
	name string
	fill func(w io.Writer) error
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName makes s safe as part of a file name.
func fileName(s string) string { return unsafeName.ReplaceAllString(s, "_") }

// maxGroupFigures bounds the groups that get figures of their own (a latency distribution, and
// with repetitions two distributions per repetition): the first ones in order of appearance. A
// workload of a million threads with names of their own would otherwise draw a million files.
const maxGroupFigures = 40

// A runSummary is what the pictures need of one run, gathered in one pass over its threads: the
// sum and count of the CPU shares of the threads of each name and of each group (the threads of
// one declaration: hog.0 … hog.3 of "thread hog count=4"), and the wake-to-run latencies of the
// threads of each drawn group, pooled.
type runSummary struct {
	byName, byGroup map[string]*shareSum
	latency         map[string]*sim.Histogram
}

// A shareSum adds up the CPU shares of n threads.
type shareSum struct {
	sum float64
	n   int
}

func (s *shareSum) add(v float64) { s.sum += v; s.n++ }

// summarize returns r's runSummary, with the latencies of the groups in drawn.
func summarize(r *sim.Result, drawn map[string]bool) *runSummary {
	rs := &runSummary{byName: map[string]*shareSum{}, byGroup: map[string]*shareSum{}, latency: map[string]*sim.Histogram{}}
	for i := range r.Threads {
		t := &r.Threads[i]
		g := t.Decl
		for _, m := range []struct {
			m   map[string]*shareSum
			key string
		}{{rs.byName, t.Name}, {rs.byGroup, g}} {
			if m.m[m.key] == nil {
				m.m[m.key] = &shareSum{}
			}
			m.m[m.key].add(t.Share())
		}
		if drawn[g] {
			if rs.latency[g] == nil {
				rs.latency[g] = &sim.Histogram{}
			}
			rs.latency[g].Merge(&t.Wakeup)
		}
	}
	return rs
}

// pooled returns the wake-to-run latencies of the threads of group g over the summarized runs,
// sorted: the simulator's histograms of those threads merged (Histogram.Merge), every sample
// while they fit its exact budget, and beyond one value per 1/1000 of the samples at evenly
// spaced percentiles, within the histogram's bound of 1/128 of the value.
func pooled(runs []*runSummary, g string) []int64 {
	var h sim.Histogram
	for _, r := range runs {
		if l := r.latency[g]; l != nil {
			h.Merge(l)
		}
	}
	if vs, ok := h.Exact(); ok {
		vs = slices.Clone(vs)
		slices.Sort(vs)
		return vs
	}
	const k = 1000
	out := make([]int64, 0, k)
	for i := range k {
		if v, ok := h.Percentile((float64(i) + 0.5) / k * 100); ok {
			out = append(out, v)
		}
	}
	return out
}

// A picturer draws the figures of a run and keeps the artefacts that hold them.
type picturer struct {
	s                  *setup
	f                  *runFlags
	threads, policies  *plot.Palette
	cols               []int           // the policies with a finished run
	names, drawnGroups []string        // the threads, and the groups (declarations) with figures
	sums               [][]*runSummary // per policy, per repetition
	limitNote          string
	files              []artefact
}

// pictures builds the figures of a run and the artefacts that hold them, grouped into report
// sections.
func pictures(s *setup, f *runFlags, cells []*cell, runs [][]*sim.Result, sum *sim.Summary) ([]artefact, []report.Section, error) {
	pc := &picturer{s: s, f: f, threads: &plot.Palette{}, policies: &plot.Palette{}}
	for p, rs := range runs {
		pc.policies.Colour(s.policies[p].name)
		if len(rs) > 0 {
			pc.cols = append(pc.cols, p)
		}
	}
	for _, r := range sum.Threads {
		pc.names = append(pc.names, r.Name)
		pc.threads.Colour(r.Name)
	}
	// The groups (declarations), in order of first appearance, and those drawn.
	groups := sum.Decls()
	pc.drawnGroups = groups[:min(len(groups), maxGroupFigures)]
	drawn := map[string]bool{}
	for _, g := range pc.drawnGroups {
		drawn[g] = true
	}
	pc.sums = make([][]*runSummary, len(runs))
	for p, rs := range runs {
		for _, r := range rs {
			pc.sums[p] = append(pc.sums[p], summarize(r, drawn))
		}
	}
	if len(groups) > len(pc.drawnGroups) {
		pc.limitNote = fmt.Sprintf(" Only the first %d of the %d groups have figures of their own.", len(pc.drawnGroups), len(groups))
	}
	var sections []report.Section
	for _, build := range []func() (report.Section, error){
		func() (report.Section, error) { return pc.gantt(cells) }, pc.latency, pc.shares, pc.repetitions,
	} {
		sec, err := build()
		if err != nil {
			return nil, nil, err
		}
		if sec.Heading != "" {
			sections = append(sections, sec)
		}
	}
	return pc.files, sections, nil
}

// add draws a figure into sec and keeps it as the artefact name.
func (pc *picturer) add(sec *report.Section, name, caption string, draw func(w io.Writer) error) error {
	var b bytes.Buffer
	if err := draw(&b); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	data := b.Bytes()
	pc.files = append(pc.files, artefact{name, func(w io.Writer) error { _, err := w.Write(data); return err }})
	sec.Figures = append(sec.Figures, report.Figure{Caption: caption, SVG: data, File: name})
	return nil
}

// gantt draws who ran where in repetition 0 of each policy, whole and zoomed.
func (pc *picturer) gantt(cells []*cell) (report.Section, error) {
	s := pc.s
	sec := report.Section{Heading: "Who ran where", ID: "gantt",
		Text: "One lane per CPU, a colour per thread (the same under every policy). Triangles mark wake-ups on the CPU the thread then ran on, with a line to when it ran; dots mark migrations; red bars preemptions. Runs narrower than a pixel are folded: each pixel shows the thread that ran longest in it, fainter the idler it was."}
	for _, c := range cells {
		if c.rep != 0 || c.result == nil || c.result.Trace == nil {
			continue
		}
		r, name := c.result, s.policies[c.policy].name
		end := r.End
		o := plot.GanttOptions{End: end, CPUs: s.topo.NumCPUs(), Palette: pc.threads,
			Title: fmt.Sprintf("%s under %s, 0 to %s", s.wname, name, numfmt.Duration(end))}
		if err := pc.add(&sec, "gantt-"+fileName(name)+".svg", o.Title, func(w io.Writer) error { return plot.Gantt(w, r.Trace, o) }); err != nil {
			return sec, err
		}
		if z := int64(pc.f.zoom); z < end {
			oz := o
			oz.To = z
			oz.Title = fmt.Sprintf("%s under %s, the first %s", s.wname, name, numfmt.Duration(z))
			if err := pc.add(&sec, "gantt-"+fileName(name)+"-first-"+fileName(time.Duration(z).String())+".svg", oz.Title, func(w io.Writer) error { return plot.Gantt(w, r.Trace, oz) }); err != nil {
				return sec, err
			}
		}
	}
	return sec, nil
}

// latency draws the wake-up latency distributions, one chart per drawn group.
func (pc *picturer) latency() (report.Section, error) {
	sec := report.Section{Heading: "Wake-up latency", ID: "latency",
		Text: "The fraction of wake-ups that waited at most each latency before running, pooled over the group's threads and every repetition; one curve per policy." + pc.limitNote}
	for _, g := range pc.drawnGroups {
		var series []plot.Series
		some := false
		for _, p := range pc.cols {
			vs := pooled(pc.sums[p], g)
			some = some || len(vs) > 0
			series = append(series, plot.Series{Name: pc.s.policies[p].name, Values: vs})
		}
		if !some {
			continue
		}
		o := plot.CDFOptions{Title: "wake-to-run latency of " + g, Log: !pc.f.linear, Palette: pc.policies}
		if err := pc.add(&sec, "cdf-"+fileName(g)+".svg", o.Title, func(w io.Writer) error { return plot.CDF(w, series, o) }); err != nil {
			return sec, err
		}
	}
	return sec, nil
}

// shares draws the CPU share per thread (per group when there are too many threads to read),
// each the median over the repetitions.
func (pc *picturer) shares() (report.Section, error) {
	sec := report.Section{Heading: "CPU shares", ID: "shares", Text: "Each thread's share of a CPU over its lifetime, the median over the repetitions."}
	rows, perGroup := pc.names, false
	if len(pc.names) > 40 {
		rows, perGroup = pc.drawnGroups, true
		sec.Text = "Each group's mean share of a CPU over its threads' lifetimes (too many threads to show one by one), the median over the repetitions." + pc.limitNote
	}
	var polNames []string
	for _, p := range pc.cols {
		polNames = append(polNames, pc.s.policies[p].name)
	}
	table := make([][]float64, len(rows))
	for i, row := range rows {
		for _, p := range pc.cols {
			var vs []float64
			for _, rs := range pc.sums[p] {
				by := rs.byName
				if perGroup {
					by = rs.byGroup
				}
				if s := by[row]; s != nil && s.n > 0 {
					vs = append(vs, s.sum/float64(s.n))
				}
			}
			v := math.NaN()
			if len(vs) > 0 {
				v = stat.Median(slices.Sorted(slices.Values(vs)))
			}
			table[i] = append(table[i], v)
		}
	}
	if len(pc.cols) > 0 && len(rows) > 0 {
		o := plot.SharesOptions{Title: "CPU share by thread", Palette: pc.policies}
		if err := pc.add(&sec, "shares.svg", o.Title, func(w io.Writer) error { return plot.Shares(w, rows, polNames, table, o) }); err != nil {
			return sec, err
		}
	}
	return sec, nil
}

// repetitions draws, with -reps > 1, one point per repetition of each group's mean share and
// p99 wake-up latency, a box per policy; the zero Section without repetitions.
func (pc *picturer) repetitions() (report.Section, error) {
	s := pc.s
	if pc.f.reps <= 1 {
		return report.Section{}, nil
	}
	sec := report.Section{Heading: "Repetitions", ID: "repetitions",
		Text: fmt.Sprintf("One point per repetition (seeds %d..%d): whiskers from minimum to maximum, a box from the first to the third quartile, a line at the median, a diamond at the mean.", s.flags.seed, s.flags.seed+uint64(pc.f.reps)-1) + pc.limitNote}
	for _, g := range pc.drawnGroups {
		var shareS, p99S []plot.Sample
		anyLat := false
		for _, p := range pc.cols {
			sh := plot.Sample{Name: s.policies[p].name}
			lat := plot.Sample{Name: s.policies[p].name}
			for _, rs := range pc.sums[p] {
				if gs := rs.byGroup[g]; gs != nil && gs.n > 0 {
					sh.Values = append(sh.Values, gs.sum/float64(gs.n))
				}
				if h := rs.latency[g]; h != nil {
					if v, ok := h.Percentile(99); ok {
						lat.Values = append(lat.Values, float64(v))
						anyLat = true
					}
				}
			}
			shareS, p99S = append(shareS, sh), append(p99S, lat)
		}
		o := plot.DistOptions{Title: "mean CPU share of " + g + ", per repetition", Unit: "%", Palette: pc.policies}
		if err := pc.add(&sec, "dist-share-"+fileName(g)+".svg", o.Title, func(w io.Writer) error { return plot.Distribution(w, shareS, o) }); err != nil {
			return sec, err
		}
		if anyLat {
			o := plot.DistOptions{Title: "p99 wake-to-run latency of " + g + ", per repetition", Unit: "ns", Palette: pc.policies}
			if err := pc.add(&sec, "dist-p99-"+fileName(g)+".svg", o.Title, func(w io.Writer) error { return plot.Distribution(w, p99S, o) }); err != nil {
				return sec, err
			}
		}
	}
	return sec, nil
}

// writeArtefacts writes every artefact of a run into dir, each atomically, then index.html.
func writeArtefacts(dir string, s *setup, f *runFlags, cells []*cell, runs [][]*sim.Result, table []byte, sum *sim.Summary, args []string) error {
	files, sections, err := pictures(s, f, cells, runs, sum)
	if err != nil {
		return err
	}
	files = append([]artefact{
		{"table.txt", func(w io.Writer) error { _, err := w.Write(table); return err }},
		{"results.json", func(w io.Writer) error { return sum.Write(w, sim.JSON) }},
		{"results.csv", func(w io.Writer) error { return sum.Write(w, sim.CSV) }},
	}, files...)
	traces := report.Section{Heading: "Files", ID: "files", Text: "Every artefact of this run, in this directory. trace-POLICY.json opens in Perfetto (ui.perfetto.dev) and chrome://tracing; trace-POLICY.ftrace is the run as trace-cmd report prints sched_switch, sched_wakeup and their kin."}
	for _, c := range cells {
		if c.rep == 0 && c.result != nil && c.result.Trace != nil {
			tr, name := c.result.Trace, fileName(s.policies[c.policy].name)
			files = append(files,
				artefact{"trace-" + name + ".json", func(w io.Writer) error { return trace.WriteChrome(w, tr, nil) }},
				artefact{"trace-" + name + ".ftrace", func(w io.Writer) error { return trace.WriteFtrace(w, tr, nil) }})
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var list strings.Builder
	for _, a := range files {
		if err := outfile.Write(filepath.Join(dir, a.name), a.fill); err != nil {
			return err
		}
		list.WriteString(a.name + "\n")
	}
	list.WriteString("index.html\n")
	traces.Tables = []string{list.String()}
	context := []string{
		"schedbench run " + strings.Join(args, " "),
		fmt.Sprintf("Workload %s on topology %s (%d CPUs), hz %d, stathz %d, until %s, seed %d, %d repetition(s).",
			s.wname, s.topo, s.topo.NumCPUs(), s.flags.hz, s.flags.statHz, time.Duration(s.flags.until), s.flags.seed, f.reps),
	}
	if sum.Missing > 0 {
		context = append(context, fmt.Sprintf("Interrupted: %d of %d runs finished; only they are shown.", len(cells)-sum.Missing, len(cells)))
	}
	page := report.Page{Title: "schedbench: " + s.wname, Context: context,
		Sections: append([]report.Section{{Heading: "Table", ID: "table", Tables: []string{string(table)}}}, append(sections, traces)...)}
	return outfile.Write(filepath.Join(dir, "index.html"), func(w io.Writer) error { return report.Write(w, page) })
}
