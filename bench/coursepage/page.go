// Package coursepage builds the course's interactive page and serves it: one self-contained
// HTML file in which the simulator and the real policies run as WebAssembly (GOOS=js
// GOARCH=wasm). examples/coursepage writes the page to a file (and takes its screenshot);
// schedbench serve serves it on localhost. The page's module, examples/coursepage/wasm, and
// its lesson catalogue, examples/coursepage/course, stay with the course: this package
// compiles the module by its import path and imports nothing of examples/.
//
// Build compiles examples/coursepage/wasm with the go command found on PATH, gzip-compresses
// the module and inlines it, base64-encoded, beside that toolchain's own wasm_exec.js; the
// browser decompresses it with DecompressionStream. Building therefore needs the Go toolchain
// and the schedkit module's source: run it inside the schedkit source tree (as
// `go run ./examples/coursepage` and `go run ./bench/cmd/schedbench serve` are).
package coursepage

// This file implements Build, the page, and Handler, its HTTP handler.

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed page.html
var pageTemplate string

// Title is the page's <title>, by which a client knows it has the course page.
const Title = "schedkit: scheduler internals, step by step"

// WasmPackage is the import path of the page's WebAssembly module.
const WasmPackage = "github.com/schedkit/schedkit/examples/coursepage/wasm"

// Build compiles the WebAssembly module and returns the page. Cancelling ctx stops the
// compilation.
func Build(ctx context.Context) ([]byte, error) {
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT (building the page needs the Go toolchain): %w", err)
	}
	execJS, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, fmt.Errorf("the Go toolchain's wasm_exec.js: %w", err)
	}
	dir, err := os.MkdirTemp("", "coursepage")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, "course.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, WasmPackage)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("building the WebAssembly module %s (run inside the schedkit source tree): %v\n%s", WasmPackage, err, out)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(mod)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if strings.Contains(string(execJS), "</script") {
		return nil, errors.New("wasm_exec.js contains </script and cannot be inlined")
	}
	page := strings.Replace(pageTemplate, "{{WASM_EXEC}}", string(execJS), 1)
	page = strings.Replace(page, "{{WASM_GZ_B64}}", base64.StdEncoding.EncodeToString(gz.Bytes()), 1)
	return []byte(page), nil
}

// Handler serves page, last modified at mod, at / and /index.html (GET and HEAD, with
// conditional and range requests as http.ServeContent handles them); any other path is 404
// and any other method 405.
func Handler(page []byte, mod time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && r.URL.Path != "/index.html" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, "index.html", mod, bytes.NewReader(page))
	})
}
