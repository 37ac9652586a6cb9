package openapicheck

import (
	"encoding/json"
	"math"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// kinSchemas tells, cheaply, whether kin-openapi's Schema.VisitJSON
// accepts a value under an OpenAPI 3.1 document (EnableJSONSchema2020).
//
// VisitJSON encodes its schema and compiles it anew at every call, which
// is most of the cost of checking a request's parameters, its body and an
// answer's headers. Here each schema is prepared once, on first use, the
// way VisitJSON prepares it: compiled alike for the JSON Schema 2020-12
// validator, or, where VisitJSON falls back to kin-openapi's own
// validator, marked so. A value either validator accepts, VisitJSON
// accepts; for a value refused, or a schema not prepared here, the
// callers ask kin-openapi itself, so that what is reported is its error,
// word for word, as before.
type kinSchemas struct {
	mu       sync.Mutex
	bySchema map[*openapi3.Schema]*kinSchema
}

// kinSchema is how VisitJSON validates with one schema.
type kinSchema struct {
	once     sync.Once
	how      kinWay
	compiled *jsonschema.Schema // for kinCompiled
}

// kinWay is the validator VisitJSON uses for a schema.
type kinWay int

const (
	// kinUnknown: not prepared here (kin-openapi rewrites the schema's
	// references first, or its result depends on more than the value).
	kinUnknown kinWay = iota
	// kinCompiled: the JSON Schema 2020-12 validator, with the schema
	// compiled alone.
	kinCompiled
	// kinLegacy: kin-openapi's own validator, which VisitJSON falls back
	// to for a schema that refers to the components and uses no keyword of
	// JSON Schema 2020-12 alone, or that does not compile.
	kinLegacy
)

// kinSchemaURL is where kin-openapi places a schema for the compiler.
const kinSchemaURL = "https://example.com/schema.json"

func newKinSchemas() *kinSchemas {
	return &kinSchemas{bySchema: map[*openapi3.Schema]*kinSchema{}}
}

// accepts reports whether schema.VisitJSON(value, opts...,
// openapi3.EnableJSONSchema2020()) surely returns nil. False is not a
// refusal: the caller asks kin-openapi.
func (k *kinSchemas) accepts(schema *openapi3.Schema, value any, opts ...openapi3.SchemaValidationOption) bool {
	if k == nil || schema == nil {
		return false
	}
	s := k.prepared(schema)
	switch s.how {
	case kinCompiled:
		return s.compiled.Validate(value) == nil
	case kinLegacy:
		// The same validator with the same settings, but for the
		// JSON Schema 2020-12 one, which only decides whether nullable
		// counts; prepare leaves out a schema that has it.
		return schema.VisitJSON(value, opts...) == nil
	}
	return false
}

// prepared returns the schema's preparation, made on first use.
func (k *kinSchemas) prepared(schema *openapi3.Schema) *kinSchema {
	k.mu.Lock()
	s, ok := k.bySchema[schema]
	if !ok {
		s = &kinSchema{}
		k.bySchema[schema] = s
	}
	k.mu.Unlock()
	s.once.Do(func() { s.how, s.compiled = prepare(schema) })
	return s
}

// prepare finds the validator VisitJSON uses for schema, as its
// useJSONSchema2020 does, and compiles the schema for it as its
// newJSONSchemaValidator does.
func prepare(schema *openapi3.Schema) (kinWay, *jsonschema.Schema) {
	newer, nullable := keywords(schema)
	if nullable {
		return kinUnknown, nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return kinUnknown, nil
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return kinUnknown, nil
	}
	if refersToComponents(doc) {
		if newer {
			return kinUnknown, nil // compiled with the components copied in
		}
		return kinLegacy, nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	m, _ := doc.(map[string]any)
	registerKinFormats(c, m)
	if err := c.AddResource(kinSchemaURL, doc); err != nil {
		return kinUnknown, nil
	}
	compiled, err := c.Compile(kinSchemaURL)
	switch {
	case err == nil:
		return kinCompiled, compiled
	case !newer:
		return kinLegacy, nil
	}
	return kinUnknown, nil // refused, or left to kin-openapi's validator, by the error's text
}

// keywords reports whether the schema or one below it has a keyword of
// JSON Schema 2020-12 that keeps VisitJSON from falling back to its own
// validator (kin-openapi's schemaUsesJSONSchema2020Features), and whether
// one is nullable (OpenAPI 3.0's keyword).
func keywords(schema *openapi3.Schema) (newer, nullable bool) {
	_ = openapi3.NewSchemaRef("", schema).WalkSubtree(func(_ string, ref *openapi3.SchemaRef) error {
		s := ref.Value
		newer = newer || s.Const != nil ||
			len(s.PrefixItems) != 0 || s.Contains != nil ||
			len(s.PatternProperties) != 0 ||
			len(s.DependentSchemas) != 0 || s.PropertyNames != nil ||
			s.UnevaluatedItems.Has != nil || s.UnevaluatedItems.Schema != nil ||
			s.UnevaluatedProperties.Has != nil || s.UnevaluatedProperties.Schema != nil ||
			s.If != nil || s.Then != nil || s.Else != nil ||
			len(s.DependentRequired) != 0 || len(s.Defs) != 0 ||
			s.ContentSchema != nil
		nullable = nullable || s.Nullable
		return nil
	})
	return newer, nullable
}

// refersToComponents reports whether the encoded schema has a reference
// to a schema of the components (kin-openapi's containsInternalSchemaRef).
func refersToComponents(node any) bool {
	switch node := node.(type) {
	case map[string]any:
		if ref, ok := node["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/schemas/") {
			return true
		}
		for _, v := range node {
			if refersToComponents(v) {
				return true
			}
		}
	case []any:
		for _, v := range node {
			if refersToComponents(v) {
				return true
			}
		}
	}
	return false
}

// registerKinFormats gives the compiler kin-openapi's validators of the
// formats the schema names, asserted, as its registerFormatValidators
// does.
func registerKinFormats(c *jsonschema.Compiler, schema map[string]any) {
	formats := map[string]bool{}
	collectFormats(schema, formats)
	if len(formats) == 0 {
		return
	}
	for name := range formats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: kinFormat(name)})
	}
	c.AssertFormat()
}

func collectFormats(node any, formats map[string]bool) {
	switch node := node.(type) {
	case map[string]any:
		if f, ok := node["format"].(string); ok && f != "" {
			formats[f] = true
		}
		for _, v := range node {
			collectFormats(v, formats)
		}
	case []any:
		for _, v := range node {
			collectFormats(v, formats)
		}
	}
}

// kinFormat is kin-openapi's validator of a format (its formatValidator,
// without validators of its own for one validation): the formats defined
// with openapi3.DefineStringFormat and its kin.
func kinFormat(name string) func(any) error {
	return func(value any) error {
		switch value := value.(type) {
		case string:
			if f, ok := openapi3.SchemaStringFormats[name]; ok {
				return f.Validate(value)
			}
		case json.Number:
			if n, err := value.Float64(); err == nil {
				return kinNumberFormat(name, n)
			}
		case float64:
			return kinNumberFormat(name, value)
		case float32:
			return kinNumberFormat(name, float64(value))
		case int:
			return kinNumberFormat(name, float64(value))
		case int32:
			return kinNumberFormat(name, float64(value))
		case int64:
			return kinNumberFormat(name, float64(value))
		}
		return nil
	}
}

func kinNumberFormat(name string, value float64) error {
	if value == math.Trunc(value) && !math.IsInf(value, 0) {
		if f, ok := openapi3.SchemaIntegerFormats[name]; ok {
			return f.Validate(int64(value))
		}
	}
	if f, ok := openapi3.SchemaNumberFormats[name]; ok {
		return f.Validate(value)
	}
	return nil
}
