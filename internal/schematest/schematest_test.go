package schematest

import (
	"strings"
	"testing"
)

// TestCheck checks that the schema compiles and tells documents that follow it from ones that
// break it.
func TestCheck(t *testing.T) {
	result := `{"schema":"schedkit.sim.result/1","policy":"p","start_ns":0,"end_ns":5,"ending":"time","tick_hz":1000,
		"makespan_ns":5,"events":3,"exited":0,"messages":0,"violation_counts":{"starvation":0},"violations":[],
		"threads":[{"id":0,"name":"a","decl":"a","group":"","parent":-1,"start_ns":0,"end_ns":-1,"cpu_ns":5,
		"wait_ns":0,"sleep_ns":0,"work_ns":5,"voluntary":0,"involuntary":0,"migrations":0,"wakeups":0,
		"lifetime_ns":5,"share":1,"wakeup":{"count":1,"min_ns":2,"max_ns":2,"exact_ns":[2]},
		"runq_wait":{"count":0,"min_ns":0,"max_ns":0},"request":{"count":2,"min_ns":1,"max_ns":9,"buckets":[[1,1],[9,1]]}}],
		"cpus":[{"id":0,"busy_ns":5,"idle_ns":0,"interrupt_ns":0,"switch_ns":0,"idle_exit_ns":0,"switches":1,"ticks":{"user":1}}]}`
	runs := `{"schema":"schedkit.sim.runs/1","settings":{"seed":"1"},"columns":["p"],"complete":true,
		"runs":[{"column":"p","rep":0,"seed":1,"result":` + result + `}]}`
	for _, good := range []string{result, runs} {
		if err := Check([]byte(good)); err != nil {
			t.Errorf("Check(%.40s…) = %v, want nil", good, err)
		}
	}
	for _, bad := range []string{
		strings.Replace(result, `schedkit.sim.result/1`, `schedkit.sim.result/2`, 1),
		strings.Replace(result, `"ending":"time"`, `"ending":"later"`, 1),
		strings.Replace(result, `"cpu_ns":5`, `"cpu_ns":-5`, 1),
		strings.Replace(result, `"share":1`, `"share":1,"latency_ns":{}`, 1),
		strings.Replace(result, `"starvation":0`, `"laziness":0`, 1),
		strings.Replace(result, `"ticks":{"user":1}`, `"ticks":{"busy":1}`, 1),
		strings.Replace(result, `"exact_ns":[2]`, `"exact_ns":[2],"buckets":[[2,1]]`, 1),
		strings.Replace(runs, `"complete":true,`, ``, 1),
		strings.Replace(runs, `"seed":1,`, `"seed":"1",`, 1),
		strings.Replace(runs, `"schedkit.sim.runs/1"`, `"schedbench.run/1"`, 1),
		`{"schema":"schedbench.run/1"}`,
		`[]`,
	} {
		if err := Check([]byte(bad)); err == nil {
			t.Errorf("Check(%s) = nil, want an error", bad)
		}
	}
}
