package main

// This file implements the serve subcommand: the course's interactive page on localhost.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/coursepage"
)

const serveSynopsis = "[flags]"

// shutdownGrace is how long serve waits for requests in flight when it is stopped.
const shutdownGrace = 5 * time.Second

func cmdServe(e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `host:port` (port 0 picks a free port); the default serves this machine only")
	file := fs.String("page", "", "serve this `file` (a page go run ./examples/coursepage -o wrote) (- for standard input) instead of building the page, which needs the Go toolchain and the schedkit source tree")
	if err := parseFlags(e, fs, args, serveSynopsis); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Args())
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usagef("-addr %q: want host:port, such as 127.0.0.1:8080", *addr)
	}
	var data []byte
	mod := time.Now()
	if *file == "-" {
		if data, err = e.readInput(*file); err != nil {
			return err
		}
	} else if *file != "" {
		fi, err := os.Stat(*file)
		if err != nil {
			return usagef("-page %s: %v", *file, errors.Unwrap(err))
		}
		if data, err = os.ReadFile(*file); err != nil {
			return err
		}
		mod = fi.ModTime()
	} else {
		fmt.Fprintln(e.stderr, "building the course page (the go command compiles its WebAssembly module)…")
		if data, err = coursepage.Build(e.ctx); err != nil {
			if e.ctx.Err() != nil {
				return fmt.Errorf("interrupted while building the page")
			}
			return err
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(e.stderr, "note: -addr %s serves the page to other machines too\n", *addr)
	}
	srv := &http.Server{Handler: coursepage.Handler(data, mod), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(e.stderr, "serving the course page on http://%s/ (^C stops)\n", ln.Addr())
	select {
	case err := <-served:
		return err
	case <-e.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
		return fmt.Errorf("stopping: %v", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
