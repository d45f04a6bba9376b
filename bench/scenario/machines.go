// This file implements what each seed says of its machine, and which machine profile stands
// for it in the model.

package scenario

// seedMachines are, per seed, the machine the seed measured on and why the profile its
// scenarios run on stands for it. None of the seeds' machines was measured by this project:
// each scenario charges the costs of the machine the project's CI runs on (sim.DefaultProfile,
// measured with schedbench calibrate), the nearest measured machine there is, and says how the
// seed's differs. No figure of a profile is chosen to make a seed's result come out.
var seedMachines = map[string]string{
	"000": "Seed 000 measured an 8-core virtual machine running FreeBSD 14 (2023). No profile of it exists: the CI " +
		"machine's stands for it, a virtual machine too (2 vCPUs of an AMD EPYC under Linux 6.18), whose IPIs and " +
		"idle exits go through the hypervisor as the seed's did. FreeBSD's own paths (sched_add, cpu_idle, " +
		"ipi_cpu) were not measured; the figures are Linux's.",
	"001": "Seed 001 (Kargl, 2008 and 2011) ran numerical jobs on a multi-core amd64 server of the time whose " +
		"dmesg is not in the seed. No profile of it exists: the CI machine's stands for it. The seed's jobs are " +
		"CPU-bound and rarely wake, so the costs between a decision and its effect matter little to its figures.",
	"002": "Seed 002 (Evans, 2018) built worlds on i386 FreeBSD 12 on 4 cores × 2 HTT. No profile of that machine " +
		"exists: the CI machine's stands for it. A 2018 desktop's switch and wake-up are likely cheaper than this " +
		"virtual machine's (no hypervisor on its IPIs and idle exits) and its SMT siblings share caches this " +
		"machine's vCPUs may not; the migration figures at the SMT and LLC levels are the CI machine's own " +
		"level's, marked assumed in the profile.",
	"003": "Seed 003 (Certner, 2025) measured buildworld on a Ryzen 9 3900X (12 cores, 24 threads). No profile of " +
		"it exists: the CI machine's (an AMD EPYC guest) stands for it; its SMT and LLC migration figures are " +
		"assumed, as the profile says.",
	"004": "Seed 004 (Zhou, 2022) does not name its machine (a Linux 6.1-era server, 24 CPUs by mmtests' " +
		"NUMCPUS-1 = 23 schbench workers). The CI machine's profile stands for it: the same kernel family's " +
		"paths (try_to_wake_up, the IPI, the idle loop, the switch), measured on a virtual machine, where IPIs " +
		"and idle exits cost more than on bare metal.",
}

// machineOf returns what s says of its seed's machine: its own Machine, or its seed's
// paragraph, or "" for a scenario of no seed.
func machineOf(s *Scenario) string {
	if s.Machine != "" {
		return s.Machine
	}
	return seedMachines[s.Seed]
}
