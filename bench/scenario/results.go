// This file implements cell results, their JSON-lines form, and merging them into a report.

package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
)

// A CellResult is what one cell measured: the metrics of the scenario, in order. Its JSON form,
// one object per line, is what a shard writes and Merge reads.
type CellResult struct {
	Scenario string    `json:"scenario"`
	Profile  string    `json:"profile"`
	Cell     int       `json:"cell"`
	Point    Values    `json:"point"`
	Row      string    `json:"row"`
	Rep      int       `json:"rep"`
	Metrics  []float64 `json:"metrics"`
}

// WriteJSONL writes rs to w, one JSON object per line. encoding/json writes the shortest
// decimal that reads back as the same float64, so a merged table equals the single run's.
func WriteJSONL(w io.Writer, rs []CellResult) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range rs {
		if err := enc.Encode(&rs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadJSONL reads the results WriteJSONL wrote. A line that is not a result is an error
// naming the line: an unknown field, a missing one, or a null where WriteJSONL writes a value
// (a metric of null is not 0); blank lines are skipped.
// ReadJSONL panics if r is nil.
func ReadJSONL(r io.Reader) ([]CellResult, error) {
	if r == nil {
		panic("scenario: ReadJSONL of a nil reader")
	}
	var out []CellResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var j cellResultJSON
		if err := dec.Decode(&j); err != nil {
			return nil, fmt.Errorf("scenario: line %d: %w", line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("scenario: line %d: more than one object", line)
		}
		c, err := j.result()
		if err != nil {
			return nil, fmt.Errorf("scenario: line %d: %w", line, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return out, nil
}

// cellResultJSON is a CellResult as read, with a pointer for every value so that a missing
// field or a null is told from a zero.
type cellResultJSON struct {
	Scenario *string             `json:"scenario"`
	Profile  *string             `json:"profile"`
	Cell     *int                `json:"cell"`
	Point    map[string]*float64 `json:"point"`
	Row      *string             `json:"row"`
	Rep      *int                `json:"rep"`
	Metrics  []*float64          `json:"metrics"`
}

// result returns j as a CellResult, or an error naming the field that is missing or null.
func (j *cellResultJSON) result() (CellResult, error) {
	switch {
	case j.Scenario == nil:
		return CellResult{}, fmt.Errorf("no scenario")
	case j.Profile == nil:
		return CellResult{}, fmt.Errorf("no profile (the machine profile the cell was run with)")
	case j.Cell == nil:
		return CellResult{}, fmt.Errorf("no cell")
	case j.Row == nil:
		return CellResult{}, fmt.Errorf("no row")
	case j.Rep == nil:
		return CellResult{}, fmt.Errorf("no rep")
	case j.Metrics == nil:
		return CellResult{}, fmt.Errorf("no metrics")
	}
	c := CellResult{Scenario: *j.Scenario, Profile: *j.Profile, Cell: *j.Cell, Row: *j.Row, Rep: *j.Rep, Metrics: make([]float64, len(j.Metrics))}
	for i, m := range j.Metrics {
		if m == nil {
			return CellResult{}, fmt.Errorf("metric %d is null", i)
		}
		c.Metrics[i] = *m
	}
	if j.Point != nil {
		c.Point = Values{}
		for _, k := range slices.Sorted(maps.Keys(j.Point)) {
			if j.Point[k] == nil {
				return CellResult{}, fmt.Errorf("point value %s is null", k)
			}
			c.Point[k] = *j.Point[k]
		}
	}
	return c, nil
}

// A Report holds the results of every cell of a plan, by grid point, row and metric, with the
// repetitions in order.
type Report struct {
	Plan *Plan
	// Samples[point][row][metric] are the values of the repetitions, in order of Rep.
	Samples [][][][]float64
}

// Merge checks that rs are the results of every cell of pl, exactly once each and in any
// order (from shards, or from one run), and returns the report. An error names the first
// missing, duplicated or foreign cell.
func (pl *Plan) Merge(rs []CellResult) (*Report, error) {
	s := pl.Scenario
	seen := make([]bool, len(pl.Cells))
	rep := &Report{Plan: pl, Samples: make([][][][]float64, len(pl.Points))}
	for p := range pl.Points {
		rep.Samples[p] = make([][][]float64, len(s.Rows))
		for r := range s.Rows {
			rep.Samples[p][r] = make([][]float64, len(s.Metrics))
			for m := range s.Metrics {
				rep.Samples[p][r][m] = make([]float64, pl.Reps)
			}
		}
	}
	for i := range rs {
		c := &rs[i]
		if c.Scenario != s.Name {
			return nil, fmt.Errorf("scenario: result %d is of scenario %q, not %q", i, c.Scenario, s.Name)
		}
		if c.Profile != pl.Profile.Name {
			return nil, fmt.Errorf("scenario %s: result %d was run with machine profile %q, not %q", s.Name, i, c.Profile, pl.Profile.Name)
		}
		if c.Cell < 0 || c.Cell >= len(pl.Cells) {
			return nil, fmt.Errorf("scenario %s: result %d: cell %d outside the plan's 0..%d", s.Name, i, c.Cell, len(pl.Cells)-1)
		}
		cell := &pl.Cells[c.Cell]
		if seen[c.Cell] {
			return nil, fmt.Errorf("scenario %s: cell %d given twice", s.Name, c.Cell)
		}
		seen[c.Cell] = true
		if c.Row != s.Rows[cell.Row].Key() || c.Rep != cell.Rep || !maps.Equal(c.Point, pl.Points[cell.Point]) ||
			len(c.Metrics) != len(s.Metrics) {
			return nil, fmt.Errorf("scenario %s: cell %d: result is of row %q rep %d point %v with %d metrics; the plan has row %q rep %d point %v with %d",
				s.Name, c.Cell, c.Row, c.Rep, c.Point, len(c.Metrics), s.Rows[cell.Row].Key(), cell.Rep, pl.Points[cell.Point], len(s.Metrics))
		}
		for m, v := range c.Metrics {
			rep.Samples[cell.Point][cell.Row][m][cell.Rep] = v
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("scenario %s: cell %d (of %d) missing", s.Name, i, len(pl.Cells))
	}
	return rep, nil
}
