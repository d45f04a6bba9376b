package topology_test

import (
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/topology"
)

// modelSet is the naive reference for CPUSet: a sorted slice of CPUs.
type modelSet []topology.CPU

func (m *modelSet) add(c topology.CPU) {
	i, found := slices.BinarySearch(*m, c)
	if !found {
		*m = slices.Insert(*m, i, c)
	}
}

func (m *modelSet) remove(c topology.CPU) {
	if i, found := slices.BinarySearch(*m, c); found {
		*m = slices.Delete(*m, i, i+1)
	}
}

func (m modelSet) has(c topology.CPU) bool {
	_, found := slices.BinarySearch(m, c)
	return found
}

// after returns the first member above c.
func (m modelSet) after(c topology.CPU) (topology.CPU, bool) {
	for _, x := range m {
		if x > c {
			return x, true
		}
	}
	return 0, false
}

// before returns the last member below c.
func (m modelSet) before(c topology.CPU) (topology.CPU, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] < c {
			return m[i], true
		}
	}
	return 0, false
}

// cpulist writes m in the Linux cpulist form.
func (m modelSet) cpulist() string {
	var parts []string
	for i := 0; i < len(m); {
		j := i
		for j+1 < len(m) && m[j+1] == m[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(int(m[i])))
		} else {
			parts = append(parts, strconv.Itoa(int(m[i]))+"-"+strconv.Itoa(int(m[j])))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func (m modelSet) set() topology.CPUSet {
	return topology.CPUSetOf(m...)
}
