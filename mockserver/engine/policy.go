package engine

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// outcome is what one action found.
type outcome struct {
	result         profilesvc.FindingResult
	details        string
	reasoning      string
	answer         string
	citations      []profilesvc.Object // set for retrieval actions
	tool           *profilesvc.MCPToolCall
	recommendation string
}

// actions carries out a policy action by its category. An action of
// another category runs as genericAction.
var actions = map[string]func(*run, PolicyAction) outcome{
	profilesvc.CategoryDocumentClassification: (*run).classifyDocuments,
	profilesvc.CategoryDataExtraction:         (*run).extractData,
	profilesvc.CategoryFormatValidation:       (*run).validateFormats,
	profilesvc.CategoryStatusValidation:       (*run).checkExpiry,
	profilesvc.CategoryDataConsistency:        (*run).checkConsistency,
	profilesvc.CategoryMCP:                    (*run).lookUpRegistry,
	profilesvc.CategoryDocumentProcessing:     (*run).compileReview,
}

// stepStatus is the verification status of an action's audit entry and
// raw result, by its finding.
var stepStatus = map[profilesvc.FindingResult]profilesvc.StepStatus{
	profilesvc.FindingPassed:  profilesvc.StepPassed,
	profilesvc.FindingWarning: profilesvc.StepNeedsReview,
	profilesvc.FindingFailed:  profilesvc.StepFailed,
}

// runPolicy is the fourth step: it carries out each action of the
// workflow's policy and records what it found in every part of the
// result: the audit log, the workflow history, the raw results, the
// findings and the recommendations.
func (r *run) runPolicy() {
	r.res = Result{
		RawActionResults: map[string]profilesvc.RawActionResult{},
		ExtractionStatus: map[string]profilesvc.ExtractionStatus{},
	}
	for i, act := range r.in.Workflow.Policy {
		do, ok := actions[act.Category]
		if !ok {
			do = (*run).genericAction
		}
		r.record(i+1, act, do(r, act))
	}
	r.res.SystemMetadata.TotalIterations = 1
	if r.res.SystemMetadata.CompletedWorkIDs == nil {
		r.res.SystemMetadata.CompletedWorkIDs = []int{}
	}
}

// record adds the outcome of the action of the given work ID to the
// result.
func (r *run) record(workID int, act PolicyAction, out outcome) {
	res := &r.res
	dur := stepDuration(act.ActionName, len(r.docs))
	verification := stepStatus[out.result]
	out.answer = truncate(out.answer, MaxTextBytes)
	entry := profilesvc.AuditLogEntry{
		WorkID: workID, ActionName: act.ActionName, Category: act.Category, Query: act.Query,
		Reasoning: out.reasoning, Success: true, Iteration: 1, DurationMs: float64(dur),
		VerificationStatus: verification, TargetItemIDs: r.targets,
	}
	if out.citations != nil {
		entry.RAGResponse = &profilesvc.RAGResponse{
			Answer: out.answer, Citations: out.citations, ChunksSearched: r.chunkCount(),
			ProcessingTimeMs: float64(dur / 2),
		}
	}
	if out.tool != nil {
		entry.MCPToolCalls = []profilesvc.MCPToolCall{*out.tool}
	}
	res.AgentAuditLog = append(res.AgentAuditLog, entry)
	res.SystemMetadata.WorkflowHistory = append(res.SystemMetadata.WorkflowHistory, profilesvc.WorkflowHistoryEntry{
		WorkID: workID, ActionName: act.ActionName, Query: act.Query, Reason: out.reasoning, Success: true, Iteration: 1,
	})
	res.SystemMetadata.CompletedWorkIDs = append(res.SystemMetadata.CompletedWorkIDs, workID)
	res.RawActionResults[act.ActionName] = profilesvc.RawActionResult{
		Answer: out.answer, WorkID: workID, CitationsCount: len(out.citations), VerificationStatus: verification,
	}
	res.Findings = append(res.Findings, profilesvc.Finding{
		Category: act.ActionName, Result: out.result, Details: out.details, SortOrder: workID,
	})
	res.ProcessingTimeMs += float64(dur)
	switch out.result {
	case profilesvc.FindingFailed:
		r.failed = append(r.failed, act.ActionName)
	case profilesvc.FindingWarning:
		r.warned = append(r.warned, act.ActionName)
	}
	if out.recommendation != "" {
		prio := 2
		if out.result == profilesvc.FindingFailed {
			prio = 1
		}
		res.Recommendations = append(res.Recommendations, profilesvc.Recommendation{Content: out.recommendation, Priority: prio})
	}
}

// chunkCount is the number of passages of all the documents.
func (r *run) chunkCount() int {
	n := 0
	for _, d := range r.docs {
		n += d.chunks
	}
	return n
}

// cited is a passage of a document that holds a field's value.
type cited struct {
	doc   *doc
	chunk chunk
	field string
}

// cite returns citations of the passages that hold the given fields'
// values, at most MaxCitations: each document's first ones, a document
// at a time in turn, listed in document order. Each is new, and its text
// a copy: a result shares no memory with another, nor with the documents.
func (r *run) cite(fields []string) []profilesvc.Object {
	memoKey := strings.Join(fields, "\x00")
	found, ok := r.citeMemo[memoKey]
	if !ok {
		perDoc := make([][]cited, len(r.docs))
		for i, d := range r.docs {
			for c := range chunks(d.item.Text) {
				if len(perDoc[i]) == MaxCitations {
					break
				}
				for _, f := range fields {
					if v, ok := d.values[f]; ok && strings.Contains(c.text, v) {
						c.text = strings.Clone(strings.TrimSpace(c.text))
						perDoc[i] = append(perDoc[i], cited{doc: d, chunk: c, field: f})
						break
					}
				}
			}
		}
		found = takeInTurn(perDoc, MaxCitations)
		if r.citeMemo == nil {
			r.citeMemo = map[string][]cited{}
		}
		r.citeMemo[memoKey] = found
	}
	out := make([]profilesvc.Object, len(found))
	for i, c := range found {
		out[i] = profilesvc.Object{
			"itemId": c.doc.item.ID, "chunkIndex": c.chunk.index, "start": c.chunk.start, "end": c.chunk.end,
			"text": c.chunk.text, "field": c.field,
		}
	}
	return out
}

// takeInTurn takes at most max elements of lists: the first of each list
// in turn, then the second of each, and so on; it returns those taken,
// list by list, each list's in its order.
func takeInTurn[T any](lists [][]T, max int) []T {
	taken := make([]int, len(lists))
	for n, more := 0, true; more && n < max; {
		more = false
		for i := range lists {
			if n < max && taken[i] < len(lists[i]) {
				taken[i]++
				n++
				more = true
			}
		}
	}
	var out []T
	for i, l := range lists {
		out = append(out, l[:taken[i]]...)
	}
	return out
}

// stepDuration is a deterministic duration for an action, in
// milliseconds.
func stepDuration(action string, docs int) int64 {
	h := fnv.New32a()
	h.Write([]byte(action))
	return int64(180+h.Sum32()%420) + int64(60*docs)
}

// classifyDocuments (Document Classification) tells each document's type:
// a warning for an unreadable or unrecognised one, a failure when the
// schema asks for a document number and no identity document is among
// them.
func (r *run) classifyDocuments(PolicyAction) outcome {
	var kinds, odd, names, kindKeys []string
	for _, d := range r.docs {
		kinds = append(kinds, fmt.Sprintf("%s: %s", d.item.Name, label(d.kind)))
		names, kindKeys = append(names, d.item.Name), append(kindKeys, d.kind)
		if !d.item.Readable || d.kind == "document" {
			odd = append(odd, d.item.Name)
		}
	}
	o := outcome{result: profilesvc.FindingPassed, answer: strings.Join(kinds, "; ") + ".",
		reasoning: "Read each document's title and wording to tell its type."}
	o.details = fmt.Sprintf("%d documents classified: %s.", len(r.docs), strings.Join(kinds, "; "))
	facts := []Fact{{Key: FactClassified, Numbers: []int{len(r.docs)}, Documents: names, Kinds: kindKeys}}
	if len(odd) > 0 {
		o.result = profilesvc.FindingWarning
		o.details += " Not recognised or not readable: " + strings.Join(odd, ", ") + "."
		facts = append(facts, Fact{Key: FactUnclassified, Documents: odd})
		o.recommendation = r.say("Check by hand the documents that could not be classified: "+strings.Join(odd, ", ")+".",
			Fact{Key: FactRecUnclassified, Documents: odd})
	}
	if slices.Contains(r.fields, "document_number") && !r.hasIdentityDocument() {
		o.result = profilesvc.FindingFailed
		o.details += " No identity document (passport, driver's licence or national ID) was provided."
		facts = append(facts, Fact{Key: FactNoIdentity})
		o.recommendation = r.say("Ask the applicant for an identity document: a passport, a driver's licence or a national ID card.",
			Fact{Key: FactRecNoIdentity})
	}
	o.details = r.say(o.details, facts...)
	return o
}

// extractData (Data Extraction) reads the schema's fields: a failure when
// none could be read, a warning when a field a document's type requires is
// shown by no document.
func (r *run) extractData(PolicyAction) outcome {
	var found []string
	for _, f := range r.fields {
		if r.shows(f) {
			found = append(found, f)
		}
	}
	o := outcome{result: profilesvc.FindingPassed, citations: r.cite(found),
		reasoning: "Searched the documents for the schema's fields and read their values."}
	o.answer = fmt.Sprintf("Extracted %d of %d fields: %s.", len(found), len(r.fields), labels(found))
	extracted := Fact{Key: FactExtracted, Numbers: []int{len(found), len(r.fields)}, Fields: found}
	needed := r.requiredMissing()
	switch {
	case len(found) == 0:
		o.result = profilesvc.FindingFailed
		o.details = r.say("No field of the schema could be read from the documents.", Fact{Key: FactExtractedNone})
		o.recommendation = r.say("Ask for legible identity documents: none of the expected fields could be read.",
			Fact{Key: FactRecIllegible})
	case len(needed) > 0:
		o.result = profilesvc.FindingWarning
		o.details = r.say(o.answer+" Missing required fields: "+labels(needed)+".", extracted, Fact{Key: FactMissing, Fields: needed})
		o.recommendation = r.say("Ask the applicant for a document that shows "+labels(needed)+".",
			Fact{Key: FactRecMissing, Fields: needed})
	default:
		o.details = r.say(o.answer, extracted)
	}
	return o
}

// requiredMissing lists the required fields of the recognised documents
// (of those the schema asks for) that no document shows.
func (r *run) requiredMissing() []string {
	need := map[string]bool{}
	for _, d := range r.docs {
		for _, f := range requiredFields[d.kind] {
			if slices.Contains(r.fields, f) {
				need[f] = true
			}
		}
	}
	var out []string
	for _, f := range sortedKeys(need) {
		if !r.shows(f) {
			out = append(out, f)
		}
	}
	return out
}

var docNumberPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 -]{3,24}[A-Za-z0-9]$`)

// validateFormats (Format Validation) fails on a date that does not parse
// or a malformed document number.
func (r *run) validateFormats(PolicyAction) outcome {
	type malformed struct{ text, field, doc, value string }
	var bad []malformed
	for _, d := range r.docs {
		for f, v := range d.values {
			if strings.Contains(f, "date") {
				if _, ok := parseDate(v); !ok {
					bad = append(bad, malformed{fmt.Sprintf("%s in %s (%q)", label(f), d.item.Name, v), f, d.item.Name, v})
				}
			}
			if f == "document_number" && !docNumberPattern.MatchString(v) {
				bad = append(bad, malformed{fmt.Sprintf("document number in %s (%q)", d.item.Name, v), f, d.item.Name, v})
			}
		}
	}
	slices.SortFunc(bad, func(a, b malformed) int { return strings.Compare(a.text, b.text) })
	o := outcome{result: profilesvc.FindingPassed, reasoning: "Parsed every date and checked the document numbers' form.",
		answer: "Every date and document number is well formed."}
	o.details = r.say(o.answer, Fact{Key: FactFormatsOK})
	if len(bad) > 0 {
		var texts []string
		fact := Fact{Key: FactMalformed}
		for _, b := range bad {
			texts = append(texts, b.text)
			fact.Fields, fact.Documents, fact.Values = append(fact.Fields, b.field), append(fact.Documents, b.doc), append(fact.Values, b.value)
		}
		o.result = profilesvc.FindingFailed
		o.answer = "Malformed values: " + strings.Join(texts, "; ") + "."
		o.details = r.say(o.answer, fact)
		fact.Key = FactRecMalformed
		o.recommendation = r.say("Correct or re-submit the malformed values: "+strings.Join(texts, "; ")+".", fact)
	}
	return o
}

// checkExpiry (Status Validation) fails on an expired document.
func (r *run) checkExpiry(PolicyAction) outcome {
	day := r.in.RequestedAt.Format(time.DateOnly)
	o := outcome{result: profilesvc.FindingPassed, reasoning: "Compared each expiry date with the date of the analysis.",
		answer: "No document has expired.", details: r.say("No document has expired as of "+day+".", Fact{Key: FactNoneExpired, Date: day})}
	if len(r.expired) > 0 {
		o.result = profilesvc.FindingFailed
		o.answer = "Expired: " + strings.Join(r.expired, ", ") + "."
		o.details = r.say(o.answer, Fact{Key: FactExpired, Documents: r.expired})
		o.recommendation = r.say("Ask for a current replacement of the expired document: "+strings.Join(r.expired, ", ")+".",
			Fact{Key: FactRecExpired, Documents: r.expired})
	}
	return o
}

// checkConsistency (Data Consistency) fails on a value the documents
// disagree on and warns of a value only one document shows.
func (r *run) checkConsistency(PolicyAction) outcome {
	cited := append(append([]string{}, r.fails...), r.reviews...)
	if len(cited) == 0 {
		cited = r.fields
	}
	o := outcome{result: profilesvc.FindingPassed, citations: r.cite(cited),
		reasoning: "Compared each extracted value across the documents that show it.",
		answer:    "The documents agree on every value they share."}
	var single []string
	for _, f := range r.reviews {
		if r.shows(f) {
			single = append(single, f)
		}
	}
	switch {
	case len(r.fails) > 0:
		o.result = profilesvc.FindingFailed
		o.answer = "The documents disagree on " + labels(r.fails) + "."
		o.details = r.say(o.answer, Fact{Key: FactDisagree, Fields: r.fails})
		o.recommendation = r.say("Resolve the mismatch in "+labels(r.fails)+" with the applicant before going further.",
			Fact{Key: FactRecDisagree, Fields: r.fails})
	case len(single) > 0:
		o.result = profilesvc.FindingWarning
		o.answer = "Shown by one document only: " + labels(single) + "."
		o.details = r.say(o.answer, Fact{Key: FactSingle, Fields: single})
		o.recommendation = r.say("Confirm "+labels(single)+" with a second document.", Fact{Key: FactRecSingle, Fields: single})
	default:
		o.details = r.say(o.answer, Fact{Key: FactAgreeShared})
	}
	return o
}

// lookUpRegistry (mcp) calls a simulated registry tool with the first
// document number: passed when there is one, a warning with retrieval
// fallback when there is none.
func (r *run) lookUpRegistry(act PolicyAction) outcome {
	number := ""
	for _, d := range r.docs {
		if v, ok := d.values["document_number"]; ok {
			number = v
			break
		}
	}
	call := &profilesvc.MCPToolCall{
		ToolName: "document_registry.lookup", EngineCode: "REGISTRY_SIM", EngineName: "Simulated document registry",
		Params: profilesvc.Object{"documentNumber": number}, ExecutionTimeMs: float64(stepDuration(act.ActionName, 0) / 3),
		SelectionReason: "The policy asks for a registry check of the document number.",
	}
	o := outcome{reasoning: "Called the registry tool with the extracted document number.", tool: call}
	if number == "" {
		call.Success = false
		call.FallbackToRAG = true
		call.RawContent = profilesvc.Object{"status": "skipped", "reason": "no document number"}
		o.result = profilesvc.FindingWarning
		o.answer = "No document number to look up; fell back to reading the documents."
		o.details = r.say(o.answer, Fact{Key: FactRegistryNone})
		o.citations = r.cite([]string{"full_name"})
		o.recommendation = r.say("Verify the applicant's identity document with the issuing authority by hand.", Fact{Key: FactRecRegistry})
		return o
	}
	call.Success = true
	call.RawContent = profilesvc.Object{"status": "found", "documentNumber": number, "registry": "simulated"}
	o.result = profilesvc.FindingPassed
	o.answer = fmt.Sprintf("Document %s is on record with the (simulated) registry.", number)
	o.details = r.say(o.answer, Fact{Key: FactRegistryFound, Values: []string{number}})
	return o
}

// compileReview (Document Processing) gathers the earlier findings; it
// always passes.
func (r *run) compileReview(PolicyAction) outcome {
	return outcome{result: profilesvc.FindingPassed, reasoning: "Gathered the findings of the earlier steps.",
		answer: fmt.Sprintf("Reviewed %d documents.", len(r.docs)),
		details: r.say(fmt.Sprintf("Reviewed %d documents and compiled the decision.", len(r.docs)),
			Fact{Key: FactReviewed, Numbers: []int{len(r.docs)}})}
}

// genericAction runs an action of a category the engine does not know: it
// passes.
func (r *run) genericAction(act PolicyAction) outcome {
	return outcome{result: profilesvc.FindingPassed, reasoning: "Ran the action over the documents.",
		answer: "Done.", details: r.say(fmt.Sprintf("%s ran over %d documents.", act.ActionName, len(r.docs)),
			Fact{Key: FactRanOver, Actions: []string{act.ActionName}, Numbers: []int{len(r.docs)}})}
}
