package sim

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// TestThreadNames checks the names the machine derives from a thread's declaration and
// instance (ThreadStats.Name), and that named, which the stop conditions use, accepts exactly
// those.
func TestThreadNames(t *testing.T) {
	single := &program{decl: &workload.Thread{Name: "gzip"}, name: "gzip"}
	many := &program{decl: &workload.Thread{Name: "worker", Count: 12}, name: "worker"}
	tmpl := &program{decl: &workload.Thread{Name: "child", Template: true}, name: "child"}
	for _, c := range []struct {
		p        *program
		instance int32
		want     string
		others   []string
	}{
		{single, 0, "gzip", []string{"gzip.0", "gzi", "", "gzipp"}},
		{many, 0, "worker.0", []string{"worker", "worker.", "worker.00", "worker.+0", "worker.-0", "worker0", "worker.1"}},
		{many, 11, "worker.11", []string{"worker.1", "worker.011", "worker.11 ", "xworker.11"}},
		{tmpl, 3, "child.3", []string{"child", "child.4", "child.3.0"}},
	} {
		th := &thread{prog: c.p, instance: c.instance}
		if got := th.name(); got != c.want {
			t.Errorf("name of %s instance %d = %q, want %q", c.p.name, c.instance, got, c.want)
		}
		if !th.named(c.want) {
			t.Errorf("%q is not named %q", c.want, c.want)
		}
		for _, o := range c.others {
			if th.named(o) {
				t.Errorf("%q is named %q", c.want, o)
			}
		}
	}
}
