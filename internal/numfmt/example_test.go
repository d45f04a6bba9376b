package numfmt_test

import (
	"fmt"

	"github.com/schedkit/schedkit/internal/numfmt"
)

func ExampleSig3() {
	for _, v := range []float64{0.05, 1.2, 12.34, 123.4, 1234.5, -87.5} {
		fmt.Print(numfmt.Sig3(v), " ")
	}
	fmt.Println()
	// Output: 0.05 1.20 12.3 123 1234 -87.5
}

func ExampleDuration() {
	for _, ns := range []int64{950, 12_345, 4_560_000, 1_200_000_000} {
		fmt.Print(numfmt.Duration(ns), " ")
	}
	fmt.Println()
	// Output: 950ns 12.3us 4.56ms 1.20s
}
