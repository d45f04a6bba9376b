package sim

// This file implements Summary.Write: a Summary as text, CSV or JSON, the one writer of
// schedkit's run tables, and WriteCSV.

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// A Format is a form Summary.Write writes, by its name.
type Format string

// The Formats.
const (
	// Text is the aligned table of medians, with its legend (see [Summary.Write]).
	Text Format = "text"
	// CSV is one row per thread of each run, after the heading of [CSVHeader].
	CSV Format = "csv"
	// JSON is one document of schema [RunsSchema], holding every run's Result.
	JSON Format = "json"
)

// ParseFormat returns the Format named s ("text", "csv" or "json"), or an error naming s.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, CSV, JSON:
		return f, nil
	}
	return "", fmt.Errorf("sim: format %q: want text, csv or json", s)
}

// Write writes s in the form f.
//
// Text is two tables. The threads': a row per thread name, and for each column, under its name,
// the thread's CPU share ("cpu%") and the percentiles of the Table's series ("wake p99" for the
// wake-up latency, "runq p99" for the run-queue wait, "req p99" for the request latency), each
// the median over the column's runs, durations in three significant digits with their unit
// ("950ns", "12.3us", "4.56ms"); "-" for no figure, and 0ns for a latency measured as 0. Then,
// when the Table has totals, the totals': a row per column with its number of runs and the
// median of each total, each heading naming its unit ("makespan (time)", "idle%"). Each table
// ends in a legend that says what its columns measure.
//
// CSV and JSON hold the runs themselves, not medians: CSV one row per thread of each run (see
// [CSVHeader]; the percentiles are [StandardPercentiles] of every series), JSON the document of
// [RunsSchema] with every run's whole Result.
func (s *Summary) Write(w io.Writer, f Format) error {
	switch f {
	case Text:
		return s.writeText(w)
	case CSV:
		return s.writeCSV(w, StandardPercentiles)
	case JSON:
		return s.writeJSON(w)
	}
	panic(fmt.Sprintf("sim: Summary.Write: unknown format %q", string(f)))
}

// CSVHeader is the first row of the CSV form: the column, the repetition, one column per field
// of the run and of the thread, times in nanoseconds, share a fraction, then the count of each
// series and each percentile asked for, named SERIES_pP_ns (such as wakeup_p99.9_ns; an empty
// cell when the series is empty).
func CSVHeader(percentiles ...float64) []string {
	h := []string{"column", "rep", "seed", "policy", "ending", "start_ns", "end_ns", "thread", "id", "decl", "group",
		"start_thread_ns", "end_thread_ns", "cpu_ns", "wait_ns", "sleep_ns", "work_ns", "voluntary", "involuntary",
		"migrations", "wakeups", "lifetime_ns", "share"}
	for s := range numSeries {
		h = append(h, Series(s).String()+"_count")
		for _, p := range percentiles {
			h = append(h, Series(s).String()+"_p"+strconv.FormatFloat(p, 'f', -1, 64)+"_ns")
		}
	}
	return h
}

// WriteCSV writes the CSV form of results, one column per result named by its policy, with the
// percentiles ps of each series (StandardPercentiles when none are given): the header of
// [CSVHeader], then one row per thread. Percentiles are computed as [Histogram.Percentile] does.
// It panics if a result is nil or a percentile is outside 0..100.
func WriteCSV(w io.Writer, ps []float64, results ...*Result) error {
	if len(ps) == 0 {
		ps = StandardPercentiles
	}
	cols := make([]Column, len(results))
	for i, r := range results {
		if r == nil {
			panic(fmt.Sprintf("sim: WriteCSV of a nil result (argument %d)", i))
		}
		cols[i] = Column{Name: r.Policy, Reps: []Rep{{Result: r}}}
	}
	return (&Summary{Columns: cols}).writeCSV(w, ps)
}

// writeCSV writes the CSV form of s with the percentiles ps.
func (s *Summary) writeCSV(w io.Writer, ps []float64) error {
	for _, p := range ps {
		percentMilli(p)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader(ps...)); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, c := range s.Columns {
		for _, run := range c.Reps {
			r := run.Result
			for i := range r.Threads {
				t := &r.Threads[i]
				row := []string{c.Name, strconv.Itoa(run.N), strconv.FormatUint(r.Seed, 10), r.Policy, r.Ending.String(),
					i64(r.Start), i64(r.End), t.Name, i64(int64(t.ID)), t.Decl, t.Group, i64(t.Start), i64(t.End),
					i64(t.CPUTime), i64(t.WaitTime), i64(t.Sleep), i64(t.Work), i64(t.Voluntary), i64(t.Involuntary),
					i64(t.Migrations), i64(t.Wakeups), i64(t.Lifetime()), strconv.FormatFloat(t.Share(), 'g', -1, 64)}
				for k := range numSeries {
					h := t.Histogram(Series(k))
					row = append(row, i64(h.Count()))
					for _, p := range ps {
						if v, ok := h.Percentile(p); ok {
							row = append(row, i64(v))
						} else {
							row = append(row, "")
						}
					}
				}
				if err := cw.Write(row); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// RunsSchema names the version of the JSON form of a Summary's runs, written in its "schema"
// field; each run's Result in it has the form of [ResultSchema]. Both are described, for
// validators, by the JSON Schema in bench/sim/result.schema.json. A change that renames or
// removes a field, or changes a unit, gets a new version; fields may be added within one.
const RunsSchema = "schedkit.sim.runs/1"

// runsJSON is the JSON form of a Summary's runs.
type runsJSON struct {
	Schema   string            `json:"schema"`
	Settings map[string]string `json:"settings"`
	Columns  []string          `json:"columns"`
	Complete bool              `json:"complete"`
	Runs     []runJSON         `json:"runs"`
}

type runJSON struct {
	Column string  `json:"column"`
	Rep    int     `json:"rep"`
	Seed   uint64  `json:"seed"`
	Result *Result `json:"result"`
}

// writeJSON writes the JSON form of s's runs, indented, with a final newline:
//
//	schema    RunsSchema
//	settings  {key: value}: Settings, what ran
//	columns   the columns' names, in order
//	complete  false when runs are missing (Missing > 0)
//	runs[]    {column, rep, seed, result}: each run of each column, in order, with its
//	          repetition, its seed (Result.Seed) and its result in the form of ResultSchema
//	          (see Result.MarshalJSON)
func (s *Summary) writeJSON(w io.Writer) error {
	d := runsJSON{Schema: RunsSchema, Settings: map[string]string{}, Columns: []string{}, Complete: s.Missing == 0, Runs: []runJSON{}}
	for _, c := range s.Settings {
		d.Settings[c.Key] = c.Value
	}
	for _, c := range s.Columns {
		d.Columns = append(d.Columns, c.Name)
		for _, r := range c.Reps {
			d.Runs = append(d.Runs, runJSON{Column: c.Name, Rep: r.N, Seed: r.Result.Seed, Result: r.Result})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
