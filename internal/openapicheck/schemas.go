package openapicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// documentBase is where the embedded documents are placed for the JSON
// Schema compiler, so that a reference between them ("openapi.yaml#/...")
// resolves as it does beside each other on disk. Nothing is fetched from
// it.
const documentBase = "https://profilesvc.invalid/api/"

// schemas compiles the schemas of a document once each, by their place in
// it, for the JSON Schema 2020-12 validator that kin-openapi uses for
// OpenAPI 3.1. kin-openapi's Schema.VisitJSON compiles its schema again at
// every call, which made checking an answer cost more than ten times
// serving it; the answers' bodies, the most checked values, are validated
// here instead. The validator is the same; the formats are the JSON
// Schema validator's own, stricter than kin-openapi's patterns (a
// date-time must be a real instant, 2025-02-30 is refused, and a uri
// absolute), and so are the messages ("got number, want integer").
type schemas struct {
	base string // the document's URL, which "#/..." locations are in

	docs map[string]any // the documents as JSON values, by URL, read-only

	mu       sync.Mutex // guards compiler and byLoc: a Compiler is not safe for concurrent use
	compiler *jsonschema.Compiler
	byLoc    map[string]compiled
}

// compiled is the outcome of compiling the schema at one place, kept
// whether it failed or not, so that a failure is not tried again.
type compiled struct {
	schema *jsonschema.Schema
	err    error
}

// newSchemas places the documents (by file name) for the compiler; self
// is the name of the one whose locations are given.
func newSchemas(docs map[string]*openapi3.T, self string) (*schemas, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	values := map[string]any{}
	for name, doc := range docs {
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("openapicheck: encoding %s: %w", name, err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("openapicheck: decoding %s: %w", name, err)
		}
		if err := c.AddResource(documentBase+name, v); err != nil {
			return nil, fmt.Errorf("openapicheck: placing %s: %w", name, err)
		}
		values[documentBase+name] = v
	}
	return &schemas{base: documentBase + self, docs: values, compiler: c, byLoc: map[string]compiled{}}, nil
}

// compile returns the schema at loc (an absolute URL with a JSON pointer
// as its fragment), compiled on first use.
func (s *schemas) compile(loc string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.byLoc[loc]
	if !ok {
		c.schema, c.err = s.compiler.Compile(loc)
		if c.err != nil {
			c.err = fmt.Errorf("openapicheck: compiling the schema at %s: %w", loc, c.err)
		}
		s.byLoc[loc] = c
	}
	return c.schema, c.err
}

// problems checks a JSON value (decoded with json.Number) against the
// schema at loc, and lists the values it refuses as schemaProblems does.
// Where loc is "" or does not compile, kin-openapi checks the value
// against schema, compiling it for the call.
func (s *schemas) problems(loc string, schema *openapi3.SchemaRef, value any) []problem {
	if loc != "" {
		if sch, err := s.compile(loc); err == nil {
			return schemaProblems(sch.Validate(value))
		}
	}
	return schemaProblems(schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()))
}

// ref is the location a reference found in the document at from points
// to.
func ref(from, ref string) string {
	base, err := url.Parse(from)
	if err != nil {
		return ""
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	return base.ResolveReference(r).String()
}

// follow returns the location of what is at loc once the references met
// on the way are followed (a response of the components may be a
// reference to one of the other document); "" when the pointer leads
// nowhere.
func (s *schemas) follow(loc string) string {
	for range 16 { // a longer chain is a loop
		doc, fragment, _ := strings.Cut(loc, "#")
		node, ok := s.docs[doc]
		if !ok {
			return ""
		}
		tokens := strings.Split(strings.TrimPrefix(fragment, "/"), "/")
		if fragment == "" {
			tokens = nil
		}
		redirected := false
		for i, token := range tokens {
			if r, ok := refOf(node); ok {
				loc = ref(doc+"#/"+strings.Join(tokens[:i], "/"), r) + "/" + strings.Join(tokens[i:], "/")
				redirected = true
				break
			}
			m, ok := node.(map[string]any)
			if !ok {
				return ""
			}
			if node, ok = m[strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")]; !ok {
				return ""
			}
		}
		if redirected {
			continue
		}
		r, ok := refOf(node)
		if !ok {
			return loc
		}
		loc = ref(loc, r)
	}
	return ""
}

// refOf is the reference a node of the document is, if it is one.
func refOf(node any) (string, bool) {
	m, ok := node.(map[string]any)
	if !ok {
		return "", false
	}
	r, ok := m["$ref"].(string)
	return r, ok
}

// operation is the location of an operation of a path template.
func (s *schemas) operation(template, method string) string {
	return s.base + "#/paths/" + pointerToken(template) + "/" + strings.ToLower(method)
}

// answerBody is the location of the schema of an answer's body: the
// response declared under key (a status, "4XX" or "default") by the
// operation at op ("" for one that is not in the document), with the media
// type mediaKey. It is "" when the response has no place of its own.
func (s *schemas) answerBody(op, key string, resp *openapi3.ResponseRef, mediaKey string) string {
	var declared string // where the operation declares the response
	switch {
	case op != "":
		declared = op + "/responses/" + pointerToken(key)
	case resp.Ref != "":
		declared = ref(s.base, resp.Ref)
	default:
		return ""
	}
	at := s.follow(declared)
	if at == "" {
		return ""
	}
	return at + "/content/" + pointerToken(mediaKey) + "/schema"
}

// component is the location of a schema of the document's components.
func (s *schemas) component(name string) string {
	return s.base + "#/components/schemas/" + pointerToken(name)
}
