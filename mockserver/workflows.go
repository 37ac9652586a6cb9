package mockserver

import "github.com/profilesvc/profilesvc-go/mockserver/engine"

// Workflow is a kind of review: it owns profiles, and its output schema and
// policy shape the analyses of their documents. It is engine.Workflow; see
// package engine.
type Workflow = engine.Workflow

// PolicyAction is one step of a workflow's policy. It is
// engine.PolicyAction; see package engine.
type PolicyAction = engine.PolicyAction

// DefaultWorkflowID is the workflow every server starts with. It is
// engine.DefaultWorkflowID.
const DefaultWorkflowID = engine.DefaultWorkflowID

// DefaultWorkflow returns wf_default: an identity and financial document
// review whose policy classifies the documents, extracts identity fields,
// validates their formats and expiry, compares them across documents, looks
// the document number up in a (simulated) registry and compiles a decision.
// It is engine.DefaultWorkflow.
func DefaultWorkflow() Workflow { return engine.DefaultWorkflow() }
