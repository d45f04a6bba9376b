package numfmt

// This file implements Sig3 and Duration.

import (
	"math"
	"strconv"
	"strings"
)

// Sig3 formats v with three significant digits from 1 up and two decimals below: "0.05",
// "1.20", "12.3", "123", "1234", "-87.5". The decimals are chosen after rounding, so 9.996 is
// "10.0" and 99.97 is "100". NaN is "-", a table's empty cell; infinities are "+Inf" and "-Inf".
func Sig3(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for dec := 2; dec > 0; dec-- {
		s := strconv.FormatFloat(v, 'f', dec, 64)
		if intDigits(s)+dec <= 3 {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// intDigits returns the number of digits before the point of a formatted number.
func intDigits(s string) int {
	s = strings.TrimPrefix(s, "-")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return i
	}
	return len(s)
}

// units are Duration's units above the nanosecond, each a thousand times the one before.
var units = [...]struct {
	name string
	ns   float64
}{{"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// Duration formats ns nanoseconds in the largest unit of ns, us, ms and s in which it is at
// least 1, with Sig3's digits: "950ns", "12.3us", "4.56ms", "1.20s", "-3.00ms". Below a
// microsecond it is a whole number of nanoseconds; a figure that rounds to 1000 of a unit is
// given in the next (999,999ns is "1.00ms", not "1000us").
func Duration(ns int64) string {
	d := float64(ns)
	if math.Abs(d) < 1e3 {
		return strconv.FormatInt(ns, 10) + "ns"
	}
	for i, u := range units {
		s := Sig3(d / u.ns)
		if intDigits(s) <= 3 || i == len(units)-1 {
			return s + u.name
		}
	}
	panic("unreachable")
}
