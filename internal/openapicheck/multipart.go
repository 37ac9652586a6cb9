package openapicheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// multipartContent returns the operation's multipart/form-data body, when
// the request is sent as one and the operation declares it with a schema.
func multipartContent(op *openapi3.Operation, contentType string) *openapi3.MediaType {
	if op.RequestBody == nil || op.RequestBody.Value == nil || mediaType(contentType) != "multipart/form-data" {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("multipart/form-data")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	return mt
}

// multipartProblems decodes a multipart/form-data body as the document
// describes it and checks it against the schema of its parts.
//
// kin-openapi decodes each part by its own media type, and reads a part
// as bytes only for OpenAPI 3.0's `format: binary`. A file of OpenAPI 3.1
// is a string with `contentMediaType`: kin-openapi would decode such a
// part as JSON when its media type is application/json, and refuse it
// when no decoder of its own reads that media type (a PDF). Here a part
// whose property may be a string is its text, whatever its media type, and
// any other part is JSON; each part's media type must be one its encoding
// allows (any, without an encoding). The first of parts of one name is
// checked. The parts are held to the schema as prepared once by k; only
// when it refuses them is kin-openapi asked, for its errors.
func (k *kinSchemas) multipartProblems(mt *openapi3.MediaType, contentType string, body []byte) []problem {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return []problem{{field: "body", problem: "not a multipart body: its Content-Type has no boundary"}}
	}
	schema := mt.Schema.Value
	value := map[string]any{}
	var out []problem
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(out, problem{field: "body", problem: "not a multipart body: " + err.Error()})
		}
		name := part.FormName()
		data, err := io.ReadAll(part)
		if err != nil {
			return append(out, problem{field: "body", problem: "not a multipart body: " + err.Error()})
		}
		field := "body /" + pointerToken(name)
		ct := part.Header.Get("Content-Type")
		if ct == "" {
			ct = "text/plain" // RFC 7578's default
		}
		if enc := mt.Encoding[name]; !enc.AllowsContentType(ct) {
			out = append(out, problem{field: field, problem: fmt.Sprintf("the part's media type %q is not one its encoding allows (%s)", ct, enc.ContentType)})
		}
		if _, seen := value[name]; seen {
			continue
		}
		v, err := partValue(schema.Properties[name], data)
		if err != nil {
			out = append(out, problem{field: field, problem: "not JSON: " + err.Error()})
			continue
		}
		value[name] = v
	}
	if k.accepts(schema, value, openapi3.MultiErrors(), openapi3.VisitAsRequest()) {
		return out
	}
	err = schema.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors(), openapi3.VisitAsRequest())
	for _, p := range schemaProblems(err) {
		out = append(out, problem{field: "body" + p.field, problem: p.problem})
	}
	return out
}

// partValue is the value of a part: its text when its property may be a
// string (or the schema does not name it), else its JSON.
func partValue(prop *openapi3.SchemaRef, data []byte) (any, error) {
	if prop == nil || prop.Value == nil || prop.Value.Type == nil || prop.Value.Type.Includes("string") {
		return string(data), nil
	}
	var v any
	err := jsonUnmarshal(data, &v)
	return v, err
}

// pointerToken escapes a name as a token of a JSON pointer.
func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
