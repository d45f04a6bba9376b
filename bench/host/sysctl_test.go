package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNonUpstreamSchedSysctls(t *testing.T) {
	dir := t.TempDir()
	for name, value := range map[string]string{
		"sched_rt_runtime_us":     "950000\n",
		"sched_autogroup_enabled": "1\n",
		"sched_vcpu_pack":         "15\n",
		"sched_vendor_knob":       "1\t2\n",
		"printk":                  "4 4 1 7\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sched_domain"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := nonUpstreamSchedSysctls(dir)
	want := []string{"sched_vcpu_pack=15", "sched_vendor_knob=1 2"}
	if !slices.Equal(got, want) {
		t.Errorf("nonUpstreamSchedSysctls = %q, want %q", got, want)
	}
	if got := nonUpstreamSchedSysctls(filepath.Join(dir, "absent")); got != nil {
		t.Errorf("a missing directory gives %q, want nil", got)
	}
}

// A tool that compares a model of upstream Linux with the running kernel says when the kernel's
// scheduler is not upstream's. (No output is checked: it is empty on upstream Linux and
// "sched_vcpu_pack=15" on the project's CI machine type.)
func ExampleNonUpstreamSchedSysctls() {
	if quirks := NonUpstreamSchedSysctls(); len(quirks) > 0 {
		fmt.Println("patched scheduler:", strings.Join(quirks, ", "))
	}
}
