//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTraceOutputKinds writes traces to the kinds of file -o may name, made in the test's own
// directory (device nodes by mknod, never the machine's /dev): a character device with the
// numbers of /dev/null is written through and stays a device; a block device is refused before
// any work; a mode-600 file keeps its mode.
func TestTraceOutputKinds(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for mknod")
	}
	dir := t.TempDir()
	null, blk, file := filepath.Join(dir, "null"), filepath.Join(dir, "blk"), filepath.Join(dir, "secret.json")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v", err)
	}
	if err := syscall.Mknod(blk, syscall.S_IFBLK|0o600, 7<<8); err != nil {
		t.Skipf("mknod: %v", err)
	}
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	wl := "workloads/mixed.wl"
	if _, errs, code := runCLI(t, "trace", "-until", "50ms", "-o", null, wl); code != exitOK {
		t.Errorf("trace -o a null device: status %d, stderr %q", code, errs)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the null device was replaced: %v %v", fi, err)
	}
	_, errs, code := runCLI(t, "trace", "-until", "50ms", "-o", blk, wl)
	if code != exitUsage || !strings.Contains(errs, "a block device; refusing to write over it") {
		t.Errorf("trace -o a block device: status %d, stderr %q; want 2 and a refusal", code, errs)
	}
	if _, errs, code := runCLI(t, "trace", "-until", "50ms", "-o", file, wl); code != exitOK {
		t.Errorf("trace -o a file: status %d, stderr %q", code, errs)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 || fi.Size() < 100 {
		t.Errorf("the mode-600 file is now %v, %d bytes; want 0600 and the trace", fi.Mode(), fi.Size())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("the directory holds %d entries, want the 3 made here", len(ents))
	}
}
