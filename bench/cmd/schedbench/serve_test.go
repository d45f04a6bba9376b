package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/coursepage"
)

// syncBuffer is a bytes.Buffer safe for the command's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var servingRE = regexp.MustCompile(`serving the course page on (http://\S+/) \(\^C stops\)\n`)

// startServe runs schedbench serve with args in-process and returns the page's URL once it
// listens, the function that stops it (as ^C does: it cancels the context) and the channel
// that receives its status.
func startServe(t *testing.T, timeout time.Duration, args ...string) (url string, stop func(), status <-chan int, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var out syncBuffer
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- cli(&env{ctx: ctx, stdout: &out, stderr: stderr}, append([]string{"serve"}, args...)) }()
	deadline := time.Now().Add(timeout)
	for {
		if m := servingRE.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], cancel, done, stderr
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with status %d before listening; stderr %q", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen within %v; stderr %q", timeout, stderr.String())
		}
	}
}

func get(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// stopped cancels the command and checks that it exits 0 within a few seconds and no longer
// accepts connections.
func stopped(t *testing.T, url string, stop func(), status <-chan int, stderr *syncBuffer) {
	t.Helper()
	stop()
	select {
	case code := <-status:
		if code != exitOK {
			t.Errorf("status %d after ^C, want 0 (stderr %q)", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10 s of its context's cancellation")
	}
	if resp, err := http.Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("GET %s after the stop answered %s", url, resp.Status)
	}
}

// TestServe builds the real course page, serves it on a free port of 127.0.0.1, fetches it
// over HTTP and checks that it is the course page with its WebAssembly module inlined, then
// stops the server the way ^C does.
func TestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the page's WebAssembly module; skipped with -short")
	}
	url, stop, status, stderr := startServe(t, 5*time.Minute, "-addr", "127.0.0.1:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/") {
		t.Errorf("serving on %s, want 127.0.0.1 and the port the kernel chose", url)
	}
	resp, body := get(t, http.MethodGet, url)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET %s: %s, Content-Type %q; want 200 and HTML", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{"<title>" + coursepage.Title + "</title>", "DecompressionStream", `id="run"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page (%d bytes) lacks %q", len(body), want)
		}
	}
	if strings.Contains(body, "{{") || len(body) < 1<<20 {
		t.Errorf("the page (%d bytes) has a placeholder left or no inlined module", len(body))
	}
	stopped(t, url, stop, status, stderr)
}

// TestServePageFile serves a page from a file, as -page does, and checks the handler's
// answers: the page at / and /index.html, HEAD without a body, 404 elsewhere, 405 for POST.
func TestServePageFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "course.html")
	const html = "<!doctype html><title>" + coursepage.Title + "</title><p>a page\n"
	if err := os.WriteFile(file, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	url, stop, status, stderr := startServe(t, 10*time.Second, "-addr", "localhost:0", "-page", file)
	for _, path := range []string{"", "index.html"} {
		if resp, body := get(t, http.MethodGet, url+path); resp.StatusCode != http.StatusOK || body != html {
			t.Errorf("GET /%s: %s, %q; want 200 and the file", path, resp.Status, body)
		}
	}
	if resp, body := get(t, http.MethodHead, url); resp.StatusCode != http.StatusOK || body != "" || resp.ContentLength != int64(len(html)) {
		t.Errorf("HEAD /: %s, body %q, length %d; want 200, none, %d", resp.Status, body, resp.ContentLength, len(html))
	}
	if resp, _ := get(t, http.MethodGet, url+"favicon.ico"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /favicon.ico: %s, want 404", resp.Status)
	}
	if resp, _ := get(t, http.MethodPost, url); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %s, want 405", resp.Status)
	}
	if strings.Contains(stderr.String(), "note:") || strings.Contains(stderr.String(), "building") {
		t.Errorf("stderr %q: a page from a file on localhost needs neither a build nor a note", stderr.String())
	}
	stopped(t, url, stop, status, stderr)
}

// TestServeSIGINT stops a real schedbench serve process with SIGINT: it must exit 0.
func TestServeSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	file := filepath.Join(t.TempDir(), "course.html")
	if err := os.WriteFile(file, []byte("<title>"+coursepage.Title+"</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := subprocess(t, "serve", "-addr", "127.0.0.1:0", "-page", file)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(errPipe).ReadString('\n')
	m := servingRE.FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("first line of stderr %q (%v), want the URL", line, err)
	}
	if resp, body := get(t, http.MethodGet, m[1]); resp.StatusCode != http.StatusOK || !strings.Contains(body, coursepage.Title) {
		t.Errorf("GET %s: %s, %q", m[1], resp.Status, body)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitOK {
		t.Errorf("status %d after SIGINT, want 0", code)
	}
}

// TestServeBadInput checks serve's mistakes: one line on stderr, status 2, before it listens
// or builds; a port already taken is a failure (status 1).
func TestServeBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an argument", []string{"course.html"}, `serve takes no arguments, got ["course.html"]`},
		{"address without a port", []string{"-addr", "localhost"}, `-addr "localhost": want host:port`},
		{"missing page file", []string{"-page", "testdata/nosuch.html"}, "-page testdata/nosuch.html: no such file or directory"},
		{"unknown flag", []string{"-port", "80"}, "flag provided but not defined: -port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"serve"}, tc.args...)...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stdout %q, stderr %q; want %d, nothing and one line containing %q", code, stdout, stderr, exitUsage, tc.want)
			}
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, stderr, code := runCLI(t, "serve", "-addr", ln.Addr().String(), "-page", "testdata/rtapp.json")
	if code != exitFailure || !strings.Contains(stderr, "address already in use") {
		t.Errorf("serving on a taken port: status %d, stderr %q; want 1 and the bind error", code, stderr)
	}
}
