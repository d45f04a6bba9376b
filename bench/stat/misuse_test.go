package stat

import (
	"strings"
	"testing"
)

// TestMisuse: ReadDataset of a nil reader panics with "stat: …", never a bare nil-pointer
// dereference.
func TestMisuse(t *testing.T) {
	defer func() {
		p := recover()
		if s, ok := p.(string); !ok || !strings.HasPrefix(s, "stat: ReadDataset of a nil reader") {
			t.Errorf("ReadDataset(nil): panic %v", p)
		}
	}()
	ReadDataset(nil, "x", DefaultReadOptions())
}
