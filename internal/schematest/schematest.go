package schematest

// This file implements Validate.

import (
	"bytes"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaFile returns the path of bench/sim/result.schema.json, found from this source file.
func schemaFile() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "bench", "sim", "result.schema.json")
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.NewCompiler().Compile(schemaFile())
})

// Check returns an error if doc, one JSON document, does not validate against the schema of
// run results (a Result or a Summary's runs), or if the schema does not compile.
func Check(doc []byte) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// Validate fails tb if doc does not validate (see Check).
func Validate(tb testing.TB, doc []byte) {
	tb.Helper()
	if err := Check(doc); err != nil {
		tb.Fatalf("JSON does not validate against bench/sim/result.schema.json: %v", err)
	}
}
