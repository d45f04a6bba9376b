//go:build unix

package outfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// put writes s to name through Write.
func put(name, s string) error {
	return Write(name, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names returns the names in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// wantError checks that err is an *Error whose message contains want.
func wantError(t *testing.T, err error, want string) {
	t.Helper()
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("error %v (%T), want an *Error containing %q", err, err, want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want it to contain %q", err, want)
	}
}

func statT(t *testing.T, name string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t)
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (mknod, chown)")
	}
}

// mknod makes a device node in the test's own directory, never the machine's /dev.
func mknod(t *testing.T, name string, mode uint32, major, minor uint32) {
	t.Helper()
	needRoot(t)
	dev := int((major << 8) | (minor & 0xff) | ((minor &^ 0xff) << 12))
	if err := syscall.Mknod(name, mode|0o666, dev); err != nil {
		t.Skipf("mknod %s: %v (no CAP_MKNOD here)", name, err)
	}
}

func TestNewFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.txt")
	if err := put(name, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, name); got != "hello" {
		t.Errorf("content %q, want hello", got)
	}
	fi, _ := os.Stat(name)
	if fi.Mode() != 0o644 {
		t.Errorf("mode %v, want -rw-r--r--", fi.Mode())
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q, want only a.txt", got)
	}
}

// TestFailingFillKeepsOld checks that a fill that fails leaves the old file and no temporary.
func TestFailingFillKeepsOld(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.txt")
	if err := put(name, "old"); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(name, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("new", 100000))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Write with a failing fill = %v, want %v", err, boom)
	}
	if got := read(t, name); got != "old" {
		t.Errorf("a.txt = %.20q… after a failed write, want the old content", got)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q after a failed write, want only a.txt (no temporary left)", got)
	}
}

// TestRegularKeepsModeAndOwner replaces a mode-600 file owned by another user: the new file has
// the old one's mode and owner.
func TestRegularKeepsModeAndOwner(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "secret")
	if err := os.WriteFile(name, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(name, 0o600|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	if os.Geteuid() == 0 {
		uid, gid = 4321, 8765
		if err := os.Chown(name, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	before := statT(t, name)
	if err := put(name, "new"); err != nil {
		t.Fatal(err)
	}
	after := statT(t, name)
	if got := read(t, name); got != "new" {
		t.Errorf("content %q, want new", got)
	}
	if after.Mode != before.Mode {
		t.Errorf("mode %o, want %o (the old file's)", after.Mode, before.Mode)
	}
	if int(after.Uid) != uid || int(after.Gid) != gid {
		t.Errorf("owner %d:%d, want %d:%d (the old file's)", after.Uid, after.Gid, uid, gid)
	}
	if after.Ino == before.Ino {
		t.Errorf("the file was overwritten in place; want a rename of a whole new file")
	}
}

// TestHardLinkKept overwrites a file with a second hard link in place: both names show the new
// content, still one file.
func TestHardLinkKept(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("old content, longer than the new"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	if err := put(a, "new"); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "new" || read(t, b) != "new" {
		t.Errorf("a = %q, b = %q; want both new", read(t, a), read(t, b))
	}
	sa, sb := statT(t, a), statT(t, b)
	if sa.Ino != sb.Ino || sa.Nlink != 2 || sa.Mode&0o777 != 0o640 {
		t.Errorf("a is inode %d with %d links, mode %o; b inode %d: want one file with 2 links, mode 640", sa.Ino, sa.Nlink, sa.Mode&0o777, sb.Ino)
	}
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("directory holds %q, want a and b", got)
	}
}

// TestSymlinkFollowed writes through a symbolic link to a file of another directory: the link
// stays, the file it names gets the output, and the temporary file was in that file's directory.
func TestSymlinkFollowed(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "real.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := put(link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is gone or no longer a link: %v %v", fi, err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target %q, want new", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", fi.Mode())
	}
	// A link to a link to nothing is refused, and nothing is created.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(other, "missing"), dangling); err != nil {
		t.Fatal(err)
	}
	_, err := Create(dangling)
	wantError(t, err, "a symbolic link to nothing")
	if _, err := os.Stat(filepath.Join(other, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created")
	}
}

// TestCharDevice writes through character devices made in the test's own directory with the
// numbers of /dev/null (1:3) and /dev/full (1:7): each stays the device it was.
func TestCharDevice(t *testing.T) {
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	mknod(t, null, syscall.S_IFCHR, 1, 3)
	mknod(t, full, syscall.S_IFCHR, 1, 7)
	before := statT(t, null).Rdev
	if err := put(null, "to nowhere"); err != nil {
		t.Fatalf("write to a null device: %v", err)
	}
	err := put(full, "to a full disk")
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write to a full device = %v, want ENOSPC", err)
	}
	for _, n := range []string{null, full} {
		st := statT(t, n)
		if st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
			t.Errorf("%s is no longer a character device (mode %o)", n, st.Mode)
		}
	}
	if statT(t, null).Rdev != before {
		t.Errorf("the null device's numbers changed")
	}
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("directory holds %q, want only the two devices", got)
	}
}

// TestBlockDeviceRefused refuses a block device (made here, never opened) before any work.
func TestBlockDeviceRefused(t *testing.T) {
	dir := t.TempDir()
	blk := filepath.Join(dir, "loop")
	mknod(t, blk, syscall.S_IFBLK, 7, 0)
	_, err := Create(blk)
	wantError(t, err, "a block device; refusing to write over it")
	if st := statT(t, blk); st.Mode&syscall.S_IFMT != syscall.S_IFBLK {
		t.Errorf("the block device changed (mode %o)", st.Mode)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q, want only the device", got)
	}
}

// TestFIFO refuses a FIFO no process reads (without blocking), and writes through one that has
// a reader.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Create(fifo); done <- err }()
	select {
	case err := <-done:
		wantError(t, err, "a FIFO that no process has open for reading")
	case <-time.After(10 * time.Second):
		t.Fatal("Create of a FIFO without a reader blocked")
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	o, err := Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	want := strings.Repeat("through the FIFO ", 20000) // more than a pipe holds
	if _, err := io.WriteString(o, want); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != want {
		t.Errorf("the reader got %d bytes, want %d", len(s), len(want))
	}
	if st := statT(t, fifo); st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		t.Errorf("the FIFO changed (mode %o)", st.Mode)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Create(sock)
	wantError(t, err, "a socket; refusing to write over it")
	_, err = Create(dir)
	wantError(t, err, "is a directory; give a file name")
	_, err = Create(filepath.Join(dir, "no", "x"))
	wantError(t, err, "no directory")
	_, err = Create(filepath.Join(file, "x"))
	wantError(t, err, "")
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("directory holds %q, want only sock and file", got)
	}
}

// TestCommitAfterReplace: a destination created or replaced by another program while the
// output was being written is left alone.
func TestCommitAfterReplace(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a")
	o, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "ours")
	if err := os.Symlink("/nonexistent", name); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err == nil || !strings.Contains(err.Error(), "created by another program") {
		t.Errorf("Commit = %v, want an error saying another program created it", err)
	}
	if fi, _ := os.Lstat(name); fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the other program's link was replaced")
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q, want only a", got)
	}
}

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("true: %v", err)
	}
	return cmd.Process.Pid
}

// TestSweep: the temporary files of a process that no longer runs are removed by the next
// Create or CheckDir in their directory; those of a running process, and other files, stay.
func TestSweep(t *testing.T) {
	for _, op := range []string{"Create", "CheckDir"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			dead := ".a.txt" + tempMarker + strconv.Itoa(deadPID(t)) + "-123.tmp"
			live := ".b.txt" + tempMarker + "1-456.tmp" // PID 1 always runs
			other := ".c.txt.schedbench-x-1.tmp"
			for _, n := range []string{dead, live, other} {
				if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			if op == "Create" {
				err = put(filepath.Join(dir, "a.txt"), "x")
			} else {
				err = CheckDir(filepath.Join(dir, "sub"))
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names(t, dir) {
				if n == dead {
					t.Errorf("%s left: its process no longer runs", n)
				}
			}
			for _, n := range []string{live, other} {
				if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
					t.Errorf("%s removed: %v", n, err)
				}
			}
		})
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	o, err := Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "half")
	if got := names(t, dir); len(got) != 1 {
		t.Fatalf("directory holds %q, want the temporary file", got)
	}
	RemoveTemps()
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %q after RemoveTemps, want nothing", got)
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{dir, filepath.Join(dir, "new"), filepath.Join(dir, "new", "deeper")} {
		if err := CheckDir(ok); err != nil {
			t.Errorf("CheckDir(%s) = %v", ok, err)
		}
	}
	wantError(t, CheckDir(file), "exists and is not a directory")
	wantError(t, CheckDir(filepath.Join(file, "x")), "is not a directory")
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %q, want only file: CheckDir creates nothing", got)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		wantError(t, CheckDir(filepath.Join(ro, "out")), "cannot create files in")
	}
}

// TestLongName: a destination name of 255 bytes still gets a temporary file.
func TestLongName(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, strings.Repeat("n", 255))
	if err := put(name, "x"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, name); got != "x" {
		t.Errorf("content %q", got)
	}
}
