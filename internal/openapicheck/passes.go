package openapicheck

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// The functions below tell whether openapi3filter.ValidateRequest and
// ValidateResponse would find nothing, as they would decide it, but with
// the schemas prepared once (see kinSchemas) rather than compiled at each
// call. They say true only when sure: for what they do not decode as
// kin-openapi does, or a value a schema refuses, they say false, and the
// check asks kin-openapi, whose errors are the ones reported.

// requestPasses reports whether ValidateRequest(ctx, in) surely returns
// nil; body is the request's body.
func (k *kinSchemas) requestPasses(ctx context.Context, in *openapi3filter.RequestValidationInput, body []byte) bool {
	if k == nil || !plainRequestOptions(in.Options) || in.Route == nil || in.Route.PathItem == nil || !in.Route.Spec.IsOpenAPI31OrLater() {
		return false
	}
	op := in.Route.Operation
	security := op.Security
	if security == nil {
		security = &in.Route.Spec.Security
	}
	if openapi3filter.ValidateSecurityRequirements(ctx, in, *security) != nil {
		return false
	}
	for _, ref := range in.Route.PathItem.Parameters {
		p := ref.Value
		if p != nil && op.Parameters != nil && op.Parameters.GetByInAndName(p.In, p.Name) != nil {
			continue // the operation's own replaces it
		}
		if !k.parameterPasses(in, p) {
			return false
		}
	}
	for _, ref := range op.Parameters {
		if !k.parameterPasses(in, ref.Value) {
			return false
		}
	}
	return in.Options.ExcludeRequestBody || op.RequestBody == nil || k.bodyPasses(in, op.RequestBody.Value, body)
}

// plainRequestOptions reports whether the options are the ones validate
// gives ValidateRequest, which requestPasses is written for.
func plainRequestOptions(o *openapi3filter.Options) bool {
	return o != nil && o.MultiError && o.SkipSettingDefaults && !o.ExcludeRequestQueryParams && !o.ExcludeReadOnlyValidations &&
		!o.RejectWhenRequestBodyNotSpecified && !o.KeepValidatedValue && o.RegexCompiler == nil && len(o.SchemaValidationOptions) == 0
}

// parameterPasses reports whether ValidateParameter finds nothing.
func (k *kinSchemas) parameterPasses(in *openapi3filter.RequestValidationInput, p *openapi3.Parameter) bool {
	if p == nil {
		return false
	}
	if p.Schema == nil && p.Content == nil {
		return true
	}
	if p.Content != nil || p.Schema.Value == nil {
		return false
	}
	sm, err := p.SerializationMethod()
	if err != nil {
		return false
	}
	value, found, err := parameterValue(in, p, sm)
	switch {
	case err != nil, p.Required && !found:
		return false
	case value == nil:
		return !found || p.AllowEmptyValue
	case value == "" && p.AllowEmptyValue:
		return true
	}
	return k.accepts(p.Schema.Value, value, openapi3.MultiErrors())
}

// parameterValue decodes a parameter of a primitive type from the
// request, as kin-openapi's decodeStyledParameter does, and whether it was
// given; errNotPrimitive for a parameter of another kind.
func parameterValue(in *openapi3filter.RequestValidationInput, p *openapi3.Parameter, sm *openapi3.SerializationMethod) (any, bool, error) {
	if !isPrimitive(p.Schema.Value) {
		return nil, false, errNotPrimitive
	}
	switch p.In {
	case openapi3.ParameterInPath:
		if len(in.PathParams) == 0 {
			return nil, false, nil
		}
		if sm.Style != openapi3.SerializationSimple {
			return nil, false, errNotPrimitive
		}
		raw, ok := in.PathParams[p.Name]
		if !ok || raw == "" {
			return nil, false, nil
		}
		v, err := parsePrimitive(raw, p.Schema.Value)
		return v, ok, err
	case openapi3.ParameterInQuery:
		query := in.GetQueryParams()
		if len(query) == 0 {
			return nil, false, nil
		}
		if sm.Style != openapi3.SerializationForm {
			return nil, false, errNotPrimitive
		}
		values, ok := query[p.Name]
		if len(values) == 0 {
			return nil, ok, nil
		}
		// The first value that is not empty, if any.
		raw := values[0]
		if i := slices.IndexFunc(values, func(v string) bool { return v != "" }); raw == "" && i > 0 {
			raw = values[i]
		}
		v, err := parsePrimitive(raw, p.Schema.Value)
		return v, ok, err
	case openapi3.ParameterInHeader:
		return headerValue(in.Request.Header, p.Name, sm, p.Schema.Value)
	}
	return nil, false, errNotPrimitive
}

// headerValue decodes a header of a primitive type as kin-openapi's
// headerParamDecoder does.
func headerValue(h http.Header, name string, sm *openapi3.SerializationMethod, schema *openapi3.Schema) (any, bool, error) {
	if !isPrimitive(schema) || sm.Style != openapi3.SerializationSimple {
		return nil, false, errNotPrimitive
	}
	raw, ok := h[http.CanonicalHeaderKey(name)]
	if !ok || len(raw) == 0 {
		return nil, ok, nil
	}
	v, err := parsePrimitive(raw[0], schema)
	return v, ok, err
}

// isPrimitive reports whether kin-openapi decodes a value of the schema
// as a primitive: it has a type, neither array nor object, and no
// allOf, anyOf, oneOf or not.
func isPrimitive(s *openapi3.Schema) bool {
	return s != nil && s.Type != nil && !s.Type.Is(openapi3.TypeArray) && !s.Type.Is(openapi3.TypeObject) &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil
}

// parsePrimitive is kin-openapi's parsePrimitive: the value of the first
// of the schema's types that reads raw; nil for an empty raw where a type
// before "string" is not a string.
func parsePrimitive(raw string, s *openapi3.Schema) (any, error) {
	var v any
	var err error
	for _, typ := range s.Type.Slice() {
		if raw == "" && typ != openapi3.TypeString {
			return nil, nil
		}
		if v, err = parsePrimitiveCase(raw, s, typ); err == nil {
			return v, nil
		}
	}
	return v, err
}

func parsePrimitiveCase(raw string, s *openapi3.Schema, typ string) (any, error) {
	switch typ {
	case openapi3.TypeInteger:
		if s.Format == "int32" {
			v, err := strconv.ParseInt(raw, 10, 32)
			return int32(v), err
		}
		return strconv.ParseInt(raw, 10, 64)
	case openapi3.TypeNumber:
		return strconv.ParseFloat(raw, 64)
	case openapi3.TypeBoolean:
		return strconv.ParseBool(raw)
	case openapi3.TypeString:
		return raw, nil
	}
	return nil, errNotPrimitive
}

// bodyPasses reports whether ValidateRequestBody finds nothing in data.
func (k *kinSchemas) bodyPasses(in *openapi3filter.RequestValidationInput, body *openapi3.RequestBody, data []byte) bool {
	switch {
	case body == nil:
		return false
	case len(data) == 0:
		return !body.Required
	case len(body.Content) == 0:
		return true
	}
	ct := in.Request.Header.Get("Content-Type")
	mt := body.Content.Get(ct)
	if mt == nil {
		return false
	}
	if mt.Schema == nil {
		return true
	}
	// kin-openapi's decodeBody, for a body whose media type has a decoder
	// of its own and no encoding.
	media, _, _ := strings.Cut(ct, ";")
	decode := openapi3filter.RegisteredBodyDecoder(strings.ToLower(strings.TrimSpace(media)))
	if decode == nil || mt.Encoding[""] != nil || mt.Schema.Value == nil || mt.Schema.Value.Type.Is(openapi3.TypeString) && mt.Schema.Value.Format == "binary" {
		return false
	}
	value, err := decode(bytes.NewReader(data), in.Request.Header, mt.Schema, func(name string) *openapi3.Encoding { return mt.Encoding[name] })
	if err != nil {
		return false
	}
	return k.accepts(mt.Schema.Value, value, openapi3.VisitAsRequest(), openapi3.MultiErrors())
}

// answerPasses reports whether ValidateResponse(ctx, in) surely returns
// nil.
func (k *kinSchemas) answerPasses(in *openapi3filter.ResponseValidationInput) bool {
	o := in.Options
	if k == nil || o == nil || !o.MultiError || o.ExcludeWriteOnlyValidations || len(o.SchemaValidationOptions) != 0 {
		return false
	}
	if in.RequestValidationInput.Request.Method == http.MethodHead {
		return true
	}
	switch in.Status {
	case http.StatusNotModified, http.StatusPermanentRedirect, http.StatusTemporaryRedirect, http.StatusMovedPermanently:
		return true
	}
	route := in.RequestValidationInput.Route
	if !route.Spec.IsOpenAPI31OrLater() || route.Operation.Responses == nil {
		return false
	}
	responses := route.Operation.Responses
	if responses.Len() == 0 {
		return true
	}
	ref := responses.Status(in.Status)
	if ref == nil {
		ref = responses.Default()
	}
	if ref == nil {
		return !o.IncludeResponseStatus
	}
	if ref.Value == nil {
		return false
	}
	for name, h := range ref.Value.Headers {
		if name != "Content-Type" && !k.headerPasses(name, h, in.Header) {
			return false
		}
	}
	return o.ExcludeResponseBody || len(ref.Value.Content) == 0
}

// headerPasses reports whether kin-openapi's validateResponseHeader finds
// nothing in the answer's header of that name.
func (k *kinSchemas) headerPasses(name string, ref *openapi3.HeaderRef, h http.Header) bool {
	if ref == nil || ref.Value == nil || ref.Value.Content != nil {
		return false
	}
	header := ref.Value
	sm, err := header.SerializationMethod()
	if err != nil {
		return false
	}
	if header.Schema == nil {
		return !header.Required
	}
	value, found, err := headerValue(h, name, sm, header.Schema.Value)
	switch {
	case err != nil:
		return false
	case found:
		return k.accepts(header.Schema.Value, value, openapi3.MultiErrors())
	}
	return !header.Required
}

// errNotPrimitive is the error of a value decoded here, for one kin-openapi
// decodes otherwise, or fails to decode.
var errNotPrimitive = errors.New("openapicheck: not a value decoded here")
