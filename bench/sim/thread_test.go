package sim

import (
	"reflect"
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
		if got := c.p.threadName(c.instance); got != c.want {
			t.Errorf("name of %s instance %d = %q, want %q", c.p.name, c.instance, got, c.want)
		}
		if !c.p.names(c.want, c.instance) {
			t.Errorf("%q is not named %q", c.want, c.want)
		}
		for _, o := range c.others {
			if c.p.names(o, c.instance) {
				t.Errorf("%q is named %q", c.want, o)
			}
		}
	}
}

// TestThreadHoldsNoPointer checks that the machine's thread record holds no pointer, slice,
// map or string, so that the garbage collector does not scan the threads' slice.
func TestThreadHoldsNoPointer(t *testing.T) {
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				walk(path+"."+f.Name, f.Type)
			}
		case reflect.Array:
			walk(path+"[]", ty.Elem())
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface,
			reflect.Chan, reflect.Func, reflect.UnsafePointer:
			t.Errorf("%s is a %s", path, ty.Kind())
		}
	}
	walk("thread", reflect.TypeFor[thread]())
}
