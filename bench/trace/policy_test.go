package trace

import (
	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
)

// policy returns a fresh policy by its presets name ("ule:main", "cfs:v6.6"); the names are
// fixed in the tests, so an error is a bug.
func policy(name string) sim.Policy {
	p, err := presets.New(name)
	if err != nil {
		panic(err)
	}
	return p
}
