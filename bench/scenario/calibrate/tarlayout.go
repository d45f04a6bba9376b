package main

// This file implements -what tar-layout: how bsdtar, the seed's tar, lays a tree out in
// 10240-byte records, and what its work costs per record and per member.

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/schedkit/schedkit/bench/scenario"
)

// recordBytes is bsdtar's write size: DEFAULT_BYTES_PER_BLOCK, 20 blocks of 512 bytes
// (libarchive's tar/bsdtar.h), which archive_write hands to write(2) whole.
const recordBytes = 10240

// TarLayout is the JSON of -what tar-layout: the summary scenario.TarLayout reads, and the
// trees timed for it.
type TarLayout struct {
	scenario.TarLayoutCalibration
	// Trees are the archives timed: DIR and a tree of small files, each bsdtar's CPU time
	// (user + system, the median of the runs) with its records and members.
	Trees []TarTree `json:"trees"`
}

// A TarTree is one timed archive.
type TarTree struct {
	Name    string  `json:"name"`
	Records int     `json:"records"`
	Members int     `json:"members"`
	CPUNs   []int64 `json:"cpu_ns"`
	Median  int64   `json:"median_cpu_ns"`
}

func calibrateTarLayout(w io.Writer, dir string, runs int) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: need at least 1", runs)
	}
	if _, err := exec.LookPath("bsdtar"); err != nil {
		return fmt.Errorf("bsdtar is not installed (Debian: apt-get install libarchive-tools)")
	}
	small, err := os.MkdirTemp("", "schedkit-tarlayout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(small)
	if err := smallTree(filepath.Join(small, "small")); err != nil {
		return err
	}
	c := TarLayout{TarLayoutCalibration: scenario.TarLayoutCalibration{
		Method: "bsdtar cf - -C PARENT DIR > pipe, parsed with Go's archive/tar: a member is counted in the 10240-byte " +
			"record its header starts in; bsdtar's CPU time (rusage of the reaped child, user + system) for DIR and for a " +
			"tree of 10000 files of 200 bytes in 100 directories, one warm-up run then the median of the runs, " +
			"solved for a cost per record and a cost per member",
		Dir: filepath.Base(dir), Bsdtar: firstLine("bsdtar", "--version"), Kernel: firstLine("uname", "-sr"),
		CPU: cpuModel(), RecordBytes: recordBytes,
	}}
	perRecord, err := layout(dir)
	if err != nil {
		return err
	}
	c.Records = len(perRecord)
	c.RLE, c.Members = runLengths(perRecord)
	for _, tree := range []string{dir, filepath.Join(small, "small")} {
		t, err := timeTree(tree, runs)
		if err != nil {
			return err
		}
		c.Trees = append(c.Trees, t)
	}
	a, b := c.Trees[0], c.Trees[1]
	det := float64(b.Members)*float64(a.Records) - float64(a.Members)*float64(b.Records)
	if det == 0 {
		return errors.New("the two trees have proportional records and members: no fit")
	}
	perMember := (float64(b.Median)*float64(a.Records) - float64(a.Median)*float64(b.Records)) / det
	perRec := (float64(a.Median) - perMember*float64(a.Members)) / float64(a.Records)
	if perMember <= 0 || perRec <= 0 {
		return fmt.Errorf("the fit gives %.0f ns per member and %.0f ns per record: not both positive (a loaded machine?)", perMember, perRec)
	}
	c.NsPerMember, c.NsPerRecord = int64(perMember), int64(perRec)
	return writeJSON(w, c)
}

// runLengths writes the members per record as runs ("3,1*40,2": three, then forty ones, then
// two) and returns it with the members' total.
func runLengths(perRecord []int) (string, int) {
	var rle []string
	members := 0
	for i := 0; i < len(perRecord); {
		j := i
		for j < len(perRecord) && perRecord[j] == perRecord[i] {
			members += perRecord[j]
			j++
		}
		if j-i == 1 {
			rle = append(rle, fmt.Sprint(perRecord[i]))
		} else {
			rle = append(rle, fmt.Sprintf("%d*%d", perRecord[i], j-i))
		}
		i = j
	}
	return strings.Join(rle, ","), members
}

// timeTree returns tree's records and members and bsdtar's CPU time on it: one warm-up run,
// then runs runs and their median.
func timeTree(tree string, runs int) (TarTree, error) {
	pr, err := layout(tree)
	if err != nil {
		return TarTree{}, err
	}
	t := TarTree{Name: filepath.Base(tree), Records: len(pr)}
	for _, k := range pr {
		t.Members += k
	}
	for i := 0; i <= runs; i++ {
		ns, err := bsdtarCPU(tree)
		if err != nil {
			return TarTree{}, err
		}
		if i > 0 {
			t.CPUNs = append(t.CPUNs, ns)
		}
	}
	t.Median = medianOf(t.CPUNs, func(ns int64) int64 { return ns })
	return t, nil
}

// smallTree writes 100 directories of 100 files of 200 bytes of C-like text: a tree whose
// records are mostly members' headers, as a source tree's directories of small files are.
func smallTree(root string) error {
	line := "int x; /* schedkit */\n"
	body := strings.Repeat(line, 200/len(line)+1)[:200]
	for d := range 100 {
		p := filepath.Join(root, fmt.Sprintf("d%02d", d))
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("f%02d.c", f)), []byte(body), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// layout runs bsdtar over dir and returns, for each record of its output, the members whose
// header starts in it. archive/tar reads a header as whole 512-byte blocks (after any pax
// extended header it consumes first), so the byte count when Next returns is the end of the
// member's own header.
func layout(dir string) ([]int, error) {
	cmd := exec.Command("bsdtar", "cf", "-", "-C", filepath.Dir(dir), filepath.Base(dir))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cr := &countingReader{r: bufio.NewReaderSize(out, 1<<16)}
	tr := tar.NewReader(cr)
	var perRecord []int
	for {
		_, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			cmd.Wait()
			return nil, fmt.Errorf("reading bsdtar's archive of %s: %w", dir, err)
		}
		rec := int((cr.n - 512) / recordBytes)
		for len(perRecord) <= rec {
			perRecord = append(perRecord, 0)
		}
		perRecord[rec]++
	}
	// The rest: the end-of-archive blocks and the padding to a whole record.
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return nil, err
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("bsdtar: %w", err)
	}
	for int64(len(perRecord))*recordBytes < cr.n {
		perRecord = append(perRecord, 0)
	}
	return perRecord, nil
}

// bsdtarCPU runs bsdtar over dir into /dev/null and returns its CPU time.
func bsdtarCPU(dir string) (int64, error) {
	cmd := exec.Command("bsdtar", "cf", "-", "-C", filepath.Dir(dir), filepath.Base(dir))
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	defer null.Close()
	// Through a pipe, as in the seed (a file or /dev/null as output changes libarchive's
	// padding and nothing else, but a pipe is what was measured there).
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	cmd.Stdout, cmd.Stderr = pw, os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pw.Close()
	done := make(chan error, 1)
	go func() { _, err := io.Copy(null, pr); done <- err }()
	cerr := <-done
	werr := cmd.Wait()
	pr.Close()
	if cerr != nil {
		return 0, cerr
	}
	if werr != nil {
		return 0, fmt.Errorf("bsdtar: %w", werr)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no rusage")
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), nil
}
