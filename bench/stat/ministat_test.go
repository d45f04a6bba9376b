package stat

import (
	"bytes"
	"strings"
	"testing"
)

func dataset(xs ...float64) *Dataset {
	var d Dataset
	for _, x := range xs {
		d.Add(x)
	}
	return &d
}

func TestMinistat(t *testing.T) {
	// Recorded from Debian's ministat 20150715: ministat e.txt f.txt with e = 1 2 3 4 and
	// f = 5 6 7 9 (the byte-for-byte comparisons with it on many more inputs are
	// bench/cmd/ministat's golden and random tests).
	const want = `x e.txt
+ f.txt
+--------------------------------------------------------------------------+
|x        x        x        x         +        +        +                 +|
|  |___________A___M______|           |______________A__M____________|     |
+--------------------------------------------------------------------------+
    N           Min           Max        Median           Avg        Stddev
x   4             1             4             3           2.5     1.2909944
+   4             5             9             7          6.75     1.7078251
Difference at 95.0% confidence
	4.25 +/- 2.61936
	170% +/- 104.774%
	(Student's t, pooled s = 1.51383)
`
	var b bytes.Buffer
	err := Ministat(&b, []Sample{{"e.txt", dataset(1, 2, 3, 4)}, {"f.txt", dataset(5, 6, 7, 9)}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("Ministat =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestMinistatErrors(t *testing.T) {
	three := Sample{"a", dataset(1, 2, 3)}
	eight := []Sample{three, three, three, three, three, three, three, three}
	o := DefaultOptions()
	bad := o
	bad.Confidence = 97
	for _, tc := range []struct {
		name    string
		samples []Sample
		o       Options
		want    string
	}{
		{"none", nil, o, "compares 1 to 7 data sets, have 0"},
		{"eight", eight, o, "compares 1 to 7 data sets, have 8"},
		{"two values", []Sample{three, {"b", dataset(1, 2)}}, o, "Dataset b must contain at least 3 data points"},
		{"nil data", []Sample{{"c", nil}}, o, "Dataset c must contain at least 3 data points"},
		{"confidence", []Sample{three}, bad, "no Student's t table column for 97% confidence"},
		{"width 1", []Sample{three}, Options{Confidence: 95, Width: 1}, "width 1"},
		{"width -1", []Sample{three}, Options{Confidence: 95, Width: -1}, "width -1"},
		{"spread beyond a float64", []Sample{{"huge", dataset(-1.7e308, 0, 1.7e308)}}, o, "no plot can scale them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Ministat(&b, tc.samples, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Ministat error = %v, want one containing %q", err, tc.want)
			}
			if b.Len() != 0 {
				t.Errorf("Ministat wrote %q before failing", b.String())
			}
		})
	}
}

func TestDifferenceString(t *testing.T) {
	x, y := Summarize([]float64{1, 2, 3, 4}), Summarize([]float64{5, 6, 7, 9})
	d, _ := Welch(x, y, 95)
	if got, want := d.String(), "Difference at 95.0% confidence\n\t4.25 +/- 2.66722\n\t170% +/- 106.689%\n\t(Welch's t, df = 5.58462)\n"; got != want {
		t.Errorf("Welch Difference.String() = %q, want %q", got, want)
	}
	d, _ = Student(x, y, 99.5)
	if got, want := d.String(), "No difference proven at 99.5% confidence\n"; got != want {
		t.Errorf("Difference.String() = %q, want %q", got, want)
	}
}

func TestMinistatRatioHalfWidth(t *testing.T) {
	// With the option, the relative line carries RelHalfWidthRatio (checked against seeds 000
	// and 003 in TestStudentSeeds) instead of RelHalfWidth.
	x, y := dataset(110, 111, 110, 109, 111, 111), dataset(105, 106, 104, 105, 107, 105)
	o := DefaultOptions()
	o.SummaryOnly = false
	o.NoPlot = true
	var plain, ratio bytes.Buffer
	if err := Ministat(&plain, []Sample{{"x", x}, {"y", y}}, o); err != nil {
		t.Fatal(err)
	}
	o.RatioHalfWidth = true
	if err := Ministat(&ratio, []Sample{{"x", x}, {"y", y}}, o); err != nil {
		t.Fatal(err)
	}
	d, _ := Student(x.Summary(), y.Summary(), 95)
	wantPlain := "\t" + formatG(d.Rel, 6) + "% +/- " + formatG(d.RelHalfWidth, 6) + "%\n"
	wantRatio := "\t" + formatG(d.Rel, 6) + "% +/- " + formatG(d.RelHalfWidthRatio, 6) + "%\n"
	if wantPlain == wantRatio {
		t.Fatalf("test data do not tell the two half-widths apart")
	}
	if !strings.Contains(plain.String(), wantPlain) || !strings.Contains(ratio.String(), wantRatio) {
		t.Errorf("Ministat relative lines:\n%s\n%s\nwant %q and %q", plain.String(), ratio.String(), wantPlain, wantRatio)
	}
}
