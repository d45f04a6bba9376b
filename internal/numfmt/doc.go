// Package numfmt formats the figures of schedkit's tables: one rule for every number a table
// prints, so that the simulator's tables, the command line's and the model-against-host table
// say 1.20ms, 12.3 and 123 the same way.
//
// A figure keeps three significant digits from 1 up — two decimals below 10, one below 100,
// none from 100 (1.20, 12.3, 123, and 1234 whole, never in an exponent) — and two decimals
// below 1, where a table's figures are shares and ratios read against the others in their
// column (0.05, 0.00). Trailing zeros stay: 1.20 says the figure is known to the hundredth. A
// duration takes the largest of ns, us, ms and s in which it is at least 1 (950ns, 12.3us,
// 4.56ms, 1.20s), with whole nanoseconds below a microsecond.
//
// The number of decimals is chosen after rounding, so a figure never shows a fourth digit
// (9.996 is 10.0, not 10.00). The rounding is strconv's: the decimal nearest the float64, ties
// to even, so the same value prints the same digits on every GOARCH. The functions are pure.
package numfmt
