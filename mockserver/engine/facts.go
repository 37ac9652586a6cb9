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
	// Key names the form of the sentence, such as FactClassified.
	Key FactKey `json:"key"`
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

// FactKey names the form of a sentence Default writes: what a Fact says,
// and which of its values it uses. The keys are the engine's and its
// report's, which says each in its own words; they may change between
// versions, and are kept as strings with the facts.
type FactKey string

// The keys of the facts Default writes, and the values each uses. Those
// of recommendations start with "rec_".
const (
	// Document Classification.

	// FactClassified is the documents classified: Numbers[0], how many;
	// Documents and Kinds, each one's name and type.
	FactClassified FactKey = "classified"
	// FactUnclassified is the documents not recognised or not readable:
	// Documents.
	FactUnclassified FactKey = "unclassified"
	// FactNoIdentity is that no identity document was given.
	FactNoIdentity FactKey = "no_identity"

	// Data Extraction.

	// FactExtracted is the fields extracted: Numbers, the fields found
	// and the fields asked for; Fields, those found.
	FactExtracted FactKey = "extracted"
	// FactExtractedNone is that no field could be read.
	FactExtractedNone FactKey = "extracted_none"
	// FactMissing is the required fields no document shows: Fields.
	FactMissing FactKey = "missing"

	// Format Validation.

	// FactFormatsOK is that every date and document number is well formed.
	FactFormatsOK FactKey = "formats_ok"
	// FactMalformed is the malformed values: Fields, Documents and
	// Values, each one's field, document and value.
	FactMalformed FactKey = "malformed"

	// Status Validation.

	// FactNoneExpired is that no document has expired: Date, the
	// analysis's date.
	FactNoneExpired FactKey = "none_expired"
	// FactExpired is the expired documents: Documents.
	FactExpired FactKey = "expired"

	// Data Consistency, and category_judgements.

	// FactAgreeShared is that the documents agree on every value they
	// share.
	FactAgreeShared FactKey = "agree_shared"
	// FactDisagree is the fields the documents disagree on: Fields.
	FactDisagree FactKey = "disagree"
	// FactSingle is the fields one document only shows: Fields.
	FactSingle FactKey = "single"
	// FactAllAgree is that every value more than one document shows
	// agrees.
	FactAllAgree FactKey = "all_agree"
	// FactUnconfirmed is the fields no second document confirms: Fields.
	FactUnconfirmed FactKey = "unconfirmed"
	// FactFieldNone is a field no document shows: Fields[0].
	FactFieldNone FactKey = "field_none"
	// FactFieldOne is a field one document shows: Fields[0], and the
	// document, Documents[0].
	FactFieldOne FactKey = "field_one"
	// FactFieldAgree is a field the documents agree on: Fields[0], and
	// how many documents, Numbers[0].
	FactFieldAgree FactKey = "field_agree"
	// FactFieldDiffer is a field the documents disagree on: Fields[0];
	// Documents and Values, each document's value.
	FactFieldDiffer FactKey = "field_differ"

	// mcp.

	// FactRegistryNone is that there was no document number to look up.
	FactRegistryNone FactKey = "registry_none"
	// FactRegistryFound is a document number on record: Values[0].
	FactRegistryFound FactKey = "registry_found"

	// Document Processing, and actions of other categories.

	// FactReviewed is the documents reviewed: Numbers[0].
	FactReviewed FactKey = "reviewed"
	// FactRanOver is an action that ran over the documents: Actions[0],
	// and how many documents, Numbers[0].
	FactRanOver FactKey = "ran_over"

	// document_validations.

	// FactDocUnreadable is a document that could not be read:
	// Documents[0], and its content type, Values[0].
	FactDocUnreadable FactKey = "doc_unreadable"
	// FactDocUnrecognised is a document of no type the engine
	// recognises: Documents[0].
	FactDocUnrecognised FactKey = "doc_unrecognised"
	// FactDocIncomplete is a document without some of its required
	// fields: Documents[0], Kinds[0], and the fields it lacks, Fields.
	FactDocIncomplete FactKey = "doc_incomplete"
	// FactDocExpired is an expired document: Documents[0], Kinds[0], and
	// its expiry, Date.
	FactDocExpired FactKey = "doc_expired"
	// FactDocValid is a valid document: Documents[0], Kinds[0], and its
	// expiry, Date, if it shows one.
	FactDocValid FactKey = "doc_valid"

	// Risk factors, and the review result.

	// FactRiskFailed is a check that failed: Actions[0].
	FactRiskFailed FactKey = "risk_failed"
	// FactRiskWarning is a check that raised a warning: Actions[0].
	FactRiskWarning FactKey = "risk_warning"
	// FactRiskScripted is a risk a test script set: Values[0], the value
	// of mock:risk.
	FactRiskScripted FactKey = "risk_scripted"
	// FactRiskBasis is the risk score: Numbers, the score, the failed
	// checks and the warnings.
	FactRiskBasis FactKey = "risk_basis"
	// FactDecideApprove is that every check passed or raised only minor
	// warnings.
	FactDecideApprove FactKey = "decide_approve"
	// FactDecideReview is the checks a person needs to review: Actions,
	// those that failed or warned.
	FactDecideReview FactKey = "decide_review"
	// FactDecideReject is the checks that failed: Actions.
	FactDecideReject FactKey = "decide_reject"
	// FactDecideScript is that a test script set the risk high.
	FactDecideScript FactKey = "decide_script"

	// Recommendations.

	// FactRecUnclassified is to check by hand the documents not
	// classified: Documents.
	FactRecUnclassified FactKey = "rec_unclassified"
	// FactRecNoIdentity is to ask for an identity document.
	FactRecNoIdentity FactKey = "rec_no_identity"
	// FactRecIllegible is to ask for legible documents.
	FactRecIllegible FactKey = "rec_illegible"
	// FactRecMissing is to ask for a document that shows the required
	// fields missing: Fields.
	FactRecMissing FactKey = "rec_missing"
	// FactRecMalformed is to correct the malformed values, as
	// FactMalformed gives them.
	FactRecMalformed FactKey = "rec_malformed"
	// FactRecExpired is to replace the expired documents: Documents.
	FactRecExpired FactKey = "rec_expired"
	// FactRecDisagree is to resolve the fields the documents disagree
	// on: Fields.
	FactRecDisagree FactKey = "rec_disagree"
	// FactRecSingle is to confirm with a second document the fields one
	// document only shows: Fields.
	FactRecSingle FactKey = "rec_single"
	// FactRecRegistry is to verify the identity document with its
	// issuer by hand.
	FactRecRegistry FactKey = "rec_registry"
	// FactRecNoIssue is that no issue was found: the profile can be
	// approved.
	FactRecNoIssue FactKey = "rec_no_issue"
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
