// Package api holds the OpenAPI documents of the Profile Document Analysis
// Service, embedded from the files beside it, which are the documents
// themselves rather than copies:
//
//   - openapi.yaml, the service: every endpoint of the interface document
//     and every inferred one (x-inferred: true), their parameters, bodies,
//     answers and error codes, and the schemas of the resources. It is the
//     machine-readable form of the README's endpoint table.
//   - mock-control.yaml, the mock server's /_mock/ control API, whose
//     schemas refer to openapi.yaml's beside it.
//
// The mock server serves both, without a key, at GET /_mock/openapi.yaml
// and GET /_mock/mock-control.yaml, so that a client generator can be
// pointed at a running mock.
package api

import (
	_ "embed"
	"strings"
)

//go:embed openapi.yaml
var openAPI string

//go:embed mock-control.yaml
var mockControl string

// OpenAPI returns the service's OpenAPI document, api/openapi.yaml, as
// YAML. The slice is the caller's.
func OpenAPI() []byte { return []byte(openAPI) }

// MockControl returns the OpenAPI document of the mock server's control
// API, api/mock-control.yaml, as YAML. Its schemas refer to those of
// openapi.yaml, as the relative reference "openapi.yaml#/...". The slice
// is the caller's.
func MockControl() []byte { return []byte(mockControl) }

// File names of the documents: the names they have in api/ and under
// /_mock/ on a running mock, so that mock-control.yaml's references to
// openapi.yaml resolve in both places.
const (
	OpenAPIFile     = "openapi.yaml"
	MockControlFile = "mock-control.yaml"
)

// Document returns the document of a file name, OpenAPIFile or
// MockControlFile, with or without a leading "./", as a reference from
// one document to the other names it; false for any other name. The
// slice is the caller's.
func Document(name string) ([]byte, bool) {
	switch strings.TrimPrefix(name, "./") {
	case OpenAPIFile:
		return OpenAPI(), true
	case MockControlFile:
		return MockControl(), true
	}
	return nil, false
}
