package plot_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/plot"
	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// A Gantt chart of two hogs and a periodic thread on two CPUs under CFS: one lane per CPU.
func ExampleGantt() {
	w, _ := workload.Parse("thread hog count=2\n\trun forever\nend\nthread tick\n\tevery 2ms\n\t\trun 100us\n\tend\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1, Trace: sim.TraceFull}
	p, _ := presets.New("cfs:v6.5")
	r, _ := sim.Run(cfg, p, w, 20*time.Millisecond)
	var b bytes.Buffer
	if err := plot.Gantt(&b, r.Trace, plot.GanttOptions{Title: "two hogs and a ticker", End: r.End}); err != nil {
		fmt.Println(err)
	}
	svg := b.String()
	fmt.Println(strings.HasPrefix(svg, "<svg"), strings.Count(svg, `class="lane"`), strings.Count(svg, `class="wake"`) > 0)
	// Output: true 2 true
}

// One curve per policy; a policy whose threads were never woken is named in the legend only.
func ExampleCDF() {
	var b bytes.Buffer
	err := plot.CDF(&b, []plot.Series{
		{Name: "ule-main", Values: []int64{0, 0, 1000, 5000}},
		{Name: "cfs-v6.5", Values: []int64{2000, 3000, 3000, 9_000_000}},
		{Name: "4bsd-main"},
	}, plot.CDFOptions{Title: "wake-up latency", Log: true})
	fmt.Println(err, strings.Count(b.String(), `class="curve"`), strings.Contains(b.String(), "4bsd-main (no wake-ups)"))
	// Output: <nil> 2 true
}

// A bar per thread and policy.
func ExampleShares() {
	var b bytes.Buffer
	err := plot.Shares(&b, []string{"hog.0", "hog.1"}, []string{"ule", "cfs"},
		[][]float64{{0.9, 0.5}, {0.1, 0.5}}, plot.SharesOptions{Title: "nice 0 against nice 20"})
	fmt.Println(err, strings.Count(b.String(), `class="bar"`))
	// Output: <nil> 4
}

// Five repetitions per policy: a box and five points each, as ministat's plot shows them.
func ExampleDistribution() {
	var b bytes.Buffer
	err := plot.Distribution(&b, []plot.Sample{
		{Name: "ule", Values: []float64{61.2, 60.8, 61.9, 62.4, 61.0}},
		{Name: "4bsd", Values: []float64{45.1, 45.3, 44.9, 45.6, 45.2}},
	}, plot.DistOptions{Title: "makespan", Unit: "s"})
	fmt.Println(err, strings.Count(b.String(), `class="box"`), strings.Count(b.String(), `class="point"`))
	// Output: <nil> 2 10
}

// A ratio per repetition beside the figure a paper published for the same row: a triangle
// per mark, and a row whose runs are all equal said in words.
func ExampleMark() {
	var b bytes.Buffer
	err := plot.Distribution(&b, []plot.Sample{
		{Name: "stock", Values: []float64{1.84, 1.84, 1.84}, Marks: []plot.Mark{{Value: 20.05, Label: "seed 000: 20.05×"}}},
		{Name: "fix", Values: []float64{1.2, 1.3, 1.4}, Marks: []plot.Mark{{Value: 1.36, Label: "seed 000: 1.36×"}}},
	}, plot.DistOptions{Title: "slow-down", Unit: "×", Log: true, MarkLegend: "seed 000's figure"})
	svg := b.String()
	fmt.Println(err, strings.Count(svg, `class="mark"`), strings.Contains(svg, "all 3 runs 1.84×"))
	// Output: <nil> 2 true
}

func ExampleQuartiles() {
	fmt.Println(plot.Quartiles([]float64{1, 2, 3, 4, 5, 6, 7, 8}))
	// Output: 2.75 4.5 6.25
}

// The same name gets the same colour in every picture that shares the palette.
func ExamplePalette() {
	var p plot.Palette
	fmt.Println(p.Colour("hog.0"), p.Colour("ticker"), p.Colour("hog.0"), p.Names())
	// Output: #1f77b4 #ff7f0e #1f77b4 [hog.0 ticker]
}

// ExampleIsTimeUnit shows which units Distribution draws as durations: a caller labelling
// other units puts a space before them itself.
func ExampleIsTimeUnit() {
	for _, u := range []string{"ms", "µs", "%", "jobs/s"} {
		fmt.Println(u, plot.IsTimeUnit(u))
	}
	// Output:
	// ms true
	// µs true
	// % false
	// jobs/s false
}
