// This file implements the registry of scenarios.

package scenario

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

var (
	regMu sync.Mutex
	reg   = map[string]*Scenario{}
)

// Register adds s to the registry. It panics if s does not validate or its name is taken:
// scenarios are registered by code, at init.
func Register(s *Scenario) {
	if err := s.Validate(); err != nil {
		panic(err.Error())
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, ok := reg[s.Name]; ok {
		panic("scenario: Register: " + s.Name + " registered twice")
	}
	reg[s.Name] = s
}

// Names returns the names of the registered scenarios, sorted.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]string, 0, len(reg))
	for k := range reg {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the scenario called name, or an error listing the known ones.
func Lookup(name string) (*Scenario, error) {
	regMu.Lock()
	s, ok := reg[name]
	regMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("scenario: unknown scenario %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}
