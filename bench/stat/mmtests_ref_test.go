package stat

// This file compares whole tables with what mmtests' own Perl printed for the same samples:
// testdata/mmtests/cases.json holds the fabricated samples of each case (summary kind,
// direction, precision, runs, operations, compare-mmtests' flags), and
// testdata/mmtests/VERSION/NAME.txt what compare-mmtests.pl --from-json printed for it at the
// commit MMTests2022 or MMTests2026 names, with R 4.2.2 answering its quantiles.
// testdata/mmtests/reference.pl is the driver that printed them, given a checkout of mmtests.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A refCase is one case of testdata/mmtests/cases.json.
type refCase struct {
	Name              string   `json:"name"`
	Version           int      `json:"version"`
	Summary           string   `json:"summary"`
	Better            string   `json:"better"`
	Precision         int      `json:"precision"`
	PrintSignificance bool     `json:"print_significance"`
	NoCompare         bool     `json:"no_compare"`
	Runs              []string `json:"runs"`
	Ops               []struct {
		Name    string          `json:"name"`
		Samples [][]json.Number `json:"samples"`
	} `json:"ops"`
}

var refSummaries = map[string]SummaryKind{
	"multiops": Multiops, "normalisedops": Normalisedops, "normalisedleftskewops": NormalisedLeftSkewops,
	"singleops": Singleops, "variabletime": Variabletime,
}

// comparison returns the Comparison that prints rc as compare-mmtests does: the defaults of
// the version's field width, mmtests' default names and level, and the operations in the
// order compare-mmtests.pl --from-json adds them, Perl's sort of their names.
func (rc *refCase) comparison(t *testing.T) *Comparison {
	kind, ok := refSummaries[rc.Summary]
	if !ok {
		t.Fatalf("%s: unknown summary %q", rc.Name, rc.Summary)
	}
	c := &Comparison{Runs: rc.Runs, Version: rc.Version, Summary: kind, Precision: rc.Precision,
		PrintSignificance: rc.PrintSignificance, NoChanges: rc.NoCompare}
	if rc.Better == "higher" {
		c.Better = HigherBetter
	}
	for _, op := range rc.Ops {
		o := Op{Name: op.Name}
		for _, s := range op.Samples {
			var xs []float64
			for _, n := range s {
				x, err := strconv.ParseFloat(string(n), 64)
				if err != nil {
					t.Fatalf("%s: %v", rc.Name, err)
				}
				xs = append(xs, x)
			}
			o.Samples = append(o.Samples, xs)
		}
		c.Ops = append(c.Ops, o)
	}
	slices.SortStableFunc(c.Ops, func(a, b Op) int { return strings.Compare(a.Name, b.Name) })
	return c
}

func TestComparisonMatchesMMTests(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "mmtests", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []refCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	total, same := map[int]int{}, map[int]int{}
	for _, rc := range cases {
		t.Run(rc.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "mmtests", strconv.Itoa(rc.Version), rc.Name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			if err := rc.comparison(t).Write(&got); err != nil {
				t.Fatal(err)
			}
			total[rc.Version]++
			if got.String() == string(want) {
				same[rc.Version]++
				return
			}
			gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
			for i := range max(len(gl), len(wl)) {
				var g, w string
				if i < len(gl) {
					g = gl[i]
				}
				if i < len(wl) {
					w = wl[i]
				}
				if g != w {
					t.Errorf("line %d:\n got %q\nwant %q", i+1, g, w)
				}
			}
		})
	}
	for _, v := range []int{MMTests2022, MMTests2026} {
		t.Logf("mmtests %d: %d of %d tables byte-identical", v, same[v], total[v])
	}
	if total[MMTests2026] < 30 || total[MMTests2022] < 12 {
		t.Errorf("reference tables: %d of mmtests 2026 and %d of 2022, want at least 30 and 12", total[MMTests2026], total[MMTests2022])
	}
}
