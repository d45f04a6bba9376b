package outfile

// This file implements File, Create, Write and CheckDir, and the temporary files behind them.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
)

// A File is an output file being written: a temporary file until Commit, or the destination
// itself when it is written through (a device, a FIFO). Write, then Commit; Abort (a no-op
// after Commit) drops the output. A File is not safe for concurrent use.
type File struct {
	name   string      // the destination as given, for messages
	target string      // the destination with symbolic links resolved
	kind   kind        // what target was at Create
	old    fs.FileInfo // the regular file target was, or nil
	f      *os.File    // the temporary file, or target opened for writing
	bw     *bufio.Writer
	done   bool
}

// A kind is what a destination is, and so how it is written.
type kind uint8

const (
	kindNew     kind = iota // nothing there yet: rename into place
	kindRegular             // a regular file: rename over it, keeping its mode and owner
	kindInPlace             // a regular file overwritten in place (hard links, owner)
	kindThrough             // a character device or a FIFO, written through
)

// An Error is a destination that cannot be written: refused by kind, missing its directory, or
// in a directory where no file can be created. Create and CheckDir return one before any work,
// so that a command can report it as a mistake in its command line.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// Create prepares the output file name, as the package documentation describes: it resolves
// symbolic links, refuses what must not be written over, and opens the temporary file in the
// destination's directory (or the destination itself, for a device or a FIFO), so that a
// destination that cannot be written is an error (an *Error) before the work starts.
func Create(name string) (*File, error) {
	o := &File{name: name, target: name}
	fi, err := os.Lstat(name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, rerr := filepath.EvalSymlinks(name)
		if rerr != nil {
			return nil, errorf("%s: a symbolic link to nothing (%v)", name, unwrap(rerr))
		}
		o.target = t
		fi, err = os.Lstat(t)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		o.kind = kindNew
	case err != nil:
		return nil, errorf("%s: %v", name, unwrap(err))
	case fi.IsDir():
		return nil, errorf("%s is a directory; give a file name", name)
	case fi.Mode().IsRegular():
		o.kind, o.old = kindRegular, fi
		if links(fi) > 1 {
			o.kind = kindInPlace
		}
	case fi.Mode()&fs.ModeCharDevice != 0, fi.Mode()&fs.ModeNamedPipe != 0:
		o.kind = kindThrough
	case fi.Mode()&fs.ModeDevice != 0:
		return nil, errorf("%s: a block device; refusing to write over it", name)
	case fi.Mode()&fs.ModeSocket != 0:
		return nil, errorf("%s: a socket; refusing to write over it", name)
	default:
		return nil, errorf("%s: not a regular file (%v); refusing to write over it", name, fi.Mode().Type())
	}
	if o.kind == kindThrough {
		f, err := openThrough(o.target, fi)
		if err != nil {
			return nil, errorf("%s: %v", name, err)
		}
		o.f, o.bw = f, bufio.NewWriterSize(f, 1<<16)
		return o, nil
	}
	dir := filepath.Dir(o.target)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return nil, errorf("%s: no directory %s", name, dir)
	}
	sweepTemps(dir)
	f, err := createTemp(dir, filepath.Base(o.target))
	if err != nil {
		return nil, errorf("%s: cannot create a file in %s: %v", name, dir, unwrap(err))
	}
	o.f, o.bw = f, bufio.NewWriterSize(f, 1<<16)
	return o, nil
}

// unwrap returns the error a *fs.PathError or *os.LinkError wraps, without its path (which the
// message gives in its own words), or err itself.
func unwrap(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// Name returns the destination's name as Create was given it.
func (o *File) Name() string { return o.name }

// Write writes p to the output.
func (o *File) Write(p []byte) (int, error) { return o.bw.Write(p) }

// Commit completes the output: it flushes what was written and puts the temporary file in
// place (see the package documentation), or closes the destination written through. On error
// the temporary file is removed and the destination is left as it was (a device or a FIFO may
// have received part of the output). Commit panics if called twice or after Abort.
func (o *File) Commit() (err error) {
	if o.done {
		panic("outfile: Commit of a File already committed or aborted")
	}
	defer func() {
		if err != nil {
			o.Abort()
		}
	}()
	if err := o.bw.Flush(); err != nil {
		return err
	}
	if o.kind == kindThrough {
		o.done = true
		return o.f.Close()
	}
	// The destination must still be what it was at Create: a file that turned into a device
	// or a link meanwhile is not renamed over.
	fi, err := os.Lstat(o.target)
	switch {
	case o.kind == kindNew && err == nil:
		return fmt.Errorf("%s: created by another program while this one ran; left as it is", o.name)
	case o.kind == kindNew && !errors.Is(err, fs.ErrNotExist):
		return err
	case o.kind != kindNew && err != nil:
		return fmt.Errorf("%s: %v while this program ran", o.name, unwrap(err))
	case o.kind != kindNew && (!fi.Mode().IsRegular() || !os.SameFile(fi, o.old)):
		return fmt.Errorf("%s: replaced by another program while this one ran; left as it is", o.name)
	}
	if o.kind == kindRegular && links(fi) > 1 {
		o.kind = kindInPlace
	}
	if o.kind == kindRegular && !chownLike(o.f, fi) {
		o.kind = kindInPlace // this process cannot give the new file the old one's owner
	}
	if o.kind == kindInPlace {
		return o.copyInPlace()
	}
	mode := fs.FileMode(0o644)
	if o.old != nil {
		mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if err := o.f.Chmod(mode); err != nil {
		return err
	}
	if err := o.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(o.f.Name(), o.target); err != nil {
		return err
	}
	o.done = true
	temps.forget(o.f.Name())
	return nil
}

// copyInPlace overwrites the regular file target with the complete temporary file.
func (o *File) copyInPlace() error {
	if _, err := o.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dst, err := os.OpenFile(o.target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, o.f); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	o.Abort() // the temporary file has served
	return nil
}

// Abort drops the output: it removes the temporary file, or closes the destination written
// through. It does nothing after Commit or a first Abort.
func (o *File) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.f.Close()
	if o.kind != kindThrough {
		os.Remove(o.f.Name())
		temps.forget(o.f.Name())
	}
}

// Write writes the output file name with fill: Create, fill, Commit. The output is dropped if
// fill fails.
func Write(name string, fill func(w io.Writer) error) error {
	o, err := Create(name)
	if err != nil {
		return err
	}
	if err := fill(o); err != nil {
		o.Abort()
		return err
	}
	return o.Commit()
}

// CheckDir checks, before the work starts, that files can be written into the directory dir:
// that it is a directory, or does not exist yet and its nearest existing ancestor is one, and
// that a file can be created in it (or in that ancestor). It creates nothing that stays. Its
// error is an *Error.
func CheckDir(dir string) error {
	d := dir
	for {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				if d == dir {
					return errorf("%s: exists and is not a directory", dir)
				}
				return errorf("%s: %s is not a directory", dir, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return errorf("%s: %v", dir, unwrap(err))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return errorf("%s: no directory to create it in", dir)
		}
		d = parent
	}
	sweepTemps(d)
	f, err := createTemp(d, "")
	if err != nil {
		return errorf("%s: cannot create files in %s: %v", dir, d, unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	temps.forget(f.Name())
	return nil
}

// tempMarker is in the name of every temporary file, followed by the PID and CreateTemp's
// random digits.
const tempMarker = ".schedbench-"

// maxTempBase bounds the part of a temporary file's name taken from the destination's, so that
// the name stays within the 255 bytes of a file name.
const maxTempBase = 128

// temps are the temporary files this process has created and not yet renamed or removed.
var temps tempSet

type tempSet struct {
	mu    sync.Mutex
	names map[string]bool
}

func (s *tempSet) add(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
}

func (s *tempSet) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.names, name)
}

// RemoveTemps removes every temporary file of this process's outputs still in flight. A
// command calls it when a signal ends it before it could Commit or Abort them; the Files are
// unusable afterwards.
func RemoveTemps() {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	for name := range temps.names {
		os.Remove(name)
	}
	temps.names = nil
}

// createTemp creates and records a temporary file in dir for the destination named base:
// .BASE.schedbench-PID-RANDOM.tmp.
func createTemp(dir, base string) (*os.File, error) {
	if len(base) > maxTempBase {
		base = base[:maxTempBase]
	}
	f, err := os.CreateTemp(dir, "."+base+tempMarker+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err == nil {
		temps.add(f.Name())
	}
	return f, err
}

var tempName = regexp.MustCompile(`^\..*\.schedbench-([0-9]+)-[0-9]+\.tmp$`)

// sweepTemps removes the temporary files of dir that processes no longer running left behind
// (a command killed with SIGKILL cannot remove its own), and only those: regular files named as
// createTemp names them whose PID does not exist.
func sweepTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		m := tempName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || processExists(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
