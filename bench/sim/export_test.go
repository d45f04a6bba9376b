package sim

// ForgetSorted drops what m's Results sorted so far (see sortedSeries), so that the next Result
// sorts every sample again: BenchmarkResult's first read, on a machine already run.
func ForgetSorted(m *Machine) { m.sorted = nil }
