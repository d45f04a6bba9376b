package main

// This file implements how the command ends on SIGINT, SIGTERM and SIGHUP, the same way for
// every subcommand and with one clean-up path.
//
// The first signal cancels the command's context: the command stops at its next look at it,
// prints what finished (run's table of the finished runs), removes its temporary files, and the
// host runner stops its threads, kills its child processes' process groups and removes its
// cgroups, as it does whenever its context ends; the command then exits with status 1 and one
// line saying it was interrupted. A second signal, or stopGrace passing after the first without
// the command having ended (a write blocked on a pipe nobody reads), removes the temporary
// files of the outputs in flight (outfile.RemoveTemps) and ends the process by the signal, as
// its default action would; what a host run had created then is removed by the next host run
// (bench/host sweeps what runners that no longer exist left behind). A signal the process
// started with ignored (nohup's SIGHUP, a background job's SIGINT) stays ignored.

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/schedkit/schedkit/internal/outfile"
)

// stopGrace is how long the command may take to end after the first signal before it is ended
// at once (a variable for the tests).
var stopGrace = 15 * time.Second

// signalsCaught is called once the stop signals are caught (the tests wait for it before they
// send one).
var signalsCaught = func() {}

// stopSignals are the signals that stop a command cleanly.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// catchSignals makes the stop signals cancel the context cancel belongs to, as the file's
// comment describes, until the returned function is called.
func catchSignals(cancel context.CancelCauseFunc) (stop func()) {
	var caught []os.Signal
	for _, sig := range stopSignals {
		if !signal.Ignored(sig) {
			caught = append(caught, sig)
		}
	}
	c := make(chan os.Signal, 2)
	quit := make(chan struct{})
	if len(caught) > 0 {
		signal.Notify(c, caught...)
	}
	signalsCaught()
	go func() {
		var first os.Signal
		select {
		case first = <-c:
		case <-quit:
			return
		}
		cancel(fmt.Errorf("%v", first))
		select {
		case s := <-c:
			die(s)
		case <-time.After(stopGrace):
			die(first)
		case <-quit:
		}
	}()
	return func() {
		signal.Stop(c)
		close(quit)
	}
}

// die removes the temporary files and ends the process by sig's default action.
func die(sig os.Signal) {
	outfile.RemoveTemps()
	signal.Reset(sig)
	raise(sig)
	os.Exit(exitFailure) // a signal without a default action that ends the process
}
