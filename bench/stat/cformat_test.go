package stat

import (
	"math"
	"testing"
)

func TestFormatG(t *testing.T) {
	// Each want is what glibc's printf("%.*g") prints (C99 7.19.6.1 worked by hand for each).
	negz := math.Copysign(0, -1)
	for _, tc := range []struct {
		x    float64
		prec int
		want string
	}{
		{0, 6, "0"}, {negz, 6, "-0"}, {1, 6, "1"}, {170, 6, "170"}, {0.1, 6, "0.1"},
		{1.184439999999995, 6, "1.18444"}, {100000, 6, "100000"}, {1000000, 6, "1e+06"},
		{123456789, 8, "1.2345679e+08"}, {12345678, 8, "12345678"}, {0.0001, 6, "0.0001"},
		{0.00001, 6, "1e-05"}, {0.000123456789, 8, "0.00012345679"}, {1e-300, 6, "1e-300"},
		{1.5e300, 8, "1.5e+300"}, {9.9999995, 6, "10"}, {999999.5, 6, "1e+06"},
		{-5.2360299999999995, 6, "-5.23603"}, {435.66667, 8, "435.66667"}, {2.5, 0, "2"},
		{3.5, 1, "4"}, {0.5, 0, "0.5"}, {1e21, 8, "1e+21"}, {123.456, 2, "1.2e+02"},
		{math.Inf(1), 6, "inf"}, {math.Inf(-1), 6, "-inf"}, {math.NaN(), 6, "nan"},
		{math.Copysign(math.NaN(), -1), 6, "-nan"},
	} {
		if got := formatG(tc.x, tc.prec); got != tc.want {
			t.Errorf("formatG(%v, %d) = %q, want %q", tc.x, tc.prec, got, tc.want)
		}
	}
	if got := padLeft("1.5", 13); got != "          1.5" {
		t.Errorf("padLeft(1.5, 13) = %q", got)
	}
	if got := padLeft("1.2345679e+08", 5); got != "1.2345679e+08" {
		t.Errorf("padLeft of a long string = %q", got)
	}
}
