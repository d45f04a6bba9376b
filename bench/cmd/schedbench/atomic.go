package main

// This file implements atomic file writes: a temporary file in the same directory, renamed
// over the final name once complete, so that no reader ever sees a half-written file.

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// writeAtomic writes the file dir/name with fill: into a temporary file of dir first, renamed
// to name only once fill and the close succeeded. On any error the temporary file is removed
// and name is left as it was.
func writeAtomic(dir, name string, fill func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}
