package bsd4

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// FuzzCPUMask applies a random stream of adds and removes to a cpuMask and to a
// topology.CPUSet, the model, and checks after each step that both hold the same CPUs.
func FuzzCPUMask(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 63, 0, 64, 1, 63, 0, 255, 3, 255})
	f.Add([]byte{1, 0, 0, 0, 2, 0, 2, 1, 0, 3, 0, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var m cpuMask
		var model topology.CPUSet
		for i := 0; i+2 < len(ops); i += 3 {
			c := topology.CPU(int(ops[i+1])<<2|int(ops[i+2])) % topology.MaxCPUs
			if ops[i]%2 == 0 {
				m.add(c)
				model.Add(c)
			} else {
				m.remove(c)
				model.Remove(c)
			}
			for _, x := range []topology.CPU{c, c ^ 1, c ^ 63, c ^ 64, topology.MaxCPUs - 1 - c} {
				if m.has(x) != model.Has(x) {
					t.Fatalf("step %d: has(%d) = %t, the model %t", i/3, x, m.has(x), model.Has(x))
				}
			}
		}
		var got topology.CPUSet
		for c := range topology.CPU(topology.MaxCPUs) {
			if m.has(c) {
				got.Add(c)
			}
		}
		if got != model {
			t.Fatalf("mask %v, the model %v", got, model)
		}
	})
}

// TestCPUMaskOr checks or and empty against topology.CPUSet's Union and IsEmpty on random
// masks: or adds the CPUs of the first words words of o, and no others; empty looks at those
// words only.
func TestCPUMaskOr(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 4))
	for i := range 2000 {
		words := 1 + rng.IntN(topology.MaxCPUs/64)
		var m, o cpuMask
		var ms, os topology.CPUSet
		for range rng.IntN(40) {
			c := topology.CPU(rng.IntN(topology.MaxCPUs))
			m.add(c)
			ms.Add(c)
		}
		for range rng.IntN(6) {
			c := topology.CPU(rng.IntN(topology.MaxCPUs))
			o.add(c)
			if int(c) < words*64 {
				os.Add(c)
			}
		}
		if o.empty(words) != os.IsEmpty() {
			t.Fatalf("case %d: empty(%d) = %t, want %t", i, words, o.empty(words), os.IsEmpty())
		}
		m.or(&o, words)
		want := ms.Union(os)
		for c := range topology.CPU(topology.MaxCPUs) {
			if m.has(c) != want.Has(c) {
				t.Fatalf("case %d: after or(words %d), has(%d) = %t, want %t", i, words, c, m.has(c), want.Has(c))
			}
		}
	}
}
