package engine

import (
	"context"

	"github.com/profilesvc/profilesvc-go"
)

// Analyzer runs an analysis. An error fails the analysis with the error's
// text. Default is the simulated engine; mockserver.WithAnalyzer puts
// another in its place.
type Analyzer func(ctx context.Context, in Input) (Result, error)

var _ Analyzer = Default

// Default is the simulated engine: a deterministic document review. It
// reads the documents' key/value pairs, compares each field of the output
// schema across documents, validates each document, runs the workflow's
// policy action by action, grades the risk, decides, and fills the
// schema. The same input gives the same result, byte for byte.
//
// Default runs in memory and does not block, so ctx is not consulted. It
// applies mock:risk= (see ParseScript); mock:fail= and mock:duration= are
// the caller's to apply.
//
// An analyzer given to mockserver.WithAnalyzer can call Default and
// adjust its result.
func Default(ctx context.Context, in Input) (Result, error) {
	if err := checkBounds(in); err != nil {
		return Result{}, err
	}
	r := newRun(in)
	r.readDocuments()
	r.compareFields()
	r.validateDocuments()
	r.runPolicy()
	r.grade()
	r.decide()
	return r.fillSchema()
}

// run is one analysis under way: its input and what each step has found
// so far, for the steps after it. The steps run in the order of Default.
type run struct {
	in      Input
	topKeys []string          // the schema's top-level properties, in order
	fields  []string          // the fields read from the documents
	byNorm  map[string]string // normKey(field) -> field
	lookups map[string]bool   // normKey of each top-level property filled from the documents as they show it

	// readDocuments
	docs    []*doc
	targets []string // the documents' item IDs, for the audit log

	// compareFields
	extracted  map[string]any // field -> the first document's value, or nil
	judgements map[string]any
	fails      []string // fields the documents disagree on
	reviews    []string // fields shown by fewer than two documents

	// validateDocuments
	validations                  map[string]any
	expired, invalid, unreadable []string // document names

	// runPolicy
	res            Result
	failed, warned []string           // names of the actions that failed or warned
	citeMemo       map[string][]cited // the passages cited for each list of fields

	// grade
	score   float64
	level   profilesvc.RiskLevel
	factors []string

	// decide
	action       profilesvc.FinalAction
	actionReason string
	flags        []string
	steps        []string

	// every step: what the sentences it writes say
	facts Facts
}

// newRun starts an analysis of in: it reads the fields its schema asks
// for.
func newRun(in Input) *run {
	r := &run{in: in, byNorm: map[string]string{}, lookups: map[string]bool{}}
	props, topKeys := schemaProperties(in.Workflow.OutputSchema)
	r.topKeys = topKeys
	r.fields = extractedFieldNames(props)
	for _, f := range r.fields {
		r.byNorm[normKey(f)] = f
	}
	for _, k := range topKeys {
		if _, ok := computedValues[k]; !ok {
			r.lookups[normKey(k)] = true
		}
	}
	return r
}
