package report_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/bench/plot"
	"github.com/schedkit/schedkit/bench/report"
)

// A page with one table and one picture, as schedbench run -o writes it.
func ExampleWrite() {
	var svg bytes.Buffer
	_ = plot.Shares(&svg, []string{"hog.0", "hog.1"}, []string{"ule-main"}, [][]float64{{0.5}, {0.5}}, plot.SharesOptions{})
	page := report.Page{
		Title:   "two hogs",
		Context: []string{"schedbench run -policy ule hogs.wl"},
		Sections: []report.Section{
			{Heading: "Table", Tables: []string{"thread  ule-main\nhog.0      50.0%\nhog.1      50.0%\n"}},
			{Heading: "CPU shares", Figures: []report.Figure{{Caption: "CPU share by thread", SVG: svg.Bytes(), File: "shares.svg"}}},
		},
	}
	var b bytes.Buffer
	fmt.Println(report.Write(&b, page), strings.Count(b.String(), "<svg "), strings.Count(b.String(), "<section"))
	// Output: <nil> 1 2
}
