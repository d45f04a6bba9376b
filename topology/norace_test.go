//go:build !race

package topology_test

// raceEnabled reports whether the race detector is on; allocation tests
// skip themselves then, because it makes code allocate.
const raceEnabled = false
