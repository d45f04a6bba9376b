//go:build race

package trace

// raceEnabled says the race detector is on: allocation and heap figures are meaningless then.
const raceEnabled = true
