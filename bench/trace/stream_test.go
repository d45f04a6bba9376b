package trace

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestExportBoundedMemory checks that the exporters stream: exporting four times the records
// allocates about what exporting one time does, and little in absolute terms.
func TestExportBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds two large traces; not under -race")
	}
	small, large := synthetic(250_000, 64, 4), synthetic(1_000_000, 64, 4)
	for _, exp := range []struct {
		name string
		f    func(tr any) error
	}{
		{"ftrace", func(tr any) error { return WriteFtrace(io.Discard, tr.(*simTrace), nil) }},
		{"chrome", func(tr any) error { return WriteChrome(io.Discard, tr.(*simTrace), nil) }},
	} {
		var err error
		a := allocated(func() { err = exp.f(small) })
		b := allocated(func() { err = exp.f(large) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes allocated for 250k records, %d for 1M", exp.name, a, b)
		if b > 2<<20 || b > a+(512<<10) {
			t.Errorf("%s allocates %d bytes for 1M records and %d for 250k: not bounded", exp.name, b, a)
		}
	}
}

type simTrace = sim.Trace

// liveHeap returns the heap in use after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestImportBoundedMemory checks that ReadFtrace streams: with Summary, importing four times
// the lines leaves the same live heap (state per task), and reading never holds the input.
func TestImportBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("generates a large trace; not under -race")
	}
	heap := func(lines int) (uint64, *Imported) {
		base := liveHeap()
		im, err := ReadFtrace(newFtraceGen(lines, 64, 4), "gen.txt", &ImportOptions{Summary: true})
		if err != nil {
			t.Fatal(err)
		}
		h := liveHeap()
		runtime.KeepAlive(im)
		if h < base {
			return 0, im
		}
		return h - base, im
	}
	a, ima := heap(100_000)
	b, imb := heap(400_000)
	t.Logf("live heap after importing 100k lines: %d B, 400k lines: %d B", a, b)
	if ima.Events < 90_000 || imb.Events < 360_000 {
		t.Fatalf("events %d and %d", ima.Events, imb.Events)
	}
	if b > a+(64<<10) {
		t.Errorf("Summary import keeps %d B for 400k lines against %d B for 100k: not bounded", b, a)
	}
	// The peak, garbage included, stays near the collector's minimum heap.
	peak := peakHeap(func() {
		if _, err := ReadFtrace(newFtraceGen(400_000, 64, 4), "gen.txt", &ImportOptions{Summary: true}); err != nil {
			t.Error(err)
		}
	})
	t.Logf("peak heap in use while importing 400k lines: %d B", peak)
	if peak > 16<<20 {
		t.Errorf("Summary import of 400k lines peaks at %d B of heap", peak)
	}
}

// peakHeap returns the largest heap in use while f runs, above the live heap before it,
// sampled every 5 ms.
func peakHeap(f func()) uint64 {
	base := liveHeap()
	var peak uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if peak < base {
		return 0
	}
	return peak - base
}

// TestImportExactMemory checks an exact import's peak heap against what it builds: at most 3×
// the live heap of the imported workload (the ops, 248 bytes each, are most of it), the text
// never held whole.
func TestImportExactMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("generates a large trace; not under -race")
	}
	var im *Imported
	base := liveHeap()
	peak := peakHeap(func() {
		var err error
		if im, err = ReadFtrace(newFtraceGen(400_000, 64, 4), "gen.txt", nil); err != nil {
			t.Error(err)
		}
	})
	live := liveHeap() - min(base, liveHeap())
	ops := 0
	for _, th := range im.Workload.Threads {
		ops += len(th.Ops)
	}
	runtime.KeepAlive(im)
	t.Logf("400k lines: %d ops, workload %d B live, import peak %d B (%.2f×)", ops, live, peak, float64(peak)/float64(live))
	if ops < 100_000 || live < uint64(ops)*200 {
		t.Fatalf("%d ops in %d B: the import is not the workload measured", ops, live)
	}
	if peak > 3*live {
		t.Errorf("an exact import of 400k lines peaks at %d B of heap, %.1f× its workload's %d B; want at most 3×", peak, float64(peak)/float64(live), live)
	}
}

// TestImportMemoryLimit: an exact import whose estimate passes ImportOptions.MemoryLimit stops
// with an *Error naming the limit and the line, and suggesting a summary, which then imports
// the same text.
func TestImportMemoryLimit(t *testing.T) {
	_, err := ReadFtrace(newFtraceGen(200_000, 64, 4), "gen.txt", &ImportOptions{MemoryLimit: 8 << 20})
	var e *Error
	if !errors.As(err, &e) || e.Line == 0 || !strings.Contains(err.Error(), "memory limit of 8.0 MiB") || !strings.Contains(err.Error(), "summary") {
		t.Fatalf("ReadFtrace with an 8 MiB limit = %v; want an *Error at a line naming the limit and suggesting a summary", err)
	}
	im, err := ReadFtrace(newFtraceGen(200_000, 64, 4), "gen.txt", &ImportOptions{MemoryLimit: 8 << 20, Summary: true})
	if err != nil || im.Events < 190_000 {
		t.Fatalf("the summary under the same limit: %v", err)
	}
}
