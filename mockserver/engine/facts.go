package engine

import "maps"

// Facts are the structured facts behind a Result: what each sentence
// Default writes into it says, as data, and what it read of each
// document. The mock server keeps them with the analysis for its PDF
// report, which says them in the report's language; the analysis the API
// returns does not carry them.
//
// A Result another analyzer makes has none, and the report shows its text
// as given. An analyzer that calls Default and changes a sentence leaves
// the sentence's facts behind unused, since they are found by the text
// they stand for, and the report shows the changed text as given.
type Facts struct {
	// Sentences maps each text Default wrote into the result (a
	// finding's details, a recommendation, a reason of the extracted
	// data, a risk factor) to what it says, one Fact a sentence, in
	// order.
	Sentences map[string][]Fact `json:"sentences,omitempty"`
	// Documents are the target items as the engine read them, in the
	// order of the input.
	Documents []DocumentFacts `json:"documents,omitempty"`
}

// Fact is what one sentence says, as data: a message key, which names
// the sentence's form, and the values it holds, by their role. Which
// values a key uses, and in which order, is the key's own; the keys and
// their values are the engine's and its report's, internal, and may change
// between versions.
type Fact struct {
	// Key names the form of the sentence, such as "classified".
	Key string `json:"key"`
	// Numbers are counts and scores.
	Numbers []int `json:"numbers,omitempty"`
	// Fields are names of the output schema's fields, such as
	// "date_of_birth".
	Fields []string `json:"fields,omitempty"`
	// Documents are names of documents, as they were uploaded.
	Documents []string `json:"documents,omitempty"`
	// Kinds are document types the engine recognises, such as
	// "passport", or "document" for none.
	Kinds []string `json:"kinds,omitempty"`
	// Actions are names of the policy's actions, such as
	// "cross_check_identity".
	Actions []string `json:"actions,omitempty"`
	// Values are values as the documents show them, or as written.
	Values []string `json:"values,omitempty"`
	// Date is a date in ISO 8601 form (2006-01-02).
	Date string `json:"date,omitempty"`
}

// DocumentFacts are what the engine read of one document.
type DocumentFacts struct {
	// ItemID is the target item's ID.
	ItemID string `json:"itemId"`
	// Kind is the type the engine recognised, such as "passport", or
	// "document" for none.
	Kind string `json:"kind"`
	// ValidationKey is the document's name in document_validations:
	// its kind, with a number from the second document of a kind
	// ("passport_2").
	ValidationKey string `json:"validationKey"`
	// Readable reports whether the document's text could be read.
	Readable bool `json:"readable"`
	// Values are the schema fields the document shows, with the values
	// as it shows them.
	Values map[string]string `json:"values,omitempty"`
}

// The keys of the facts Default writes, and the values each uses. Those
// of recommendations start with "rec_".
const (
	// Document Classification.
	factClassified   = "classified"   // Numbers[0] documents; Documents and Kinds: each one's name and type
	factUnclassified = "unclassified" // Documents: those not recognised or not readable
	factNoIdentity   = "no_identity"  // none
	// Data Extraction.
	factExtracted     = "extracted"      // Numbers: fields found, fields asked for; Fields: those found
	factExtractedNone = "extracted_none" // none
	factMissing       = "missing"        // Fields: required fields no document shows
	// Format Validation.
	factFormatsOK = "formats_ok" // none
	factMalformed = "malformed"  // Fields, Documents, Values: each malformed value's field, document and value
	// Status Validation.
	factNoneExpired = "none_expired" // Date: the analysis's date
	factExpired     = "expired"      // Documents: the expired ones
	// Data Consistency, and category_judgements.
	factAgreeShared = "agree_shared" // none
	factDisagree    = "disagree"     // Fields: those the documents disagree on
	factSingle      = "single"       // Fields: those one document shows
	factAllAgree    = "all_agree"    // none
	factUnconfirmed = "unconfirmed"  // Fields: those no second document confirms
	factFieldNone   = "field_none"   // Fields[0]: shown by no document
	factFieldOne    = "field_one"    // Fields[0], Documents[0]: the one document that shows it
	factFieldAgree  = "field_agree"  // Fields[0], Numbers[0]: how many documents agree on it
	factFieldDiffer = "field_differ" // Fields[0]; Documents and Values: each document's value
	// mcp.
	factRegistryNone  = "registry_none"  // none
	factRegistryFound = "registry_found" // Values[0]: the document number
	// Document Processing, and actions of other categories.
	factReviewed = "reviewed" // Numbers[0] documents
	factRanOver  = "ran_over" // Actions[0], Numbers[0] documents
	// document_validations.
	factDocUnreadable   = "doc_unreadable"   // Documents[0], Values[0]: its content type
	factDocUnrecognised = "doc_unrecognised" // Documents[0]
	factDocIncomplete   = "doc_incomplete"   // Documents[0], Kinds[0], Fields: those it lacks
	factDocExpired      = "doc_expired"      // Documents[0], Kinds[0], Date: its expiry
	factDocValid        = "doc_valid"        // Documents[0], Kinds[0], Date: its expiry, if it shows one
	// Risk factors, and the review result.
	factRiskFailed    = "risk_failed"    // Actions[0]
	factRiskWarning   = "risk_warning"   // Actions[0]
	factRiskScripted  = "risk_scripted"  // Values[0]: the value of mock:risk
	factRiskBasis     = "risk_basis"     // Numbers: score, failed checks, warnings
	factDecideApprove = "decide_approve" // none
	factDecideReview  = "decide_review"  // Actions: those that failed or warned
	factDecideReject  = "decide_reject"  // Actions: those that failed
	factDecideScript  = "decide_script"  // none: the risk was scripted high
	// Recommendations.
	factRecUnclassified = "rec_unclassified" // Documents
	factRecNoIdentity   = "rec_no_identity"  // none
	factRecIllegible    = "rec_illegible"    // none
	factRecMissing      = "rec_missing"      // Fields
	factRecMalformed    = "rec_malformed"    // as factMalformed
	factRecExpired      = "rec_expired"      // Documents
	factRecDisagree     = "rec_disagree"     // Fields
	factRecSingle       = "rec_single"       // Fields
	factRecRegistry     = "rec_registry"     // none
	factRecNoIssue      = "rec_no_issue"     // none
)

// say records what text says, as facts, and returns text, cut to
// MaxTextBytes; the facts are kept under the text so cut. The first facts
// recorded for a text stay: the same text always says the same.
func (r *run) say(text string, facts ...Fact) string {
	text = truncate(text, MaxTextBytes)
	if r.facts.Sentences == nil {
		r.facts.Sentences = map[string][]Fact{}
	}
	if _, ok := r.facts.Sentences[text]; !ok {
		r.facts.Sentences[text] = facts
	}
	return text
}

// documentFacts records what the engine read of each document.
func (r *run) documentFacts() []DocumentFacts {
	out := make([]DocumentFacts, len(r.docs))
	for i, d := range r.docs {
		out[i] = DocumentFacts{ItemID: d.item.ID, Kind: d.kind, ValidationKey: d.key, Readable: d.item.Readable,
			Values: maps.Clone(d.values)}
	}
	return out
}
