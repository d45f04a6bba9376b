package samplesort

import (
	"fmt"
	"slices"
)

// Cutoff is the number of samples below which [Sort32] calls slices.Sort: a radix sort's four
// 256-entry count tables cost more than a comparison sort of so few values.
const Cutoff = 256

// Sort32 sorts s ascending, as slices.Sort does. Every value must be in [0, 2^32); it panics
// otherwise. buf is scratch space, reused if its capacity is at least len(s); Sort32 returns
// it (grown if it was too small) for the next call.
func Sort32(s, buf []int64) []int64 {
	n := len(s)
	if n < Cutoff {
		check(s)
		slices.Sort(s)
		return buf
	}
	var count [4][256]int32
	for _, v := range s {
		if uint64(v) >= 1<<32 {
			panic(fmt.Sprintf("samplesort: Sort32: sample %d is outside [0, 2^32)", v))
		}
		count[0][byte(v)]++
		count[1][byte(v>>8)]++
		count[2][byte(v>>16)]++
		count[3][byte(v>>24)]++
	}
	if cap(buf) < n {
		buf = make([]int64, n)
	}
	src, dst := s, buf[:n]
	for d := range 4 {
		c := &count[d]
		shift := 8 * uint(d)
		if c[byte(src[0]>>shift)] == int32(n) {
			continue // every sample has this byte: the pass would not move any
		}
		var at int32
		for i := range c {
			at, c[i] = at+c[i], at
		}
		for _, v := range src {
			b := byte(v >> shift)
			dst[c[b]] = v
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
	return buf
}

func check(s []int64) {
	for _, v := range s {
		if uint64(v) >= 1<<32 {
			panic(fmt.Sprintf("samplesort: Sort32: sample %d is outside [0, 2^32)", v))
		}
	}
}
