// Package report writes an HTML page that bundles the tables and pictures of a run, a sweep or
// the seed scenarios: one self-contained index.html with the tables as preformatted text and
// the SVG pictures of package plot inline, so that the page opens from a file in any browser,
// needs no network and no JavaScript, and can be mailed or archived as one file.
//
// A [Page] is plain data: a title, a few lines of context (what ran, on what, with which
// seeds), and [Section]s, each with a heading, optional text, tables and figures. [Write]
// renders it with html/template, which escapes every text; figures are trusted SVG documents
// produced by package plot and are embedded as they are.
package report
