package plot

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// hackbench is a messaging workload that makes about 280 000 trace records per simulated
// second on 4 CPUs.
const hackbench = `pipe g0 cap=16
pipe g1 cap=16
thread send0 count=4
	loop
		run 20us
		send g0
	end
end
thread recv0 count=4
	loop
		recv g0
		run 30us
	end
end
thread send1 count=4
	loop
		run 20us
		send g1
	end
end
thread recv1 count=4
	loop
		recv g1
		run 30us
	end
end
`

// millionRecords returns a run of at least a million trace records.
func millionRecords(b *testing.B) *sim.Result {
	b.Helper()
	w, err := workload.Parse(hackbench)
	if err != nil {
		b.Fatal(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 4, 1), Seed: 1, Trace: sim.TraceFull}
	p, err := presets.New("cfs:v6.5")
	if err != nil {
		b.Fatal(err)
	}
	r, err := sim.Run(cfg, p, w, 4*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	if n := len(r.Trace.Records); n < 1_000_000 {
		b.Fatalf("%d records, want at least a million", n)
	}
	return r
}

// naiveGantt is the baseline: every run of a thread as its own rectangle, nothing folded,
// nothing marked.
func naiveGantt(w io.Writer, tr *sim.Trace, end int64, width int) error {
	cur := map[int]int32{}
	since := map[int]int64{}
	px := float64(width) / float64(end)
	for _, r := range tr.Records {
		if r.Kind != sim.KindSwitch {
			continue
		}
		c := int(r.CPU)
		if id, ok := cur[c]; ok && id >= 0 {
			if _, err := fmt.Fprintf(w, `<rect x="%s" y="%d" width="%s" height="24" fill="%s"/>`+"\n",
				num(float64(since[c])*px), c*30, num(float64(r.Time-since[c])*px), colours[int(id)%len(colours)]); err != nil {
				return err
			}
		}
		cur[c], since[c] = int32(r.Thread), r.Time
	}
	return nil
}

// BenchmarkGantt draws the whole of a run of a million trace records and its first 10 ms;
// bytes/op is the size of the SVG.
func BenchmarkGantt(b *testing.B) {
	r := millionRecords(b)
	for _, win := range []struct {
		name string
		to   int64
	}{{"whole", 0}, {"first-10ms", 10e6}} {
		b.Run(fmt.Sprintf("records=%d/window=%s/impl=folded", len(r.Trace.Records), win.name), func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				var out bytes.Buffer
				if err := Gantt(&out, r.Trace, GanttOptions{End: r.End, To: win.to}); err != nil {
					b.Fatal(err)
				}
				n = out.Len()
			}
			b.ReportMetric(float64(n), "svg-bytes")
		})
	}
	b.Run(fmt.Sprintf("records=%d/window=whole/impl=naive", len(r.Trace.Records)), func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			var out bytes.Buffer
			if err := naiveGantt(&out, r.Trace, r.End, 1000); err != nil {
				b.Fatal(err)
			}
			n = out.Len()
		}
		b.ReportMetric(float64(n), "svg-bytes")
	})
}
