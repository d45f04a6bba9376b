package main

// This file implements the -profile flag of the commands that simulate: the machine profile
// whose costs the simulated machine charges (sim.Profile), by name or file.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
)

// registerProfile adds -profile to fs, into p.
func registerProfile(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "profile", sim.DefaultProfileName,
		"the machine `profile`: what each step between a scheduling decision and its effect costs; "+
			strings.Join(sim.BuiltinProfiles(), ", ")+" (shipped: "+sim.DefaultProfileName+" was measured on the machine the project's CI runs on, ideal charges nothing), "+
			"host (what schedbench calibrate measured here, "+hostProfileHelp()+"), or a profile file; "+
			"any of them followed by "+latenciesSuffix+" charges only its latencies (ipi, idle_exit, idle_poll, timer), for workloads whose CPU costs were measured with the real programs")
}

// registerScenarioProfile adds -profile to fs for the commands that run scenarios, and returns
// its value: "" leaves each scenario its own profile (the default, ci, unless the scenario
// names another for its seed's machine).
func registerScenarioProfile(fs *flag.FlagSet) *string {
	return fs.String("profile", "",
		"the machine `profile` every scenario charges (as run's -profile: "+strings.Join(sim.BuiltinProfiles(), ", ")+", host or a file, each with "+latenciesSuffix+" or not); "+
			"by default each scenario's own, "+sim.DefaultProfileName+" unless it names another for its seed's machine")
}

// scenarioProfile resolves a scenario command's -profile: nil for "".
func scenarioProfile(name string) (*sim.Profile, error) {
	if name == "" {
		return nil, nil
	}
	return resolveProfile(name)
}

// latenciesSuffix ends a -profile value whose latency figures alone are charged
// (sim.Profile.Latencies): "ci:latencies".
const latenciesSuffix = ":latencies"

// resolveProfile returns the profile named by -profile: a shipped one, host, or a file; any of
// them followed by ":latencies" restricted to its latency figures.
func resolveProfile(name string) (*sim.Profile, error) {
	if base, ok := strings.CutSuffix(name, latenciesSuffix); ok && base != "" {
		p, err := resolveProfile(base)
		if err != nil {
			return nil, err
		}
		return p.Latencies(), nil
	}
	if p, ok := sim.BuiltinProfile(name); ok {
		return p, nil
	}
	if name == "host" {
		path, err := hostProfilePath()
		if err != nil {
			return nil, usagef("-profile host: %v", err)
		}
		p, err := sim.LoadProfile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("-profile host: no host profile at %s: measure one with schedbench calibrate", path)
		}
		if err != nil {
			return nil, usagef("-profile host: %v", err)
		}
		return p, nil
	}
	if !strings.ContainsAny(name, "/.") {
		return nil, usagef("-profile %s: not a profile (want %s, host or a profile file)", name, strings.Join(sim.BuiltinProfiles(), ", "))
	}
	p, err := sim.LoadProfile(name)
	if err != nil {
		return nil, usagef("-profile %v", err)
	}
	return p, nil
}

// defaultHostProfile is the profile the host command's models charge unless -profile says: the
// host profile where calibrate has written one, else the default.
func defaultHostProfile() string {
	if path, err := hostProfilePath(); err == nil {
		if _, err := os.Stat(path); err == nil {
			return "host"
		}
	}
	return sim.DefaultProfileName
}

// hostProfilePath returns where calibrate writes the host profile and -profile host reads it:
// schedkit/host-profile.json in the user's configuration directory ($XDG_CONFIG_HOME, or
// ~/.config), or $SCHEDKIT_HOST_PROFILE.
func hostProfilePath() (string, error) {
	if p := os.Getenv("SCHEDKIT_HOST_PROFILE"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration directory for the host profile (%v): set SCHEDKIT_HOST_PROFILE", err)
	}
	return filepath.Join(dir, "schedkit", "host-profile.json"), nil
}

// hostProfileHelp says where the host profile is, for the flags' help.
func hostProfileHelp() string {
	return "$SCHEDKIT_HOST_PROFILE or the user configuration directory's schedkit/host-profile.json"
}

// mkdirFor makes the directory of path if it is missing.
func mkdirFor(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}
