package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	p := Page{
		Title:   "run <1>",
		Context: []string{"a & b"},
		Sections: []Section{
			{Heading: "Table", Tables: []string{"x  <y>\n"}},
			{Heading: "Pictures", ID: "pics", Text: "t", Figures: []Figure{{Caption: "c", SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect class="bar"/></svg>`), File: "f.svg"}}},
		},
	}
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		"<title>run &lt;1&gt;</title>", `<p class="context">a &amp; b</p>`, "<pre>x  &lt;y&gt;\n</pre>",
		`<section id="s1">`, `<section id="pics">`, `<a href="#pics">Pictures</a>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><rect class="bar"/></svg>`, `<a href="f.svg">f.svg</a>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "<script") {
		t.Error("the page has a script")
	}
}

func TestWriteErrors(t *testing.T) {
	if err := Write(&bytes.Buffer{}, Page{}); err == nil || !strings.HasPrefix(err.Error(), "report: ") {
		t.Errorf("Write of a page without a title = %v, want a report: error", err)
	}
	p := Page{Title: "x", Sections: []Section{{Heading: "h", Figures: []Figure{{Caption: "bad", SVG: []byte("<script>alert(1)</script>")}}}}}
	if err := Write(&bytes.Buffer{}, p); err == nil || !strings.Contains(err.Error(), `figure "bad" is not an SVG document`) {
		t.Errorf("Write of a figure that is not SVG = %v, want an error naming it", err)
	}
}
