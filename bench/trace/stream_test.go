package trace

import (
	"github.com/schedkit/schedkit/bench/sim"
	"io"
	"runtime"
	"testing"
	"time"
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
