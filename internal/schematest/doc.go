// Package schematest validates JSON documents in tests against the JSON Schema of schedkit's run
// results, bench/sim/result.schema.json, with github.com/santhosh-tekuri/jsonschema (draft
// 2020-12): every JSON form of a Result or of a Summary's runs that a package writes is checked
// against the published schema by that package's tests, so that the schema file and the writers
// cannot drift apart.
//
// Only tests import it.
package schematest
