package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The bounds of an analysis. Default reads and keeps at most so much of
// each part of an analysis, whatever the size of its documents, so that
// its result (and the facts kept for the report) stays within a fixed
// size: under the default workflow, a few hundred KB for documents of any
// size, and a few MB at most for the largest input these bounds let
// through. An ordinary analysis is far inside every one of them.
const (
	// MaxDocuments is the most documents an analysis reads. Default
	// fails an analysis of more with an error that says so.
	MaxDocuments = 100

	// MaxPolicyActions is the most actions a workflow's policy holds, and
	// so the most audit log entries, workflow history entries, raw
	// results and findings of an analysis. Workflow.Validate refuses a
	// longer policy, and Default fails an analysis under one.
	MaxPolicyActions = 100

	// MaxSchemaFields is the most properties an output schema holds, at
	// its top level and in its extracted_values: the values an analysis
	// extracts from each document are at most this many.
	// Workflow.Validate refuses a schema of more, and Default fails an
	// analysis under one.
	MaxSchemaFields = 100

	// MaxValueBytes is the most bytes of a value Default reads from a
	// document (a "Key: value" line, a JSON field, a CSV cell), of a
	// scripted outcome's value and of a document's name as Default
	// writes it: a longer one is cut on a character's boundary and ends
	// with "…", within this size. Default compares, validates and
	// reports the value so cut.
	MaxValueBytes = 1024

	// MaxCitations is the most citations (the passages a retrieval step
	// read) of an audit log entry. When the documents hold more, each
	// document gives its first passages in turn, the first document
	// first, until there are this many; they are listed in document
	// order.
	MaxCitations = 20

	// MaxCitationBytes is the most bytes of a citation's text: Default
	// cuts each document's text into passages of at most this size, on a
	// line break where there is one, else on a character's boundary.
	MaxCitationBytes = 240

	// MaxTextBytes is the most bytes of a sentence Default writes (a
	// finding's details, a recommendation, a reason, a risk factor, a raw
	// result's answer): a longer one, which lists many documents or
	// long values, is cut on a character's boundary and ends with "…",
	// within this size. Its facts are kept whole, for the report.
	MaxTextBytes = 4096
)

// ellipsis ends a string cut short.
const ellipsis = "…"

// truncate returns s when it is at most max bytes long, else its longest
// prefix that ends on a character's boundary and leaves room for
// ellipsis, followed by ellipsis: at most max bytes, and valid UTF-8 when
// s is. A string cut short shares no memory with s.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// keepValue is a value read from a document as Default keeps it: cut to
// MaxValueBytes, and copied, so that it does not hold the document's
// text in memory for as long as the result lives.
func keepValue(v string) string {
	return strings.Clone(truncate(v, MaxValueBytes))
}

// checkBounds reports an input Default does not run: more documents, a
// longer policy or a larger schema than the bounds allow.
func checkBounds(in Input) error {
	if n := len(in.Items); n > MaxDocuments {
		return fmt.Errorf("an analysis reads at most %d documents; this one has %d", MaxDocuments, n)
	}
	if err := checkPolicySize(in.Workflow.Policy); err != nil {
		return fmt.Errorf("workflow %q: %w", in.Workflow.ID, err)
	}
	if err := checkSchemaSize(in.Workflow.OutputSchema); err != nil {
		return fmt.Errorf("workflow %q: %w", in.Workflow.ID, err)
	}
	return nil
}

// checkPolicySize refuses a policy of more than MaxPolicyActions actions.
func checkPolicySize(policy []PolicyAction) error {
	if len(policy) > MaxPolicyActions {
		return fmt.Errorf("field \"policy\" must have at most %d actions, got %d", MaxPolicyActions, len(policy))
	}
	return nil
}

// checkSchemaSize refuses an output schema of more than MaxSchemaFields
// properties at its top level or in its extracted_values. A schema that
// does not parse has none.
func checkSchemaSize(schema json.RawMessage) error {
	props, _ := schemaProperties(schema)
	if len(props) > MaxSchemaFields {
		return fmt.Errorf("field \"outputSchema\" must have at most %d properties, got %d", MaxSchemaFields, len(props))
	}
	if n := len(extractedFieldNames(props)); n > MaxSchemaFields {
		return fmt.Errorf("field \"outputSchema\" must have at most %d properties in extracted_values, got %d", MaxSchemaFields, n)
	}
	return nil
}
