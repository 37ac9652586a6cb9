package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go/internal/ids"
)

// Workflow is a kind of review: it owns profiles, and its output schema and
// policy shape the analyses of their documents.
type Workflow struct {
	// ID has the prefix "wf_".
	ID string `json:"id"`
	// Name is a human-readable name.
	Name string `json:"name,omitempty"`
	// OutputSchema is the JSON Schema of an analysis's extracted data. Its
	// top-level properties are the fields the engine fills.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Policy is the ordered list of actions an analysis runs.
	Policy []PolicyAction `json:"policy,omitempty"`
}

// PolicyAction is one step of a workflow's policy.
type PolicyAction struct {
	// ActionName names the action; findings and raw results are keyed by
	// it.
	ActionName string `json:"actionName"`
	// Category is one of the interface document's categories, such as
	// "Data Extraction" or "mcp".
	Category string `json:"category"`
	// Query is what the action asks of the documents.
	Query string `json:"query"`
}

// DefaultWorkflowID is the workflow every mock server starts with.
const DefaultWorkflowID = "wf_default"

// MaxNameLength is the longest workflow name, in characters, as for
// profiles and folders.
const MaxNameLength = 255

// Validate reports what makes w unfit to be stored, or nil: the ID must
// start with "wf_" and hold at most 128 ASCII letters, digits, _, -, . or
// ~; the name at most MaxNameLength characters; an output schema must be a
// JSON object with an object "properties" of at most MaxSchemaFields
// properties (and as many in its extracted_values), and the policy must
// have at most MaxPolicyActions actions, each with a name and a category.
// Its messages name the field at fault.
func (w Workflow) Validate() error {
	if why := ids.Problem(w.ID, "wf_"); why != "" {
		return fmt.Errorf("field \"id\" %s", why)
	}
	if !utf8.ValidString(w.Name) || utf8.RuneCountInString(w.Name) > MaxNameLength || strings.ContainsFunc(w.Name, unicode.IsControl) {
		return fmt.Errorf("field \"name\" must be at most %d characters of valid UTF-8, with no control character", MaxNameLength)
	}
	if len(w.OutputSchema) > 0 {
		// Its members are kept raw: only the shape of the top is checked,
		// without building the whole schema's tree.
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(w.OutputSchema, &schema); err != nil {
			return fmt.Errorf("field \"outputSchema\" must be a JSON Schema object: %v", err)
		}
		if props := bytes.TrimSpace(schema["properties"]); len(props) == 0 || props[0] != '{' {
			return fmt.Errorf("field \"outputSchema\" must have an object \"properties\"")
		}
		if err := checkSchemaSize(w.OutputSchema); err != nil {
			return err
		}
	}
	if err := checkPolicySize(w.Policy); err != nil {
		return err
	}
	for i, a := range w.Policy {
		if strings.TrimSpace(a.ActionName) == "" {
			return fmt.Errorf("field \"policy[%d].actionName\" is required", i)
		}
		if strings.TrimSpace(a.Category) == "" {
			return fmt.Errorf("field \"policy[%d].category\" is required", i)
		}
	}
	return nil
}

// Clone returns a deep copy of w, which shares no memory with it.
func (w Workflow) Clone() Workflow {
	w.OutputSchema = append(json.RawMessage(nil), w.OutputSchema...)
	w.Policy = append([]PolicyAction(nil), w.Policy...)
	return w
}
