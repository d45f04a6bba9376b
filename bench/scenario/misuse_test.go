package scenario_test

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
)

// TestMisuse runs the package's misuses with nil arguments: each panics with "scenario: …",
// never a bare nil-pointer dereference.
func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"NewPlan(nil, …)", func() { scenario.NewPlan(nil, scenario.Options{}) }},
		{"Run(nil, …)", func() { scenario.Run(nil, scenario.Options{}) }},
		{"ReadJSONL(nil)", func() { scenario.ReadJSONL(nil) }},
	} {
		func() {
			defer func() {
				p := recover()
				if s, ok := p.(string); !ok || !strings.HasPrefix(s, "scenario: ") {
					t.Errorf("%s: panic %v, want one starting \"scenario: \"", tc.name, p)
				}
			}()
			tc.f()
		}()
	}
}
