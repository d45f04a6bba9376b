package report

// This file implements Page and Write: the HTML report.

import (
	"bytes"
	"errors"
	"html/template"
	"io"
	"strconv"
)

// A Page is one report.
type Page struct {
	// Title is the page's title and first heading.
	Title string
	// Context lines describe what ran: the command, the topology, the seeds.
	Context []string
	// Sections follow in order.
	Sections []Section
}

// A Section is a heading followed by text, tables and figures.
type Section struct {
	// Heading names the section; ID is its anchor, derived from Heading when empty.
	Heading, ID string
	// Text is a paragraph of explanation, or empty.
	Text string
	// Tables are preformatted text tables, shown as they are.
	Tables []string
	// Notes are lists of prose printed after the tables, wrapped to the page: each a heading
	// and its items.
	Notes []NoteList
	// Figures are the section's pictures.
	Figures []Figure
}

// A NoteList is a heading and its items, such as a scenario's notes.
type NoteList struct {
	Heading string
	Items   []string
}

// A Figure is one picture: an SVG document, its caption, and the name of the file it was also
// written to (linked from the page), if any.
type Figure struct {
	Caption string
	SVG     []byte
	File    string
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	// svg embeds a figure: trusted SVG that package plot produced.
	"svg": func(b []byte) template.HTML { return template.HTML(b) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 1200px; color: #111; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 13px; }
figure { margin: 1em 0; overflow-x: auto; }
figcaption { font-size: 13px; color: #444; }
.notes { font-size: 14px; overflow-wrap: anywhere; }
svg { max-width: 100%; height: auto; }
nav a { margin-right: 1em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Context}}<p class="context">{{.}}</p>
{{end}}<nav>{{range .Sections}}<a href="#{{.ID}}">{{.Heading}}</a>{{end}}</nav>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Heading}}</h2>
{{if .Text}}<p>{{.Text}}</p>
{{end}}{{range .Tables}}<pre>{{.}}</pre>
{{end}}{{range .Notes}}<div class="notes"><p>{{.Heading}}:</p><ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul></div>
{{end}}{{range .Figures}}<figure>
{{svg .SVG}}
<figcaption>{{.Caption}}{{if .File}} (<a href="{{.File}}">{{.File}}</a>){{end}}</figcaption>
</figure>
{{end}}</section>
{{end}}</body>
</html>
`))

// Write renders p as an HTML document to w. Section anchors default to "s1", "s2", … in order.
// It returns an error if p has no title, a figure is not an SVG document, or w fails.
func Write(w io.Writer, p Page) error {
	if p.Title == "" {
		return errors.New("report: Write: the page has no title")
	}
	for i := range p.Sections {
		s := &p.Sections[i]
		if s.ID == "" {
			s.ID = "s" + strconv.Itoa(i+1)
		}
		for _, f := range s.Figures {
			if !bytes.HasPrefix(bytes.TrimSpace(f.SVG), []byte("<svg")) {
				return errors.New("report: Write: figure " + `"` + f.Caption + `"` + " is not an SVG document")
			}
		}
	}
	return page.Execute(w, p)
}
