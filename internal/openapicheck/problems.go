package openapicheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// problem is one disagreement found by kin-openapi, in this package's
// terms: the field and what is wrong with it.
type problem struct {
	field, problem string
}

// requestProblems turns the error of openapi3filter.ValidateRequest into
// problems.
func requestProblems(err error) []problem {
	var out []problem
	for _, e := range flatten(err) {
		var reqErr *openapi3filter.RequestError
		var secErr *openapi3filter.SecurityRequirementsError
		switch {
		case errors.As(e, &secErr):
			p := problem{field: "header x-api-key", problem: "the request has no API key"}
			for _, inner := range secErr.Errors {
				p.problem = inner.Error()
			}
			out = append(out, p)
		case errors.As(e, &reqErr):
			field := "request"
			switch {
			case reqErr.Parameter != nil:
				field = reqErr.Parameter.In + " " + reqErr.Parameter.Name
			case reqErr.RequestBody != nil:
				field = "body"
			}
			out = append(out, detail(field, reqErr.Reason, reqErr.Err)...)
		default:
			out = append(out, problem{field: "request", problem: e.Error()})
		}
	}
	return out
}

// answerProblems turns the error of openapi3filter.ValidateResponse into
// problems.
func answerProblems(err error) []problem {
	var out []problem
	for _, e := range flatten(err) {
		var respErr *openapi3filter.ResponseError
		if !errors.As(e, &respErr) {
			out = append(out, problem{field: "answer", problem: e.Error()})
			continue
		}
		field := "body"
		if m := headerReason.FindStringSubmatch(respErr.Reason); m != nil {
			field = "header " + m[1]
		} else if strings.Contains(respErr.Reason, "Content-Type") || strings.Contains(respErr.Reason, "content type") {
			field = "header Content-Type"
		} else if respErr.Reason == "status is not supported" {
			field = "status"
		}
		out = append(out, detail(field, respErr.Reason, respErr.Err)...)
	}
	return out
}

// unsupported finds the property kin-openapi's own validator refuses as
// unknown.
var unsupported = regexp.MustCompile(`^property "([^"]+)" is unsupported`)

// headerReason finds the header an answer's problem is about.
var headerReason = regexp.MustCompile(`header "([^"]+)"`)

// detail makes the problems of one kin-openapi error: one for each value
// its schema refused, under the field, or one for the error as a whole.
func detail(field, reason string, err error) []problem {
	if err != nil {
		if ps := schemaProblems(err); len(ps) > 0 {
			for i := range ps {
				ps[i].field = strings.TrimSpace(field + ps[i].field)
			}
			return ps
		}
	}
	msg := reason
	if err != nil {
		var parse *openapi3filter.ParseError
		switch {
		case errors.As(err, &parse):
			msg = strings.TrimSpace(reason + ": " + parse.Error())
		case msg == "":
			msg = err.Error()
		default:
			msg += ": " + firstLine(err.Error())
		}
	}
	return []problem{{field: field, problem: msg}}
}

// schemaProblems lists the values a JSON Schema validation refused, each
// with its JSON pointer (" /a/0/b", or "" for the whole value): a missing
// or an unknown property is named by its own pointer.
func schemaProblems(err error) []problem {
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		var out []problem
		leaves(verr, message.NewPrinter(language.English), &out)
		return out
	}
	var out []problem
	for _, e := range flatten(err) {
		var serr *openapi3.SchemaError
		if !errors.As(e, &serr) {
			continue
		}
		ptr := " "
		if p := serr.JSONPointer(); len(p) > 0 {
			ptr = " /" + strings.Join(p, "/")
		}
		// An unknown property is named by its own pointer.
		if m := unsupported.FindStringSubmatch(serr.Reason); m != nil {
			ptr += "/" + m[1]
		}
		out = append(out, problem{field: strings.TrimRight(ptr, " "), problem: serr.Reason})
	}
	return out
}

// leaves collects the failures of a validation error's leaves: a missing
// or an unknown property is named by its own pointer.
func leaves(e *jsonschema.ValidationError, p *message.Printer, out *[]problem) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			leaves(c, p, out)
		}
		return
	}
	at := " "
	for _, token := range e.InstanceLocation {
		at += "/" + pointerToken(token)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, problem{field: strings.TrimSuffix(at, "/") + "/" + pointerToken(name), problem: "missing: the field is required"})
		}
	case *kind.DependentRequired:
		for _, name := range k.Missing {
			*out = append(*out, problem{field: strings.TrimSuffix(at, "/") + "/" + pointerToken(name), problem: "missing: the field is required with " + k.Prop})
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, problem{field: strings.TrimSuffix(at, "/") + "/" + pointerToken(name), problem: notAField})
		}
	default:
		*out = append(*out, problem{field: strings.TrimRight(at, " "), problem: e.ErrorKind.LocalizedString(p)})
	}
}

// flatten lists the errors of a multi-error, or the error alone.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if multi, ok := err.(openapi3.MultiError); ok {
		var out []error
		for _, e := range multi {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// jsonUnmarshal decodes one JSON value, numbers as json.Number, as
// kin-openapi does.
func jsonUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// One value, and nothing after it but white space: a second value is
	// what a handler that writes twice sends.
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: the first ends at byte %d", errTrailingData, dec.InputOffset())
	}
	return nil
}

// notAField is the problem of a property the schema does not have.
const notAField = "not a field of the document's schema"

// errTrailingData is the error of a JSON body with more after its value.
var errTrailingData = errors.New("more than one JSON value")
