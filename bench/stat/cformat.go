package stat

// This file implements the printf conversions ministat's output uses (%g, %13.8g, %.1f), with
// glibc's results, so that the bytes we write are the bytes ministat writes.

import (
	"math"
	"strconv"
	"strings"
)

// formatG returns x formatted as C's printf("%.*g", prec, x) does with glibc: prec significant
// digits, the %e style when the exponent X of x (after rounding to prec digits) is below -4 or
// at least prec and the %f style otherwise, trailing zeros and a trailing decimal point removed;
// "inf", "-inf", "nan" and "-nan" (the sign of a NaN shows, and the NaN an x86 operation produces
// has it set).
func formatG(x float64, prec int) string {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	if prec == 0 {
		prec = 1
	}
	e := strconv.FormatFloat(x, 'e', prec-1, 64)
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp >= -4 && exp < prec {
		return trimZeros(strconv.FormatFloat(x, 'f', prec-1-exp, 64))
	}
	return trimZeros(e[:i]) + e[i:]
}

// trimZeros removes the trailing zeros of a decimal fraction, and its decimal point if nothing
// is left after it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// padLeft returns s right-aligned in a field of width bytes, as printf's %13.8g pads.
func padLeft(s string, width int) string {
	if len(s) >= width {
		return s
	}
	return strings.Repeat(" ", width-len(s)) + s
}
