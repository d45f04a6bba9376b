package numfmt

import (
	"math"
	"strconv"
	"testing"
)

func TestSig3(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0.00"}, {0.004, "0.00"}, {0.05, "0.05"}, {0.456, "0.46"}, {1, "1.00"}, {1.2, "1.20"},
		{9.99, "9.99"}, {9.996, "10.0"}, {12.34, "12.3"}, {99.94, "99.9"}, {99.96, "100"},
		{123.4, "123"}, {1234.4, "1234"}, {1e6, "1000000"}, {-87.5, "-87.5"}, {-0.5, "-0.50"},
		{-100, "-100"}, {-9.996, "-10.0"}, {math.NaN(), "-"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"},
	} {
		if got := Sig3(tc.v); got != tc.want {
			t.Errorf("Sig3(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestSig3Digits checks, over a sweep of magnitudes, that every figure from 1 up has exactly
// three significant digits (or is a whole number of more) and reads back within half a unit of
// its last digit.
func TestSig3Digits(t *testing.T) {
	for v := 1.0; v < 1e5; v *= 1.0137 {
		s := Sig3(v)
		digits := 0
		for _, c := range s {
			if c >= '0' && c <= '9' {
				digits++
			}
		}
		if digits != 3 && !(intDigits(s) > 3 && digits == intDigits(s)) {
			t.Errorf("Sig3(%v) = %q: %d digits", v, s, digits)
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		ulp := math.Pow(10, float64(intDigits(s)-3))
		if intDigits(s) > 3 {
			ulp = 1
		}
		if math.Abs(back-v) > ulp/2*(1+1e-12) {
			t.Errorf("Sig3(%v) = %q, off by more than half of %g", v, s, ulp)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		ns   int64
		want string
	}{
		{0, "0ns"}, {950, "950ns"}, {999, "999ns"}, {1000, "1.00us"}, {12_345, "12.3us"},
		{999_499, "999us"}, {999_500, "1.00ms"}, {999_999, "1.00ms"}, {4_560_000, "4.56ms"}, {123_400_000, "123ms"}, {98_765_000_000, "98.8s"},
		{10_000_000, "10.0ms"}, {1_200_000_000, "1.20s"}, {3_600_000_000_000, "3600s"},
		{-3_000_000, "-3.00ms"}, {-999, "-999ns"}, {math.MinInt64, "-9223372037s"},
	} {
		if got := Duration(tc.ns); got != tc.want {
			t.Errorf("Duration(%d) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}
