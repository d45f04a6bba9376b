// Command coursepage builds the course's interactive page: one self-contained HTML file in
// which the simulator and the real policies run as WebAssembly (GOOS=js GOARCH=wasm), so that a
// student picks a lesson's workload, a policy and a topology, runs it, and steps through the
// policy's decisions on a per-CPU Gantt chart, each with the policy's own explanation. The file
// needs no server: open it in a browser.
//
// Run it with
//
//	go run ./examples/coursepage -o course.html          # write the page
//	go run ./examples/coursepage -serve localhost:8080   # or serve it on localhost
//	go run ./examples/coursepage -screenshot docs/course.png   # the README's picture (needs chromium)
//	go run ./examples/coursepage -screenshot runq.png -demo runqtour   # the run-queue tour's
//
// The page is built by package bench/coursepage, which compiles
// examples/coursepage/wasm with the Go toolchain on PATH, gzip-compresses the module and
// inlines it, base64-encoded, beside the toolchain's own wasm_exec.js; the browser
// decompresses it with DecompressionStream. schedbench serve serves the same page.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/schedkit/schedkit/bench/coursepage"
	"github.com/schedkit/schedkit/internal/outfile"
)

func main() {
	out := flag.String("o", "course.html", "write the page to `file`")
	serve := flag.String("serve", "", "serve the page on `addr` (such as localhost:8080) instead of writing it")
	shot := flag.String("screenshot", "", "also write a PNG screenshot of the page after a demo run to `file` (needs chromium)")
	demo := flag.String("demo", "pickshort", "the `lesson` the screenshot's demo runs")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: coursepage [-o file] [-serve addr] [-screenshot file [-demo lesson]]")
		os.Exit(2)
	}
	// The output is examined before the page is built: a destination that cannot be written
	// (a missing directory, a block device) is refused first. See internal/outfile.
	var o *outfile.File
	if *serve == "" {
		var err error
		if o, err = outfile.Create(*out); err != nil {
			fmt.Fprintln(os.Stderr, "coursepage: -o", err)
			os.Exit(2)
		}
	}
	data, err := coursepage.Build(context.Background())
	if err != nil {
		if o != nil {
			o.Abort()
		}
		fmt.Fprintln(os.Stderr, "coursepage:", err)
		os.Exit(1)
	}
	if *serve != "" {
		fmt.Fprintf(os.Stderr, "serving the course page on http://%s/\n", *serve)
		err := http.ListenAndServe(*serve, coursepage.Handler(data, time.Now()))
		fmt.Fprintln(os.Stderr, "coursepage:", err)
		os.Exit(1)
	}
	if _, err := o.Write(data); err != nil {
		o.Abort()
		fmt.Fprintln(os.Stderr, "coursepage:", err)
		os.Exit(1)
	}
	if err := o.Commit(); err != nil {
		fmt.Fprintln(os.Stderr, "coursepage:", err)
		os.Exit(1)
	}
	if *shot != "" {
		if err := Screenshot(*out, *shot, *demo); err != nil {
			fmt.Fprintln(os.Stderr, "coursepage:", err)
			os.Exit(1)
		}
	}
}

// Screenshot renders page (a file) with headless chromium after its demo run of lesson (the
// fragment #demo=LESSON runs that lesson's first policy and steps through six decisions; the
// run-queue tour shows its seventh step) and writes a PNG to png.
func Screenshot(page, png, lesson string) error {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		return fmt.Errorf("chromium is not installed (Debian: apt-get install chromium): %w", err)
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	absPNG, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--window-size=1280,860", "--virtual-time-budget=20000", "--screenshot="+absPNG, "file://"+abs+"#demo="+lesson)
	done := make(chan error, 1)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("chromium: %v\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		return errors.New("chromium did not finish within 2 minutes")
	}
	return nil
}
