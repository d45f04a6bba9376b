package stat

// This file implements benchstat-style tables for Go benchmarks: go test -bench output read with
// golang.org/x/perf's benchfmt, grouped with benchproc and compared with benchmath, the
// libraries benchstat itself is built on.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// A BenchInput is one source of go test -bench output, with the name its results get in the
// ".file" key (the default column).
type BenchInput struct {
	Name string
	R    io.Reader
}

// A BenchTable compares benchmarks measured in one unit across columns, the first column
// being the baseline, as one of benchstat's tables does.
type BenchTable struct {
	Unit    string     // the tidied unit, "sec/op", "B/op", "allocs/op", …
	Columns []string   // the column labels: file names, or values of the -col key
	Rows    []BenchRow // one per benchmark, in the order first seen
}

// A BenchRow is one benchmark of a BenchTable.
type BenchRow struct {
	Name  string
	Cells []*BenchCell // one per column; nil where the column lacks this benchmark
}

// A BenchCell is the measurements of one benchmark in one column.
type BenchCell struct {
	Values  []float64         // in ascending order
	Summary benchmath.Summary // the median and its confidence interval (benchmath.AssumeNothing)
	// Versus is the comparison with the baseline column (a Mann-Whitney U test); nil in the
	// baseline column or when the baseline lacks this benchmark.
	Versus *benchmath.Comparison
	// Delta is benchmath's change of the median against the baseline ("-12.34%"), or "~" when
	// the difference is not significant at the table's confidence.
	Delta string
}

// CompareBench reads go test -bench output from inputs and returns one table per unit,
// comparing columns as benchstat does: col is a benchproc projection naming the key whose
// values are the columns ("" or ".file" for one column per input, "/impl" for the values of a
// sub-benchmark key impl=…, ".config" …), the rows are the benchmarks' full names without
// that key, each cell summarises its values by their median with a distribution-free
// confidence interval at the given confidence (percent), and each column after the first is
// compared with the first by a Mann-Whitney U test, significant when p < 1 - confidence/100.
//
// CompareBench returns an error naming the file and line of a syntax error in an input, or an
// invalid projection or confidence level.
func CompareBench(inputs []BenchInput, col string, confidence float64) ([]BenchTable, error) {
	if !(confidence > 0 && confidence < 100) {
		return nil, fmt.Errorf("stat: CompareBench at %g%% confidence: want strictly between 0 and 100", confidence)
	}
	if col == "" {
		col = ".file"
	}
	var parser benchproc.ProjectionParser
	colBy, err := parser.Parse(col, nil)
	if err != nil {
		return nil, fmt.Errorf("stat: column projection %q: %w", col, err)
	}
	rowBy, unitField, err := parser.ParseWithUnit(".fullname", nil)
	if err != nil {
		return nil, fmt.Errorf("stat: row projection: %w", err)
	}
	type cellKey struct{ row, col benchproc.Key }
	values := map[cellKey][]float64{}
	var rowKeys, colKeys []benchproc.Key
	seenRow, seenCol := map[benchproc.Key]bool{}, map[benchproc.Key]bool{}
	for _, in := range inputs {
		r := benchfmt.NewReader(in.R, in.Name)
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.SyntaxError:
				return nil, fmt.Errorf("stat: %s", rec.Error())
			case *benchfmt.Result:
				rec.SetConfig(".file", in.Name)
				ck := colBy.Project(rec)
				if !seenCol[ck] {
					seenCol[ck] = true
					colKeys = append(colKeys, ck)
				}
				for i, rk := range rowBy.ProjectValues(rec) {
					if !seenRow[rk] {
						seenRow[rk] = true
						rowKeys = append(rowKeys, rk)
					}
					k := cellKey{rk, ck}
					values[k] = append(values[k], rec.Values[i].Value)
				}
			}
		}
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("stat: reading %s: %w", in.Name, err)
		}
	}
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = 1 - confidence/100
	var tables []BenchTable
	byUnit := map[string]int{}
	for _, rk := range rowKeys {
		unit := rk.Get(unitField)
		ti, ok := byUnit[unit]
		if !ok {
			ti = len(tables)
			byUnit[unit] = ti
			t := BenchTable{Unit: unit}
			for _, ck := range colKeys {
				t.Columns = append(t.Columns, ck.StringValues())
			}
			tables = append(tables, t)
		}
		row := BenchRow{Name: rowName(rk, unitField), Cells: make([]*BenchCell, len(colKeys))}
		var base *benchmath.Sample
		var baseCenter float64
		for c, ck := range colKeys {
			vs, ok := values[cellKey{rk, ck}]
			if !ok {
				continue
			}
			s := benchmath.NewSample(vs, &thresholds)
			cell := &BenchCell{Values: s.Values, Summary: benchmath.AssumeNothing.Summary(s, confidence/100)}
			if c == 0 {
				base, baseCenter = s, cell.Summary.Center
			} else if base != nil {
				cmp := benchmath.AssumeNothing.Compare(base, s)
				cell.Versus = &cmp
				cell.Delta = cmp.FormatDelta(baseCenter, cell.Summary.Center)
			}
			row.Cells[c] = cell
		}
		tables[ti].Rows = append(tables[ti].Rows, row)
	}
	return tables, nil
}

// rowName is the row key without its unit: the benchmark's full name.
func rowName(k benchproc.Key, unit *benchproc.Field) string {
	var parts []string
	for _, f := range k.Projection().FlattenedFields() {
		if f == unit {
			continue
		}
		if v := k.Get(f); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

// Write writes t as a text table: a header with the unit and the column labels, one line per
// benchmark with each column's median ± the half-width of its confidence interval in percent
// (benchmath's PctRangeString) and, after the first column, the change against the baseline
// with its p-value and sample sizes, and a final geomean line over the benchmarks every column
// has with positive medians. Values are scaled as benchstat scales them (12.34n for nanoseconds per op, 1.50Ki for
// bytes).
func (t *BenchTable) Write(w io.Writer) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", t.Unit)
	for i, c := range t.Columns {
		fmt.Fprintf(tw, "%s\t", c)
		if i > 0 {
			fmt.Fprintf(tw, "vs %s\t", t.Columns[0])
		}
	}
	fmt.Fprintln(tw)
	var all []float64
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c != nil {
				all = append(all, c.Summary.Center)
			}
		}
	}
	scale := benchunit.CommonScale(all, benchunit.ClassOf(t.Unit))
	geo := make([]float64, len(t.Columns))
	complete := 0
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t", r.Name)
		full := true
		for i, c := range r.Cells {
			if c == nil {
				full = false
				fmt.Fprint(tw, "-\t")
				if i > 0 {
					fmt.Fprint(tw, "\t")
				}
				continue
			}
			fmt.Fprintf(tw, "%s ± %s\t", scale.Format(c.Summary.Center), c.Summary.PctRangeString())
			if i > 0 {
				if c.Versus != nil {
					fmt.Fprintf(tw, "%s (%s)\t", c.Delta, c.Versus)
				} else {
					fmt.Fprint(tw, "\t")
				}
			}
		}
		for _, c := range r.Cells {
			if c != nil && !(c.Summary.Center > 0) {
				full = false // a geometric mean of zeros (0 allocs/op) says nothing
			}
		}
		if full {
			complete++
			for i, c := range r.Cells {
				geo[i] += math.Log(c.Summary.Center)
			}
		}
		fmt.Fprintln(tw)
	}
	if complete > 1 {
		fmt.Fprint(tw, "geomean\t")
		for i := range t.Columns {
			fmt.Fprintf(tw, "%s\t", scale.Format(math.Exp(geo[i]/float64(complete))))
			if i > 0 {
				fmt.Fprintf(tw, "%+.2f%%\t", (math.Exp((geo[i]-geo[0])/float64(complete))-1)*100)
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
