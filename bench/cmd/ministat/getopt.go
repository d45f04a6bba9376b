package main

// This file implements the parts of glibc's getopt and of C's strtol and strtod that ministat's
// option parsing relies on.

import (
	"fmt"
	"math"
	"strings"

	"github.com/schedkit/schedkit/bench/stat"
)

// getopt parses args as glibc's getopt(3) with optstring opts does, calling f for each option
// in order, and returns the operands. Unless posix is set, options and operands may be mixed
// (GNU permutation); "--" ends the options; "-" is an operand. An unknown option or a missing
// argument is ministat's usage("Unknown option") after getopt's own message.
func getopt(args []string, opts string, posix bool, f func(c byte, arg string) error) ([]string, error) {
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(operands, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			if posix {
				return append(operands, args[i:]...), nil
			}
			operands = append(operands, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(opts, c)
			if k < 0 || c == ':' {
				return nil, usageAfter(fmt.Sprintf("ministat: invalid option -- '%c'\n", c))
			}
			if k+1 < len(opts) && opts[k+1] == ':' {
				arg := a[j+1:]
				if arg == "" {
					if i+1 == len(args) {
						return nil, usageAfter(fmt.Sprintf("ministat: option requires an argument -- '%c'\n", c))
					}
					i++
					arg = args[i]
				}
				if err := f(c, arg); err != nil {
					return nil, err
				}
				break
			}
			if err := f(c, ""); err != nil {
				return nil, err
			}
		}
	}
	return operands, nil
}

func usageAfter(msg string) error {
	e := usage("Unknown option").(*exitError)
	e.msg = msg + e.msg
	return e
}

// strtol parses s as ministat's strtol(optarg, &p, 10) with the check *p == '\0' and the
// assignment to an int: ok is false unless all of s is used (an empty s is 0 and ok, as in C);
// values beyond a long are clamped to it and then truncated to 32 bits.
func strtol(s string) (int, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	var v uint64
	over := false
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		d := uint64(s[j] - '0')
		if v > (math.MaxUint64-d)/10 {
			over = true
		} else {
			v = v*10 + d
		}
		j++
	}
	if j == i {
		return 0, s == ""
	}
	var l int64
	switch {
	case !neg && (over || v > math.MaxInt64):
		l = math.MaxInt64
	case neg && (over || v > 1<<63):
		l = math.MinInt64
	case neg:
		l = -int64(v)
	default:
		l = int64(v)
	}
	return int(int32(l)), j == len(s)
}

// parseWhole parses s as strtod(optarg, &p) with the check *p == '\0': ok is false unless all of
// s is one number (an empty s is 0 and ok).
func parseWhole(s string) (float64, bool) {
	if s == "" {
		return 0, true
	}
	v, n := stat.Strtod([]byte(s))
	return v, n == len(s)
}
