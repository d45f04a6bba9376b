//go:build !race

package sim_test

// raceEnabled says the race detector is on: allocation counts are meaningless then.
const raceEnabled = false
