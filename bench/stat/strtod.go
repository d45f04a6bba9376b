package stat

// This file implements the part of C's strtod that decides what ministat accepts as a number.

import (
	"math"
	"strconv"
)

// Strtod parses a number at the start of s as glibc's strtod does in the C locale and returns
// it with the number of bytes it used (0 when s does not start with a number, as strtod sets
// its end pointer to s). It accepts leading white space, a sign, decimal numbers with an
// optional fraction and exponent, hexadecimal numbers ("0x1.8p3", "0x10"), "inf", "infinity"
// and "nan" with an optional "(chars)", in any case. A value too large for a float64 is ±Inf,
// as strtod's HUGE_VAL; one too small is rounded to 0 or a subnormal. The values agree with glibc's
// bit for bit, NaN payloads apart. [ReadDataset] uses it for every field.
func Strtod(s []byte) (float64, int) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := 1.0
	if neg {
		sign = -1
	}
	if n := prefixFold(s[i:], "inf"); n > 0 {
		i += n
		if m := prefixFold(s[i:], "inity"); m > 0 {
			i += m
		}
		return math.Inf(int(sign)), i
	}
	if n := prefixFold(s[i:], "nan"); n > 0 {
		i += n
		if i < len(s) && s[i] == '(' {
			j := i + 1
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				i = j + 1
			}
		}
		return math.Copysign(math.NaN(), sign), i
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		if end, ok := scanHex(s, i+2); ok {
			text := string(s[start:end])
			if !hasHexExponent(s[i+2 : end]) {
				text += "p0"
			}
			v, _ := strconv.ParseFloat(text, 64)
			return v, end
		}
		// "0x" without hex digits: strtod parses the "0" and stops at the "x".
		return math.Copysign(0, sign), i + 1
	}
	j, ok := scanNumber(s, i, isDigit, 'e', 'E')
	if !ok {
		return 0, 0
	}
	v, _ := strconv.ParseFloat(string(s[start:j]), 64) // ±Inf on overflow, as strtod
	return v, j
}

// scanHex scans the hexadecimal significand and optional binary exponent that follow "0x" at
// s[i:], returning the end; ok is false if there is no hex digit.
func scanHex(s []byte, i int) (end int, ok bool) {
	return scanNumber(s, i, isHex, 'p', 'P')
}

// scanNumber scans, from s[i:], digits (as digit says), an optional '.' and more digits, then,
// if there was at least one digit, an exponent: e1 or e2, an optional sign and decimal digits
// (left unscanned if no digit follows, as strtod does). It returns the end; ok is false if there
// is no digit.
func scanNumber(s []byte, i int, digit func(byte) bool, e1, e2 byte) (end int, ok bool) {
	j := i
	digits := 0
	for j < len(s) && digit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && digit(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if j < len(s) && (s[j] == e1 || s[j] == e2) {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	return j, true
}

func hasHexExponent(s []byte) bool {
	for _, c := range s {
		if c == 'p' || c == 'P' {
			return true
		}
	}
	return false
}

// prefixFold returns len(p) if s starts with p, ignoring ASCII case, else 0. p is lower case.
func prefixFold(s []byte, p string) int {
	if len(s) < len(p) {
		return 0
	}
	for i := range len(p) {
		if s[i]|0x20 != p[i] {
			return 0
		}
	}
	return len(p)
}

func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
func isAlnum(c byte) bool  { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' }
