package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/profilesvc/profilesvc-go"
)

// fillSchema is the last step: it gives each top-level property of the
// schema its value, in the extracted data and in the filled schema, with
// its extraction status.
func (r *run) fillSchema() (Result, error) {
	data := map[string]any{}
	for _, k := range r.topKeys {
		data[k] = r.valueOf(k)
	}
	for _, k := range r.topKeys {
		r.res.ExtractionStatus[k] = profilesvc.Extracted
		if isEmpty(data[k]) || (k == "extracted_values" && allNil(r.extracted)) {
			r.res.ExtractionStatus[k] = profilesvc.ExtractionMissing
		}
	}
	var err error
	if r.res.ExtractedData, err = json.Marshal(data); err != nil {
		return Result{}, fmt.Errorf("encoding extracted data: %w", err)
	}
	r.res.OutputSchema = filledSchema(r.in.Workflow.OutputSchema, data)
	r.res.Facts = Facts{Sentences: r.facts.Sentences, Documents: r.documentFacts()}
	return r.res, nil
}

// valueOf is the value of the schema's top-level property k: what an
// earlier step found for the properties the engine knows, else the first
// value of that name in the documents.
func (r *run) valueOf(k string) any {
	if v, ok := computedValues[k]; ok {
		return v(r)
	}
	return firstValue(r.docs, k)
}

// computedValues are the top-level properties whose values the steps of
// an analysis compute, each with what gives its value.
var computedValues = map[string]func(r *run) any{
	"request_id": func(r *run) any { return r.in.Profile.ID },
	"review_result": func(r *run) any {
		return map[string]any{
			"final_action": r.action, "final_risk_level": r.level, "final_action_reason": r.actionReason,
			"final_risk_level_reason": r.riskReason(),
		}
	},
	"extracted_values":       func(r *run) any { return r.extracted },
	"category_judgements":    func(r *run) any { return r.judgements },
	"document_validations":   func(r *run) any { return r.validations },
	"policy_flags":           func(r *run) any { return r.flags },
	"recommended_next_steps": func(r *run) any { return r.steps },
}

// schemaProperties returns the properties of a JSON Schema, and their
// names in order.
// The key "properties" is matched exactly, as Workflow.Validate and
// filledSchema match it, not in any case as a struct's field would be.
func schemaProperties(schema json.RawMessage) (map[string]json.RawMessage, []string) {
	var s map[string]json.RawMessage
	var props map[string]json.RawMessage
	if json.Unmarshal(schema, &s) == nil {
		_ = json.Unmarshal(s["properties"], &props)
	}
	return props, sortedKeys(props)
}

// extractedFieldNames returns the fields of extracted_values in the schema,
// or, for a schema without it, its top-level string properties.
func extractedFieldNames(props map[string]json.RawMessage) []string {
	var ev struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if raw, ok := props["extracted_values"]; ok && json.Unmarshal(raw, &ev) == nil && len(ev.Properties) > 0 {
		return sortedKeys(ev.Properties)
	}
	var out []string
	for _, k := range sortedKeys(props) {
		if k == "request_id" {
			continue // not read from the documents: it is the profile ID
		}
		var p struct {
			Type any `json:"type"`
		}
		_ = json.Unmarshal(props[k], &p)
		if fmt.Sprint(p.Type) == "string" {
			out = append(out, k)
		}
	}
	return out
}

// firstValue returns the first value of a key of that name, regardless of
// case and separators, in the documents, or nil.
func firstValue(docs []*doc, field string) any {
	nk := normKey(field)
	for _, d := range docs {
		if v, ok := d.firsts[nk]; ok {
			return v
		}
	}
	return nil
}

// filledSchema returns the schema with each top-level property's value
// set.
func filledSchema(schema json.RawMessage, data map[string]any) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil || s == nil {
		s = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		// Not a schema Workflow.Validate lets through; filled all the
		// same rather than failing the analysis.
		props = map[string]any{}
		s["properties"] = props
	}
	for k, v := range data {
		p, _ := props[k].(map[string]any)
		if p == nil {
			p = map[string]any{}
			props[k] = p
		}
		p["value"] = v
	}
	b, _ := json.Marshal(s)
	return b
}

// isEmpty reports whether a value of the extracted data is missing: nil or
// empty.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []string:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// allNil reports whether no field of m has a value.
func allNil(m map[string]any) bool {
	for _, v := range m {
		if v != nil {
			return false
		}
	}
	return true
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
