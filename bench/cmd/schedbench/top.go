package main

// This file implements top: a simulated run seen as top(1) sees it, every -every of simulated
// time (package bench/top computes the screens).

import (
	"bufio"
	"flag"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/top"
)

const topSynopsis = "[-every DURATION] [machine flags] WORKLOAD"

func cmdTop(e *env, args []string) error {
	var f machineFlags
	fs := flag.NewFlagSet("top", flag.ContinueOnError)
	f.register(fs, "ule")
	every := fs.Duration("every", time.Second, "simulated `time` between two screens")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, topSynopsis); err != nil {
		return err
	}
	if *every <= 0 || *every > maxUntil {
		return usagef("-every %v: want a duration above 0 and at most %v", *every, maxUntil)
	}
	s, err := f.resolve(e, fs)
	if err != nil {
		return err
	}
	if len(s.policies) != 1 {
		return usagef("top takes one policy, got %d in -policy %q", len(s.policies), f.policy)
	}
	if n := s.flags.until / *every; n > 10000 {
		return usagef("-until %v / -every %v = %d screens; at most 10000", s.flags.until, *every, n)
	}
	p := s.policies[0].new()
	m, err := sim.New(s.config(0, 0, sim.TraceOff, false), p, s.w)
	if err != nil {
		return usagef("%v", err)
	}
	w := bufio.NewWriter(e.stdout)
	tw, err := top.New(p) // once started: ULE's and 4BSD's System is made by Start
	if err != nil {
		return usagef("%s: %v", s.policies[0].name, err)
	}
	for at := *every; at <= s.flags.until; at += *every {
		if err := runMachine(e.ctx, m, at); err != nil {
			return err
		}
		io.WriteString(w, tw.Screen(m.Result()).Text(s.policies[0].name))
		if m.Done() {
			break
		}
	}
	return w.Flush()
}
