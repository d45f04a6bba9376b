package outfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schedkit/schedkit/internal/outfile"
)

// Create examines the destination before the work; Commit puts the whole output in place.
func Example() {
	dir, _ := os.MkdirTemp("", "outfile")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "table.txt")
	o, err := outfile.Create(name)
	if err != nil {
		fmt.Println(err) // a block device, a socket, a missing directory: before any work
		return
	}
	defer o.Abort() // drops the output on any early return
	io.WriteString(o, "thread  share\n")
	if err := o.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(name)
	fmt.Print(string(b))
	// Output: thread  share
}

// Write is Create, fill and Commit.
func ExampleWrite() {
	err := outfile.Write(os.DevNull, func(w io.Writer) error { // a device is written through
		_, err := io.WriteString(w, "discarded")
		return err
	})
	fmt.Println(err)
	// Output: <nil>
}

// CheckDir refuses a directory that cannot be written into before any work.
func ExampleCheckDir() {
	dir, _ := os.MkdirTemp("", "outfile")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	fmt.Println(outfile.CheckDir(filepath.Join(dir, "new")))
	fmt.Println(outfile.CheckDir(file) != nil)
	// Output:
	// <nil>
	// true
}
