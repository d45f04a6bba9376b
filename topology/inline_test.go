package topology_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The methods policies call on their hot paths inline into their callers, so that a CPU mask
// kept as a CPUSet costs what a hand-written bitmap costs (bsd4 dropped its own for this):
// the compiler's -m output for this package says so for each.
func TestHotMethodsInline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the package with -gcflags=-m")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(gotool, "build", "-gcflags=-m", "-o", "/dev/null", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, m := range []string{"Add", "Remove", "Has", "IsEmpty", "First", "After", "Count", "Word", "AddSet"} {
		if !strings.Contains(string(out), "can inline (*CPUSet)."+m+"\n") {
			t.Errorf("(*CPUSet).%s does not inline", m)
		}
	}
}
