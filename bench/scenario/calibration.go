// This file implements the measured calibration the seed 000 pipeline is built from.

package scenario

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// PipelineCalibration is what `go run ./bench/scenario/calibrate` measured of the real
// `tar cf - DIR | gzip -c >/dev/null` on the machine it ran on (data/pipeline-calibration.json,
// with the raw counters of every run and the method): the record tar writes, the CPU time each
// program spends per record, and how often each blocked.
type PipelineCalibration struct {
	Method       string `json:"method"`
	Command      string `json:"command"`
	Kernel       string `json:"kernel"`
	CPU          string `json:"cpu"`
	TarVersion   string `json:"tar_version"`
	GzipVersion  string `json:"gzip_version"`
	RecordBytes  int64  `json:"record_bytes"`    // tar's write size (wchar/syscw of the median run)
	GzipReadSize int64  `json:"gzip_read_bytes"` // gzip's mean read size
	Records      int64  `json:"records"`         // tar output / record size
	TarNsPerRec  int64  `json:"tar_ns_per_record"`
	GzipNsPerRec int64  `json:"gzip_ns_per_record"`
	TarBlocks    int64  `json:"tar_voluntary"`  // median voluntary switches of tar
	GzipBlocks   int64  `json:"gzip_voluntary"` // median voluntary switches of gzip
	WallNs       int64  `json:"wall_ns"`        // median wall time
}

// Pipeline returns the stored calibration of the seed 000 pipeline.
func Pipeline() PipelineCalibration {
	return mustDecode[PipelineCalibration]("data/pipeline-calibration.json")
}

// CompileCalibration is what `go run ./bench/scenario/calibrate -what compile` measured of real
// compile jobs (gcc -O2 -c of the Go tree's runtime/cgo C files) on the machine it ran on
// (data/compile-calibration.json, with every job and the method): the mean CPU time of a job,
// how often a compiler goes off CPU per second of CPU time, and for how long each time.
type CompileCalibration struct {
	Method    string `json:"method"`
	Dir       string `json:"dir"`
	GCC       string `json:"gcc"`
	Kernel    string `json:"kernel"`
	CPU       string `json:"cpu"`
	MeanCPUNs int64  `json:"mean_cpu_ns"`
	// BlocksPerCPUSecond is the voluntary switches per second of CPU time over all jobs: how
	// often a compiler goes off CPU (reading sources and headers, writing the object).
	BlocksPerCPUSecond float64 `json:"blocks_per_cpu_second"`
	// OffCPUNsPerBlock is (wall − CPU) per voluntary switch: how long a compiler stays off CPU
	// each time, an upper bound on a machine with other load (it includes run-queue waits).
	OffCPUNsPerBlock int64 `json:"off_cpu_ns_per_block"`
}

// Compile returns the stored calibration of a compile job.
func Compile() CompileCalibration {
	return mustDecode[CompileCalibration]("data/compile-calibration.json")
}

// ChainCalibration is what `go run ./bench/scenario/calibrate -what chain` measured of the
// processes around one kernel object on the machine it ran on (data/chain-calibration.json,
// with every run and the method): the compiler proper alone (gcc's cc1, as FreeBSD's clang
// runs cc1 in its own process), a job shell's own CPU, a small program's start and exit (the
// stand-in for ctfconvert) and make's own CPU per target, the CPU times as fractions of a
// whole compile measured beside them.
type ChainCalibration struct {
	Method string `json:"method"`
	Dir    string `json:"dir"`
	GCC    string `json:"gcc"`
	Shell  string `json:"shell"`
	Make   string `json:"make"`
	Kernel string `json:"kernel"`
	// CC1BlocksPerCPUSecond is cc1's voluntary switches per second of its CPU;
	// CC1OffCPUNsPerBlock its time off CPU (wall − CPU − run-queue wait) per voluntary switch.
	CC1BlocksPerCPUSecond float64 `json:"cc1_blocks_per_cpu_second"`
	CC1OffCPUNsPerBlock   int64   `json:"cc1_off_cpu_ns_per_block"`
	// ShellPerCompile, TruePerCompile and MakePerCompile are a job shell's own CPU, a small
	// program's (true) and make's own per target, over a whole compile's CPU measured side by
	// side, so that the machine's speed and load at the time cancel.
	ShellPerCompile float64 `json:"shell_per_compile"`
	TruePerCompile  float64 `json:"true_per_compile"`
	MakePerCompile  float64 `json:"make_per_compile"`
}

// Chain returns the stored calibration of the processes around a kernel object.
func Chain() ChainCalibration {
	return mustDecode[ChainCalibration]("data/chain-calibration.json")
}

// TarLayoutCalibration is what `go run ./bench/scenario/calibrate -what tar-layout` measured
// of bsdtar, the seed's tar (FreeBSD's tar is libarchive's bsdtar), on the machine it ran on
// (data/tar-layout.json, with the method and the timed trees): how many members' headers
// start in each 10240-byte record of its archive of the Go tree's src, and its CPU time per
// member and per record.
type TarLayoutCalibration struct {
	Method      string `json:"method"`
	Dir         string `json:"dir"`
	Bsdtar      string `json:"bsdtar"`
	Kernel      string `json:"kernel"`
	CPU         string `json:"cpu"`
	RecordBytes int    `json:"record_bytes"`
	Records     int    `json:"records"`
	Members     int    `json:"members"`
	// RLE is, record by record in the order bsdtar writes them, how many members' headers
	// (files, directories, links) start in the record, run-length coded: comma-separated
	// counts, "k*n" for n records of k members in a row.
	RLE string `json:"members_per_record"`
	// NsPerMember and NsPerRecord solve CPU = NsPerRecord·records + NsPerMember·members for
	// the two timed trees: what bsdtar spends on a member (finding, opening, reading its
	// metadata) and on a record of data (reading, copying, writing).
	NsPerMember int64 `json:"ns_per_member"`
	NsPerRecord int64 `json:"ns_per_record"`
	// PerRecord is RLE decoded: the members whose header starts in each record, in order.
	PerRecord []int `json:"-"`
}

// TarLayout returns the stored calibration of bsdtar's records.
func TarLayout() TarLayoutCalibration {
	c := mustDecode[TarLayoutCalibration]("data/tar-layout.json")
	per, err := decodeRLE(c.RLE)
	if err != nil || len(per) != c.Records {
		panic(fmt.Sprintf("scenario: internal error: data/tar-layout.json: members_per_record: %v (%d records, want %d)", err, len(per), c.Records))
	}
	c.PerRecord = per
	return c
}

// calibrations holds the stored calibrations, each read by its function above or by
// [Seed004].
//
//go:embed data/pipeline-calibration.json data/compile-calibration.json data/chain-calibration.json
//go:embed data/tar-layout.json data/seed004-calibration.json
var calibrations embed.FS

// mustDecode returns the embedded file name decoded from JSON as a T, and panics if it is not
// there or does not decode: the files are part of the package, so a bad one is the package's bug.
func mustDecode[T any](name string) T {
	var c T
	data, err := calibrations.ReadFile(name)
	if err == nil {
		err = json.Unmarshal(data, &c)
	}
	if err != nil {
		panic(fmt.Sprintf("scenario: internal error: %s: %v", name, err))
	}
	return c
}

// decodeRLE decodes "k,k*n,…".
func decodeRLE(s string) ([]int, error) {
	var out []int
	for i, f := range strings.Split(s, ",") {
		k, n, rep := strings.Cut(f, "*")
		kv, err := strconv.Atoi(k)
		if err != nil || kv < 0 {
			return nil, fmt.Errorf("item %d %q: not a count", i+1, f)
		}
		nv := 1
		if rep {
			if nv, err = strconv.Atoi(n); err != nil || nv < 1 {
				return nil, fmt.Errorf("item %d %q: not a repeat", i+1, f)
			}
		}
		for range nv {
			out = append(out, kv)
		}
	}
	return out, nil
}
