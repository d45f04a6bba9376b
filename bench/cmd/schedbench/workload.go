package main

// This file implements reading the workload argument.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/trace"
)

// errNoFile says that a workload argument names no file (it may name a scenario).
var errNoFile = errors.New("no such workload file")

// loadWorkload reads the workload file path ("-": standard input): a real trace to replay if
// its name ends in .ftrace (ftrace text: tracefs, trace-cmd report, perf sched script) or
// .gotrace (a Go execution trace), imported by bench/trace; the JSON form if its name ends in
// .json or its text starts with "{"; the text form otherwise. An error names the file and, for
// a problem in it, the line and column as file:line:col.
//
// -max-memory (e.maxMemory; 0: none) bounds it: a text or JSON file may take at most 1/64
// of it, and a trace is imported with it as its ImportOptions.MemoryLimit; the file is read
// through that limit, so that a device or a pipe without end is an error.
func loadWorkload(e *env, path string) (*workload.Workload, error) {
	switch filepath.Ext(path) {
	case ".ftrace", ".gotrace":
		// A real trace, replayed: each task's bursts, blocks and wake-ups become its script.
		f, err := e.openInput(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: %w", path, errNoFile)
			}
			return nil, err
		}
		defer f.Close()
		read := trace.ReadFtrace
		if filepath.Ext(path) == ".gotrace" {
			read = trace.ReadGoTrace
		}
		im, err := read(bufio.NewReader(f), inputName(path), &trace.ImportOptions{MemoryLimit: e.maxMemory})
		if err != nil {
			return nil, err // a *trace.Error names the file, the line and the field
		}
		return im.Workload, nil
	}
	data, err := e.readLimited(path, workloadShare)
	path = inputName(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, errNoFile)
		}
		return nil, err
	}
	var w *workload.Workload
	if filepath.Ext(path) == ".json" || strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		w, err = workload.ParseJSON(data)
	} else {
		w, err = workload.Parse(string(data))
	}
	if err != nil {
		var we *workload.Error
		if errors.As(err, &we) && we.Pos.Line > 0 {
			return nil, fmt.Errorf("%s:%d:%d: %s", path, we.Pos.Line, we.Pos.Col, we.Msg)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return w, nil
}

// workloadName is the name reports give the workload at path: its base name without
// extension, and "stdin" for standard input.
func workloadName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
