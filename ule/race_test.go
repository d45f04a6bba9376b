//go:build race

package ule

// raceEnabled reports whether the tests run under the race detector, which allocates on its own
// and makes allocation counts meaningless.
const raceEnabled = true
