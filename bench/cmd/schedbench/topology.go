package main

// This file implements -topology: a text spec, a JSON file, a ready-made machine or the host.

import (
	"fmt"
	"os"
	"strings"

	"github.com/schedkit/schedkit/topology"
)

// machines are the ready-made topologies -topology names.
var machines = map[string]func() *topology.Topology{
	"two-cpu":        topology.TwoCPU,
	"two-socket-smt": topology.TwoSocketSMT,
	"four-llc":       topology.FourLLC,
	"four-node":      topology.FourNode,
	"big-little":     topology.BigLittle,
}

// machineNames lists the ready-made machines in a fixed order.
var machineNames = []string{"two-cpu", "two-socket-smt", "four-llc", "four-node", "big-little"}

// resolveTopology returns the topology -topology describes: "host" (this machine, within the
// process's affinity mask), a ready-made machine's name, a file holding a JSON spec or a text
// form, or a text form itself, such as "llc:1 core:4 cpu:2".
func resolveTopology(arg string) (*topology.Topology, error) {
	switch {
	case arg == "":
		return nil, fmt.Errorf("-topology is empty")
	case arg == "host":
		t, err := topology.Discover()
		if err != nil {
			return nil, fmt.Errorf("-topology host: %v", err)
		}
		return t, nil
	case machines[arg] != nil:
		return machines[arg](), nil
	}
	if data, err := os.ReadFile(arg); err == nil {
		return topologyFromData(arg, data)
	}
	if !strings.Contains(arg, ":") {
		return nil, fmt.Errorf("-topology %q: not a file, a machine (host, %s) or a spec such as \"llc:1 core:4 cpu:2\"", arg, strings.Join(machineNames, ", "))
	}
	t, err := topology.Parse(arg)
	if err != nil {
		return nil, fmt.Errorf("-topology: %v", err)
	}
	return t, nil
}

// topology is resolveTopology, with "-" reading the spec from standard input.
func (e *env) topology(arg string) (*topology.Topology, error) {
	if arg != "-" {
		return resolveTopology(arg)
	}
	data, err := e.readInput(arg)
	if err != nil {
		return nil, fmt.Errorf("-topology -: %v", err)
	}
	return topologyFromData(stdinName, data)
}

// topologyFromData returns the topology of the spec read from the file name: JSON if it
// starts with "{", the text form otherwise.
func topologyFromData(name string, data []byte) (*topology.Topology, error) {
	text := strings.TrimSpace(string(data))
	if strings.HasPrefix(text, "{") {
		var t topology.Topology
		if err := t.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("-topology %s: %v", name, err)
		}
		return &t, nil
	}
	t, err := topology.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("-topology %s: %v", name, err)
	}
	return t, nil
}
