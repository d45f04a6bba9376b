package stat

// This file holds the benchmarks and the memory test of the reader: reading and summarising a
// million values, beside a naive reader and Debian's ministat on the same file; t quantiles per
// call beside ministat's table.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// millionText returns n values, one per line, as ministat users write them (six decimals).
func millionText(n int) []byte {
	r := rand.New(rand.NewPCG(1, 1))
	var b bytes.Buffer
	b.Grow(n * 11)
	for range n {
		b.WriteString(strconv.FormatFloat(435+0.7*r.NormFloat64(), 'f', 6, 64))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// naiveSummary is the obvious reader: bufio.Scanner, strings.Fields, strconv.ParseFloat, sort.
func naiveSummary(r io.Reader) (Summary, error) {
	sc := bufio.NewScanner(r)
	var xs []float64
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0][0] == '#' {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return Summary{}, err
		}
		xs = append(xs, v)
	}
	return Summarize(xs), sc.Err()
}

func BenchmarkReadSummarize(b *testing.B) {
	text := millionText(1_000_000)
	b.Run("values=1M/impl=ours", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			d, err := ReadDataset(bytes.NewReader(text), "m", DefaultReadOptions())
			if err != nil {
				b.Fatal(err)
			}
			_ = d.Summary()
		}
	})
	b.Run("values=1M/impl=naive", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			if _, err := naiveSummary(bytes.NewReader(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMinistat runs the whole report on a file of a million values: ours in-process, and
// Debian's ministat as a process on the same file (skipped where it is not installed). The ratio
// of the two is the cost of our reader and report against ministat's C; the process start-up of
// Debian's (about a millisecond) is in its figure.
func BenchmarkMinistat(b *testing.B) {
	path := filepath.Join(b.TempDir(), "m.txt")
	if err := os.WriteFile(path, millionText(1_000_000), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("values=1M/impl=ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			d, err := ReadDataset(f, path, DefaultReadOptions())
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			o := DefaultOptions()
			o.SummaryOnly = true
			if err := Ministat(io.Discard, []Sample{{path, d}}, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("values=1M/impl=debian", func(b *testing.B) {
		bin, err := exec.LookPath("ministat")
		if err != nil {
			b.Skip("Debian's ministat is not installed")
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := exec.Command(bin, "-n", path).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkTQuantile(b *testing.B) {
	for _, df := range []float64{1, 16, 100, 5.58, 1e6} {
		b.Run(fmt.Sprintf("df=%g/impl=gonum", df), func(b *testing.B) {
			b.ReportAllocs()
			var s float64
			for b.Loop() {
				s += TQuantile(df, 95)
			}
			sink = s
		})
	}
	b.Run("df=16/impl=table", func(b *testing.B) {
		b.ReportAllocs()
		var s float64
		for b.Loop() {
			t, _ := TableT(16, 95)
			s += t
		}
		sink = s
	})
}

var sink float64

func BenchmarkStudent(b *testing.B) {
	x := Summary{N: 9, Mean: 435.66667, Stddev: 0.73333144}
	y := Summary{N: 9, Mean: 436.85111, Stddev: 0.68641176}
	b.Run("test=student", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, _ := Student(x, y, 95)
			sink = d.HalfWidth
		}
	})
	b.Run("test=welch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, _ := Welch(x, y, 95)
			sink = d.HalfWidth
		}
	})
}

func BenchmarkMannWhitney(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{10, 25, 1000} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()+0.5
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, _ := MannWhitney(x, y)
				sink = res.P
			}
		})
	}
}

func BenchmarkBootstrap(b *testing.B) {
	r := rand.New(rand.NewPCG(4, 4))
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = r.ExpFloat64()
	}
	b.Run("stat=p99/n=1000/resamples=1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			iv, _ := Bootstrap(xs, PercentileStat(99), 95, 1000, 1)
			sink = iv.Hi
		}
	})
}

// TestReadDatasetMemory reads a million values and checks that what ReadDataset allocates is
// proportional to the values (8 bytes each, and the growth of the slice that holds them), not
// to the text: well under the 11 MB the text takes.
func TestReadDatasetMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million values")
	}
	text := millionText(1_000_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := ReadDataset(bytes.NewReader(text), "m", DefaultReadOptions())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 1_000_000 {
		t.Fatalf("read %d values", d.Len())
	}
	perValue := float64(after.TotalAlloc-before.TotalAlloc) / 1e6
	t.Logf("ReadDataset of 1M values: %.1f bytes allocated per value", perValue)
	// A slice grown by append to 1M float64s allocates about 2-3 × 8 bytes per value in all.
	if perValue > 32 {
		t.Errorf("ReadDataset allocated %.1f bytes per value; want ≤ 32 (the values and their slice's growth)", perValue)
	}
	if !slices.IsSorted(d.Values()) {
		t.Errorf("Values not sorted")
	}
}
