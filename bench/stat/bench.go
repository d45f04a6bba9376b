package stat

// This file implements benchstat's tables of Go benchmarks: go test -bench output read with
// golang.org/x/perf's benchfmt, grouped into tables, rows and columns with benchproc,
// summarised and compared with benchmath and scaled with benchunit, the libraries benchstat
// itself is built on, and printed in benchstat's layout (its cmd/benchstat, read at the x/perf
// version go.mod names): each table headed by the configuration lines that changed (goos,
// goarch, pkg, cpu, …), columns separated by box-drawing rules, a footnote for each warning.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// A BenchInput is one source of go test -bench output.
type BenchInput struct {
	Name string // the file name, in error messages and, unless Label is set, as the ".file" key
	// Label is the ".file" key of the input's results (benchstat's label=file argument); ""
	// means Name, with "#0", "#1", … appended when several inputs have the same Name, as
	// benchstat disambiguates a file given twice.
	Label string
	R     io.Reader
}

// BenchOptions are benchstat's flags for grouping, filtering and testing.
type BenchOptions struct {
	Table  string // projection splitting results into tables (-table; "" means ".config")
	Row    string // projection splitting a table into rows (-row; "" means ".fullname")
	Col    string // projection splitting a table into columns (-col; "" means ".file")
	Ignore string // keys whose variation is ignored (-ignore)
	Filter string // benchfilter query selecting results (-filter; "" means "*")
	// Confidence is the level of the confidence intervals, in percent (benchstat's
	// -confidence, a fraction there); 0 means 95.
	Confidence float64
	// Alpha is the level below which a p-value is a difference (-alpha); 0 means 0.05.
	Alpha float64
}

// A BenchTable compares benchmarks measured in one unit under one configuration across
// columns, the first column being the baseline, as one of benchstat's tables does.
type BenchTable struct {
	// Config is the table's configuration: every field of the table projection but the unit,
	// with its value ("goos" "linux", "pkg" "…/runq", "cpu" …); WriteBenchTables prints the
	// fields that changed since the previous table.
	Config []BenchConfig
	Unit   string // the tidied unit, "sec/op", "B/op", "allocs/op", …
	// Columns are the column labels: file names, or values of the -col projection, its
	// fields joined by spaces.
	Columns []string
	Rows    []BenchRow // one per benchmark, in benchproc's order (first seen, unless sorted)
	// Geomean summarises each column over the rows (benchstat's last row, printed when there
	// is more than one row).
	Geomean []BenchGeomean
	cols    []benchproc.Key // the column keys, for the header's levels
}

// A BenchConfig is one configuration field of a BenchTable and its value.
type BenchConfig struct{ Key, Value string }

// A BenchRow is one benchmark of a BenchTable.
type BenchRow struct {
	Name  string
	Cells []*BenchCell // one per column; nil where the column lacks this benchmark
}

// A BenchCell is the measurements of one benchmark in one column.
type BenchCell struct {
	Values  []float64         // in ascending order
	Summary benchmath.Summary // the center and confidence interval under the unit's assumption
	// Versus is the comparison with the baseline column (a Mann-Whitney U test, or exact
	// for units declared "assume=exact"); nil in the baseline column or when the baseline
	// lacks this benchmark.
	Versus *benchmath.Comparison
	// Delta is benchmath's change of the center against the baseline ("-12.34%"), or "~"
	// when the difference is not significant.
	Delta string
	// Warnings are the sample's and the summary's warnings (too few samples for the
	// interval, results that differ in ignored keys), benchstat's footnotes.
	Warnings []error
}

// A BenchGeomean is the summary of one column over all its rows: the geometric mean of the
// centers and of the ratios to the baseline, where they can be computed.
type BenchGeomean struct {
	HasSummary bool
	Summary    float64
	HasRatio   bool
	Ratio      float64 // the geometric mean of center/baseline center
	Warnings   []error
}

// CompareBench reads go test -bench output from inputs and returns benchstat's tables:
// results are split into tables by o.Table plus the unit, each table into rows by o.Row and
// columns by o.Col (a benchproc projection: ".file" for one column per input, "/impl" for the
// values of a sub-benchmark key impl=…), results that o.Filter rejects are left out; each cell
// summarises its values under the unit's assumption (distribution-free, the median with its
// confidence interval at o.Confidence, unless the input declares the unit exact), and each
// column after the first is compared with the first (a Mann-Whitney U test, a difference when
// p < o.Alpha). Tables, rows and columns come in benchproc's order, as benchstat sorts them.
//
// CompareBench returns an error naming the file and line of a syntax error in an input, an
// unreadable input, or an invalid projection, filter or level. (benchstat prints syntax errors
// and goes on.)
func CompareBench(inputs []BenchInput, o BenchOptions) ([]BenchTable, error) {
	conf, alpha := o.Confidence, o.Alpha
	if conf == 0 {
		conf = 95
	}
	if alpha == 0 {
		alpha = 0.05
	}
	switch {
	case !(conf > 0 && conf < 100):
		return nil, fmt.Errorf("stat: CompareBench at %g%% confidence: want strictly between 0 and 100", conf)
	case !(alpha > 0 && alpha <= 1):
		return nil, fmt.Errorf("stat: CompareBench with alpha %g: want a level in (0, 1]", alpha)
	}
	pr, err := newBenchProjections(o)
	if err != nil {
		return nil, err
	}
	tables, units, err := pr.read(inputs)
	if err != nil {
		return nil, err
	}
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = alpha
	var out []BenchTable
	for _, tk := range sortedKeys(tables) {
		out = append(out, benchTableOf(tk, tables[tk], pr.unit, units, &thresholds, conf))
	}
	return out, nil
}

// benchProjections are the options' projections of a result: which table, row and column it
// falls in, what is left (the residue), and the filter results pass.
type benchProjections struct {
	filter                   *benchproc.Filter
	table, row, col, residue *benchproc.Projection
	unit                     *benchproc.Field
}

// newBenchProjections parses o's filter and projections, with benchstat's defaults.
func newBenchProjections(o BenchOptions) (*benchProjections, error) {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	var pr benchProjections
	var err error
	if pr.filter, err = benchproc.NewFilter(or(o.Filter, "*")); err != nil {
		return nil, fmt.Errorf("stat: filter %q: %w", o.Filter, err)
	}
	var parser benchproc.ProjectionParser
	if pr.table, pr.unit, err = parser.ParseWithUnit(or(o.Table, ".config"), pr.filter); err != nil {
		return nil, fmt.Errorf("stat: table projection %q: %w", o.Table, err)
	}
	if pr.row, err = parser.Parse(or(o.Row, ".fullname"), pr.filter); err != nil {
		return nil, fmt.Errorf("stat: row projection %q: %w", o.Row, err)
	}
	if pr.col, err = parser.Parse(or(o.Col, ".file"), pr.filter); err != nil {
		return nil, fmt.Errorf("stat: column projection %q: %w", o.Col, err)
	}
	if _, err := parser.Parse(o.Ignore, pr.filter); err != nil {
		return nil, fmt.Errorf("stat: ignored keys %q: %w", o.Ignore, err)
	}
	pr.residue = parser.Residue()
	return &pr, nil
}

// A benchCellKey names a cell of a table by its row and column; a benchCell holds the cell's
// values and the residues of the results in it; a benchTableData is one table's cells, with its
// rows and columns.
type (
	benchCellKey struct{ row, col benchproc.Key }
	benchCell    struct {
		values  []float64
		residue map[benchproc.Key]bool
	}
	benchTableData struct {
		rows, cols map[benchproc.Key]bool
		cells      map[benchCellKey]*benchCell
	}
)

// read reads every input's results that pass the filter into their tables' cells, and returns
// the tables with the units' metadata.
func (pr *benchProjections) read(inputs []BenchInput) (map[benchproc.Key]*benchTableData, benchfmt.UnitMetadataMap, error) {
	tables := map[benchproc.Key]*benchTableData{}
	var r benchfmt.Reader
	for _, in := range labelInputs(inputs) {
		r.Reset(in.R, in.Name, ".file", in.Label)
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.SyntaxError:
				return nil, nil, fmt.Errorf("stat: %s", rec.Error())
			case *benchfmt.Result:
				if ok, _ := pr.filter.Apply(rec); !ok {
					continue
				}
				rk, ck, res := pr.row.Project(rec), pr.col.Project(rec), pr.residue.Project(rec)
				for i, tk := range pr.table.ProjectValues(rec) {
					t := tables[tk]
					if t == nil {
						t = &benchTableData{rows: map[benchproc.Key]bool{}, cols: map[benchproc.Key]bool{}, cells: map[benchCellKey]*benchCell{}}
						tables[tk] = t
					}
					c := t.cells[benchCellKey{rk, ck}]
					if c == nil {
						c = &benchCell{residue: map[benchproc.Key]bool{}}
						t.cells[benchCellKey{rk, ck}] = c
						t.rows[rk], t.cols[ck] = true, true
					}
					c.values = append(c.values, rec.Values[i].Value)
					c.residue[res] = true
				}
			}
		}
		if err := r.Err(); err != nil {
			return nil, nil, fmt.Errorf("stat: reading %s: %w", in.Name, err)
		}
	}
	return tables, r.Units(), nil
}

// benchTableOf summarises table tk's cells td: each cell's center and interval at conf %
// confidence, each column after the first compared with the first, and the geomeans.
func benchTableOf(tk benchproc.Key, td *benchTableData, unitField *benchproc.Field, units benchfmt.UnitMetadataMap,
	thresholds *benchmath.Thresholds, conf float64) BenchTable {
	unit := tk.Get(unitField)
	assumption := units.GetAssumption(unit)
	rows, cols := sortedKeys(td.rows), sortedKeys(td.cols)
	t := BenchTable{Unit: unit, cols: cols}
	for _, f := range tk.Projection().FlattenedFields() {
		if f != unitField {
			t.Config = append(t.Config, BenchConfig{f.Name, tk.Get(f)})
		}
	}
	for _, ck := range cols {
		t.Columns = append(t.Columns, ck.StringValues())
	}
	samples := map[benchCellKey]*benchmath.Sample{}
	for k, c := range td.cells {
		samples[k] = benchmath.NewSample(c.values, thresholds)
	}
	for _, rk := range rows {
		row := BenchRow{Name: rk.StringValues(), Cells: make([]*BenchCell, len(cols))}
		for i, ck := range cols {
			s, ok := samples[benchCellKey{rk, ck}]
			if !ok {
				continue
			}
			// The residue's keys that vary within the cell: results the projections merged
			// although they differ (benchstat's "benchmarks vary in …").
			if nsk := benchproc.NonSingularFields(sortedKeys(td.cells[benchCellKey{rk, ck}].residue)); len(nsk) > 0 {
				var names []string
				for _, f := range nsk {
					names = append(names, f.Name)
				}
				s.Warnings = append(s.Warnings, errors.New("benchmarks vary in "+strings.Join(names, ", ")))
			}
			cell := &BenchCell{Values: s.Values, Summary: assumption.Summary(s, conf/100)}
			cell.Warnings = append(append(cell.Warnings, s.Warnings...), cell.Summary.Warnings...)
			if base, ok := samples[benchCellKey{rk, cols[0]}]; ok && i > 0 {
				cmp := assumption.Compare(base, s)
				cell.Versus = &cmp
				cell.Delta = cmp.FormatDelta(row.Cells[0].Summary.Center, cell.Summary.Center)
			}
			row.Cells[i] = cell
		}
		t.Rows = append(t.Rows, row)
	}
	t.Geomean = benchGeomeans(t.Rows, len(cols))
	return t
}

// labelInputs returns inputs with their labels set as benchstat sets .file: the Label if
// given, else the Name, with "#N" appended to every input whose Name appears more than once
// without a label.
func labelInputs(inputs []BenchInput) []BenchInput {
	count := map[string]int{}
	for _, in := range inputs {
		if in.Label == "" {
			count[in.Name]++
		}
	}
	seen := map[string]int{}
	out := make([]BenchInput, len(inputs))
	for i, in := range inputs {
		if in.Label == "" {
			in.Label = in.Name
			if count[in.Name] > 1 {
				in.Label = fmt.Sprintf("%s#%d", in.Name, seen[in.Name])
				seen[in.Name]++
			}
		}
		out[i] = in
	}
	return out
}

// sortedKeys returns m's keys in benchproc's order.
func sortedKeys[V any](m map[benchproc.Key]V) []benchproc.Key {
	keys := make([]benchproc.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	benchproc.SortKeys(keys)
	return keys
}

// benchGeomeans summarises each of ncol columns over rows as benchstat does: the geometric
// mean of the centers, and of each center's ratio to its row's baseline (0/0 counting as 1), with
// a warning when a column's benchmarks are not the baseline's, and none where a value is not
// positive.
func benchGeomeans(rows []BenchRow, ncol int) []BenchGeomean {
	nBase := 0
	for _, r := range rows {
		if r.Cells[0] != nil {
			nBase++
		}
	}
	out := make([]BenchGeomean, ncol)
	for c := range ncol {
		g := &out[c]
		var centers, ratios []float64
		badRatio := false
		for _, r := range rows {
			cell := r.Cells[c]
			if cell == nil {
				continue
			}
			centers = append(centers, cell.Summary.Center)
			if c == 0 || r.Cells[0] == nil {
				continue
			}
			a, b := cell.Summary.Center, r.Cells[0].Summary.Center
			switch {
			case a == b:
				ratios = append(ratios, 1)
			case b == 0:
				badRatio = true
				ratios = append(ratios, 0)
			default:
				ratios = append(ratios, a/b)
			}
		}
		if c > 0 && nBase != len(ratios) {
			g.Warnings = append(g.Warnings, errors.New("benchmark set differs from baseline; geomeans may not be comparable"))
		}
		if gm := stats.GeoMean(centers); math.IsNaN(gm) {
			g.Warnings = append(g.Warnings, errors.New("summaries must be >0 to compute geomean"))
		} else {
			g.HasSummary, g.Summary = true, gm
		}
		if c > 0 && !badRatio {
			if gm := stats.GeoMean(ratios); math.IsNaN(gm) {
				g.Warnings = append(g.Warnings, errors.New("ratios must be >0 to compute geomean"))
			} else {
				g.HasRatio, g.Ratio = true, gm
			}
		}
	}
	return out
}

// WriteBenchTables writes tables as benchstat's text output: a blank line between tables,
// and before each table the configuration fields whose value differs from the previous
// table's ("pkg: …/runq"; every field before the first table).
func WriteBenchTables(w io.Writer, tables []BenchTable) error {
	var prev []BenchConfig
	for i := range tables {
		t := &tables[i]
		var b strings.Builder
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, c := range t.Config {
			if i == 0 || j >= len(prev) || prev[j] != c {
				fmt.Fprintf(&b, "%s: %s\n", c.Key, c.Value)
			}
		}
		prev = t.Config
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		if err := t.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// Write writes t as benchstat prints one table: header rows with the column keys' values
// over the columns they span and the unit over each column, separated by " │ " rules; one
// row per benchmark with each column's center (scaled as benchstat scales the row: 62.88n,
// 1.500Ki), "±" the half-width of its interval in percent and, after the first column, the
// change against the baseline and "(p=0.002 n=6)"; a geomean row when there is more than one
// benchmark; superscript footnotes for the warnings, listed under the table.
func (t *BenchTable) Write(w io.Writer) error {
	start := func(col int) int {
		if col == 0 {
			return labelCols
		}
		return labelCols + centerCols + (col-1)*(centerCols+deltaCols)
	}
	var g textGrid
	var notes []string
	noteIndex := map[string]int{}
	footnotes := func(warnings ...[]error) {
		var marks []string
		for _, ws := range warnings {
			for _, e := range ws {
				i, ok := noteIndex[e.Error()]
				if !ok {
					i = len(notes)
					noteIndex[e.Error()] = i
					notes = append(notes, e.Error())
				}
				marks = append(marks, superscript(i+1))
			}
		}
		g.cell(strings.Join(marks, " "), alignLeft, nil)
	}
	t.writeHeader(&g, start)
	class := benchunit.ClassOf(t.Unit)
	for _, r := range t.Rows {
		g.row()
		g.cell(r.Name, alignLeft, nil)
		var centers []float64
		for _, c := range r.Cells {
			if c != nil {
				centers = append(centers, c.Summary.Center)
			}
		}
		scale := benchunit.CommonScale(centers, class)
		for i, c := range r.Cells {
			if c == nil {
				continue
			}
			g.col(start(i))
			g.cell(scale.Format(c.Summary.Center), alignRight, nil)
			// The ± sits in the range column's margin, so that the ±s line up.
			g.cell(c.Summary.PctRangeString(), alignRight, margin(" ± "))
			footnotes(c.Warnings)
			if i > 0 && c.Versus != nil {
				g.cell(c.Delta, alignRight, nil)
				g.cell("("+c.Versus.String()+")", alignLeft, nil)
				footnotes(c.Versus.Warnings)
			}
		}
	}
	if len(t.Rows) > 1 {
		t.writeGeomean(&g, start, class, footnotes)
	}
	if err := g.write(w); err != nil {
		return err
	}
	for i, n := range notes {
		if _, err := fmt.Fprintf(w, "%s %s\n", superscript(i+1), n); err != nil {
			return err
		}
	}
	return nil
}

// The grid columns of a benchstat table: the row's name, then per column its center, ± range
// and warnings and, after the first, the change, (p= n=) and warnings.
const (
	labelCols  = 1
	centerCols = 3
	deltaCols  = 3
)

// writeHeader adds t's header rows to g: the column keys' values over the columns they span
// (start gives a table column's first grid column), then the unit over each column.
func (t *BenchTable) writeHeader(g *textGrid, start func(int) int) {
	right := start(len(t.Columns) + 1)
	if len(t.cols) > 0 {
		for nodes := benchproc.NewKeyHeader(t.cols).Top; len(nodes) > 0; {
			var next []*benchproc.KeyHeaderNode
			g.row()
			for _, n := range nodes {
				l, r := start(n.Start), start(n.Start+n.Len)
				g.col(l)
				g.span(r-l, n.Value, alignCenter, margin(" │ "))
				next = append(next, n.Children...)
			}
			g.col(right)
			g.cell("", alignLeft, margin(" │"))
			nodes = next
		}
	}
	g.row()
	for i := range t.Columns {
		l := start(i)
		g.col(l)
		g.span(centerCols, t.Unit, alignCenter, margin(" │ "))
		if i > 0 {
			g.span(deltaCols, "vs base", alignLeft, margin("  "))
		}
		for c := l + 1; c < g.curCol; c++ {
			g.setShrink(c)
		}
	}
	g.col(right)
	g.cell("", alignLeft, margin(" │"))
}

// writeGeomean adds t's geomean row to g: each column's geomean scaled for the unit's class
// and, after the first, its ratio to the first, with footnotes for their warnings.
func (t *BenchTable) writeGeomean(g *textGrid, start func(int) int, class benchunit.Class, footnotes func(...[]error)) {
	g.row()
	g.cell("geomean", alignLeft, nil)
	for i, s := range t.Geomean {
		if s.HasSummary {
			g.col(start(i))
			g.cell(benchunit.Scale(s.Summary, class), alignRight, nil)
		}
		if i > 0 {
			g.col(start(i) + centerCols)
			if s.HasRatio {
				g.cell(fmt.Sprintf("%+.2f%%", (s.Ratio-1)*100), alignRight, nil)
			} else {
				g.cell("?", alignLeft, nil)
			}
		}
		g.col(start(i+1) - 1)
		footnotes(s.Warnings)
	}
}

// superscript returns i in superscript digits, the marks of benchstat's footnotes.
func superscript(i int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	d := []rune(digits)
	if i == 0 {
		return string(d[0])
	}
	var s []rune
	for ; i > 0; i /= 10 {
		s = append([]rune{d[i%10]}, s...)
	}
	return string(s)
}
