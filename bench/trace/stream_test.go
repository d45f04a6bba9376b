package trace

import (
	"github.com/schedkit/schedkit/bench/sim"
	"io"
	"runtime"
	"testing"
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
	if testing.Short() {
		t.Skip("builds two large traces")
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
