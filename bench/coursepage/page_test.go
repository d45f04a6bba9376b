package coursepage

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestTemplate checks that the embedded page has the title clients look for and both
// placeholders Build fills in.
func TestTemplate(t *testing.T) {
	for _, want := range []string{"<title>" + Title + "</title>", "{{WASM_EXEC}}", "{{WASM_GZ_B64}}"} {
		if strings.Count(pageTemplate, want) != 1 {
			t.Errorf("page.html has %d of %q, want one", strings.Count(pageTemplate, want), want)
		}
	}
}

// TestHandler checks the handler's answers for the page's paths, other paths and methods,
// and a conditional request.
func TestHandler(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := Handler([]byte("<p>page"), mod)
	for _, tc := range []struct {
		method, path, ifModified string
		code                     int
		body                     string
	}{
		{"GET", "/", "", 200, "<p>page"},
		{"GET", "/index.html", "", 200, "<p>page"},
		{"HEAD", "/", "", 200, ""},
		{"GET", "/", mod.Format(http.TimeFormat), 304, ""},
		{"GET", "/course.wasm", "", 404, "404 page not found\n"},
		{"PUT", "/", "", 405, "method not allowed\n"},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.ifModified != "" {
			req.Header.Set("If-Modified-Since", tc.ifModified)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code || rec.Body.String() != tc.body {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Body.String(), tc.code, tc.body)
		}
		if tc.code == 200 && rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s %s: Content-Type %q", tc.method, tc.path, rec.Header().Get("Content-Type"))
		}
	}
}
