package presets_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// A nice 0 and a nice 19 hog on one CPU under two presets: CFS's weights give the nice 0 hog
// almost everything, ULE legacy about half
// (seed 000's "about 50:50"). An unknown name is an error.
func ExampleNew() {
	w, _ := workload.Parse("thread a\n\trun forever\nend\nthread b nice=19\n\trun forever\nend\n")
	for _, name := range []string{"cfs:v6.5", "ule:legacy"} {
		p, err := presets.New(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		r, _ := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}, p, w, 10*time.Second)
		fmt.Printf("%-10s nice 0 gets %.2f\n", name, r.Threads[0].Share())
	}
	_, err := presets.New("ule:freebsd3")
	fmt.Println(err != nil)
	// Output:
	// cfs:v6.5   nice 0 gets 0.99
	// ule:legacy nice 0 gets 0.53
	// true
}
