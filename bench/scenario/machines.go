// This file implements what each seed says of its machine, and which machine profile stands
// for it in the model.

package scenario

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

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
	"004": "Seed 004 (Zhou, 2022) does not name its machine; mmtests' arithmetic gives its shape. " + seed004MachineNote +
		" The CI machine's profile stands for its costs: the same kernel family's paths (try_to_wake_up, the IPI, the " +
		"idle loop, the switch), measured on a virtual machine, where IPIs and idle exits cost more than on bare metal.",
}

// seed004MachineNote is what mmtests' configurations say of seed 004's machine, and how its
// scenarios model it.
const seed004MachineNote = "In mmtests of 2022-10 (b5f04c23), config-network-tbench runs tbench with up to " +
	"NUMCPUS*4 clients and the seed's last row is 384: 96 CPUs. config-scheduler-schbench runs schbench -m NUMNODES " +
	"-t N for N in powers of two up to (NUMCPUS/NUMNODES)-1, and the seed's last row is 23: 96/NUMNODES = 24, so 4 " +
	"NUMA nodes, and 4 message threads with N workers each. config-scheduler-unbound runs hackbench up to " +
	"min(NUMCPUS*4, 296) groups (threads_large_stride: 1 4 7 12 21 30 48 79 … 296), and the seed's rows reach 296: " +
	"NUMCPUS is at least 74, as 96 is. The model's machine is 4 nodes of 24 CPUs, one last-level cache a node; the " +
	"caches and SMT are not known (parameter smt; 2 is swept in the notes)."

// machineOf returns what s says of its seed's machine: its own Machine, or its seed's
// paragraph, or "" for a scenario of no seed.
func machineOf(s *Scenario) string {
	if s.Machine != "" {
		return s.Machine
	}
	return seedMachines[s.Seed]
}

// seed004MachineParams are the parameters of seed 004's machine, shared by all its scenarios:
// its CPUs and NUMA nodes, which mmtests' arithmetic gives (seed004MachineNote), and its SMT,
// which nothing in the seed or the sources says.
func seed004MachineParams() []Param {
	return []Param{
		{Name: "cpus", Doc: "CPUs (mmtests' NUMCPUS: 96, from tbench's NUMCPUS*4 = 384 clients)", Default: 96, Min: 1, Max: 1024, Integer: true},
		{Name: "nodes", Doc: "NUMA nodes, one last-level cache each (mmtests' NUMNODES: 4, from schbench's (NUMCPUS/NUMNODES)-1 = 23)", Default: 4, Min: 1, Max: 64, Integer: true},
		{Name: "smt", Doc: "hardware threads a core (not known: the seed does not name its machine)", Default: 1, Min: 1, Max: 8, Integer: true},
	}
}

// seed004Topology returns seed 004's machine as v declares it: cpus CPUs in nodes NUMA nodes
// of one last-level cache each, smt hardware threads a core. The source says cpus and nodes
// (mmtests' arithmetic, seed004Machine's notes); the caches and SMT it does not.
func seed004Topology(v Values) (*topology.Topology, error) {
	cpus, nodes, smt := int(v["cpus"]), int(v["nodes"]), int(v["smt"])
	if cpus%(nodes*smt) != 0 {
		return nil, fmt.Errorf("cpus %d is not a multiple of nodes %d x smt %d", cpus, nodes, smt)
	}
	return topology.New(topology.UniformSpec(1, nodes, 1, cpus/(nodes*smt), smt))
}
