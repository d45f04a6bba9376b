// This file implements the measured calibration the seed 000 pipeline is built from.

package scenario

import (
	_ "embed"
	"encoding/json"
	"fmt"
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
	RecordBytes  int64  `json:"record_bytes"`
	GzipReadSize int64  `json:"gzip_read_bytes"`
	Records      int64  `json:"records"`
	TarNsPerRec  int64  `json:"tar_ns_per_record"`
	GzipNsPerRec int64  `json:"gzip_ns_per_record"`
	TarBlocks    int64  `json:"tar_voluntary"`
	GzipBlocks   int64  `json:"gzip_voluntary"`
	WallNs       int64  `json:"wall_ns"`
}

//go:embed data/pipeline-calibration.json
var pipelineCalibrationJSON []byte

// Pipeline returns the stored calibration of the seed 000 pipeline.
func Pipeline() PipelineCalibration {
	var c PipelineCalibration
	if err := json.Unmarshal(pipelineCalibrationJSON, &c); err != nil {
		panic(fmt.Sprintf("scenario: internal error: data/pipeline-calibration.json: %v", err))
	}
	return c
}
