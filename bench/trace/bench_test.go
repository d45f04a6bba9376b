package trace

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
)

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkExport exports a generated trace of 1M records; impl=simtext is the simulator's own
// Trace.WriteText, the baseline (one fmt-built line per record).
func BenchmarkExport(b *testing.B) {
	tr := synthetic(1_000_000, 64, 4)
	for _, bc := range []struct {
		name string
		f    func(w io.Writer, t *sim.Trace) error
	}{
		{"impl=ftrace", func(w io.Writer, t *sim.Trace) error { return WriteFtrace(w, t, nil) }},
		{"impl=chrome", func(w io.Writer, t *sim.Trace) error { return WriteChrome(w, t, nil) }},
		{"impl=simtext", func(w io.Writer, t *sim.Trace) error { return t.WriteText(w) }},
	} {
		b.Run(bc.name+"/records=1M", func(b *testing.B) {
			b.ReportAllocs()
			var cw countWriter
			for b.Loop() {
				cw.n = 0
				if err := bc.f(&cw, tr); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(cw.n)
			b.ReportMetric(float64(len(tr.Records))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkImport imports a generated 1.5M-line ftrace text (held in memory, so that reading
// is not measured), exactly and as a summary, reporting events/s, MB/s, the live heap the
// result holds and the peak heap in use during one import (sampled every 5 ms), both above
// the heap before it (which holds the text). Issue 26's goal: 1.5 million events at 300k
// events/s or more, with a peak RSS of at most 1 GB (the peak heap is most of it).
func BenchmarkImport(b *testing.B) {
	data, err := io.ReadAll(newFtraceGen(1_500_000, 64, 4))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		o    *ImportOptions
	}{{"mode=exact", nil}, {"mode=summary", &ImportOptions{Summary: true}}} {
		b.Run(bc.name+"/lines=1.5M", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var im *Imported
			for b.Loop() {
				im, err = ReadFtrace(bytes.NewReader(data), "gen.txt", bc.o)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(im.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			im = nil
			base := liveHeap()
			peak := peakHeap(func() { im, _ = ReadFtrace(bytes.NewReader(data), "gen.txt", bc.o) })
			b.ReportMetric(float64(liveHeap()-min(base, liveHeap())), "live-B")
			b.ReportMetric(float64(peak), "peak-B")
			runtime.KeepAlive(im)
		})
	}
}
