package stat

import (
	"math"
	"testing"
)

// TestTableAgainstQuantile checks every entry of ministat's table against the exact quantile:
// each is the exact value rounded to three decimals, except the few misprints listed below,
// which ministat prints with and so do we.
//
// The column ministat labels 99.5% holds the two-sided 99.8% values (the one-sided 0.999
// quantile: 318.313 for one degree of freedom, 3.090 for the normal distribution), not the
// 99.5% ones (127.3 and 2.807): ministat's "99.5%" is a 99.8% interval.
func TestTableAgainstQuantile(t *testing.T) {
	// Entries of the 99.5% (really 99.8%) column that are not the exact value rounded to three
	// decimals: df 1, 7 and 8 are off by more than a rounding, df 9 to 12 are truncated.
	misprints := map[int]bool{1: true, 7: true, 8: true, 9: true, 10: true, 11: true, 12: true}
	for row := range studentTable {
		df := float64(row)
		if row == 0 {
			df = math.Inf(1)
		}
		for c, level := range Levels {
			if level == 99.5 {
				level = 99.8
			}
			exact := TQuantile(df, level)
			got := studentTable[row][c]
			rounded := math.Abs(got-exact) <= 0.0005+1e-9
			if misprinted := c == 5 && misprints[row]; rounded == misprinted {
				t.Errorf("table[df=%g][%g%%] = %.3f, exact %.6f: listed as a misprint %t", df, level, got, exact, misprinted)
			}
			if math.Abs(got-exact) > 0.005 {
				t.Errorf("table[df=%g][%g%%] = %.3f, exact %.6f: more than a misprint", df, level, got, exact)
			}
		}
	}
}

func TestTableT(t *testing.T) {
	for _, tc := range []struct {
		df         int
		confidence float64
		want       float64
	}{
		{1, 80, 3.078}, {1, 99.5, 318.313}, {8, 95, 2.306}, {16, 95, 2.120}, {42, 95, 2.018},
		{100, 95, 1.984}, {101, 95, 1.960}, {1 << 30, 99.5, 3.090},
	} {
		got, err := TableT(tc.df, tc.confidence)
		if err != nil || got != tc.want {
			t.Errorf("TableT(%d, %g) = %g, %v; want %g", tc.df, tc.confidence, got, err, tc.want)
		}
	}
	if _, err := TableT(0, 95); err == nil {
		t.Errorf("TableT(0, 95): no error")
	}
	if _, err := TableT(5, 96); err == nil {
		t.Errorf("TableT(5, 96): no error")
	}
}
