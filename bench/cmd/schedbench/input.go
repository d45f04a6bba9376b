package main

// This file implements the files a command line names, "-" being standard input wherever a
// command reads a file, as ministat, benchstat and most Unix tools have it.

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// stdinName is the name "-" stands for in messages and reports, as ministat names it.
const stdinName = "<stdin>"

// errStdinTwice refuses a second "-": standard input can be read once.
var errStdinTwice = errors.New("standard input is named twice (\"-\"); it can be read once")

// readInput returns the contents of the file name, or of standard input for "-".
func (e *env) readInput(name string) ([]byte, error) {
	if name != "-" {
		return os.ReadFile(name)
	}
	r, err := e.openInput(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// openInput opens the file name, or standard input for "-" (which closing leaves open).
func (e *env) openInput(name string) (io.ReadCloser, error) {
	if name != "-" {
		return os.Open(name)
	}
	if e.stdinRead {
		return nil, errStdinTwice
	}
	e.stdinRead = true
	if e.stdin == nil {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	return io.NopCloser(e.stdin), nil
}

// inputName is how reports and messages name the file name: "<stdin>" for "-".
func inputName(name string) string {
	if name == "-" {
		return stdinName
	}
	return name
}
