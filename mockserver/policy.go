package mockserver

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/profilesvc/profilesvc-go"
)

// policyRun carries what the engine learned about the documents to the
// actions of the policy.
type policyRun struct {
	in                           AnalysisInput
	docs                         []*doc
	fields                       []string
	fails, reviews               []string
	expired, invalid, unreadable []string
}

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

func (p *policyRun) chunkCount() int {
	n := 0
	for _, d := range p.docs {
		n += len(d.chunks)
	}
	return n
}

// cite returns citations of the passages that hold the given values.
func (p *policyRun) cite(fields []string) []profilesvc.Object {
	out := []profilesvc.Object{}
	for _, d := range p.docs {
		for _, c := range d.chunks {
			for _, f := range fields {
				v, ok := d.values[f]
				if ok && strings.Contains(c.text, v) {
					out = append(out, profilesvc.Object{
						"itemId": d.item.ID, "chunkIndex": c.index, "start": c.start, "end": c.end,
						"text": strings.TrimSpace(c.text), "field": f,
					})
					break
				}
			}
		}
	}
	return out
}

var docNumberPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 -]{3,24}[A-Za-z0-9]$`)

// run carries out one action by its category.
func (p *policyRun) run(act PolicyAction) outcome {
	switch act.Category {
	case profilesvc.CategoryDocumentClassification:
		var kinds, odd []string
		for _, d := range p.docs {
			kinds = append(kinds, fmt.Sprintf("%s: %s", d.item.Name, label(d.kind)))
			if !d.item.Readable || d.kind == "document" {
				odd = append(odd, d.item.Name)
			}
		}
		o := outcome{result: profilesvc.FindingPassed, answer: strings.Join(kinds, "; ") + ".",
			reasoning: "Read each document's title and wording to tell its type."}
		o.details = fmt.Sprintf("%d documents classified: %s.", len(p.docs), strings.Join(kinds, "; "))
		if len(odd) > 0 {
			o.result = profilesvc.FindingWarning
			o.details += " Not recognised or not readable: " + strings.Join(odd, ", ") + "."
			o.recommendation = "Check by hand the documents that could not be classified: " + strings.Join(odd, ", ") + "."
		}
		if contains(p.fields, "document_number") && !p.hasIdentityDocument() {
			o.result = profilesvc.FindingFailed
			o.details += " No identity document (passport, driver's licence or national ID) was provided."
			o.recommendation = "Ask the applicant for an identity document: a passport, a driver's licence or a national ID card."
		}
		return o

	case profilesvc.CategoryDataExtraction:
		var found []string
		for _, f := range p.fields {
			got := false
			for _, d := range p.docs {
				if _, ok := d.values[f]; ok {
					got = true
				}
			}
			if got {
				found = append(found, f)
			}
		}
		o := outcome{result: profilesvc.FindingPassed, citations: p.cite(found),
			reasoning: "Searched the documents for the schema's fields and read their values."}
		o.answer = fmt.Sprintf("Extracted %d of %d fields: %s.", len(found), len(p.fields), labels(found))
		o.details = o.answer
		needed := p.requiredMissing()
		switch {
		case len(found) == 0:
			o.result = profilesvc.FindingFailed
			o.details = "No field of the schema could be read from the documents."
			o.recommendation = "Ask for legible identity documents: none of the expected fields could be read."
		case len(needed) > 0:
			o.result = profilesvc.FindingWarning
			o.details += " Missing required fields: " + labels(needed) + "."
			o.recommendation = "Ask the applicant for a document that shows " + labels(needed) + "."
		}
		return o

	case profilesvc.CategoryFormatValidation:
		var bad []string
		for _, d := range p.docs {
			for f, v := range d.values {
				if strings.Contains(f, "date") {
					if _, ok := parseDate(v); !ok {
						bad = append(bad, fmt.Sprintf("%s in %s (%q)", label(f), d.item.Name, v))
					}
				}
				if f == "document_number" && !docNumberPattern.MatchString(v) {
					bad = append(bad, fmt.Sprintf("document number in %s (%q)", d.item.Name, v))
				}
			}
		}
		sortStrings(bad)
		o := outcome{result: profilesvc.FindingPassed, reasoning: "Parsed every date and checked the document numbers' form.",
			answer: "Every date and document number is well formed.", details: "Every date and document number is well formed."}
		if len(bad) > 0 {
			o.result = profilesvc.FindingFailed
			o.answer = "Malformed values: " + strings.Join(bad, "; ") + "."
			o.details = o.answer
			o.recommendation = "Correct or re-submit the malformed values: " + strings.Join(bad, "; ") + "."
		}
		return o

	case profilesvc.CategoryStatusValidation:
		o := outcome{result: profilesvc.FindingPassed, reasoning: "Compared each expiry date with the date of the analysis.",
			answer: "No document has expired.", details: "No document has expired as of " + p.in.RequestedAt.Format("2006-01-02") + "."}
		if len(p.expired) > 0 {
			o.result = profilesvc.FindingFailed
			o.answer = "Expired: " + strings.Join(p.expired, ", ") + "."
			o.details = o.answer
			o.recommendation = "Ask for a current replacement of the expired document: " + strings.Join(p.expired, ", ") + "."
		}
		return o

	case profilesvc.CategoryDataConsistency:
		cited := append(append([]string{}, p.fails...), p.reviews...)
		if len(cited) == 0 {
			cited = p.fields
		}
		o := outcome{result: profilesvc.FindingPassed, citations: p.cite(cited),
			reasoning: "Compared each extracted value across the documents that show it.",
			answer:    "The documents agree on every value they share.", details: "The documents agree on every value they share."}
		var single []string
		for _, f := range p.reviews {
			for _, d := range p.docs {
				if _, ok := d.values[f]; ok {
					single = append(single, f)
					break
				}
			}
		}
		switch {
		case len(p.fails) > 0:
			o.result = profilesvc.FindingFailed
			o.answer = "The documents disagree on " + labels(p.fails) + "."
			o.details = o.answer
			o.recommendation = "Resolve the mismatch in " + labels(p.fails) + " with the applicant before going further."
		case len(single) > 0:
			o.result = profilesvc.FindingWarning
			o.answer = "Shown by one document only: " + labels(single) + "."
			o.details = o.answer
			o.recommendation = "Confirm " + labels(single) + " with a second document."
		}
		return o

	case profilesvc.CategoryMCP:
		number := ""
		for _, d := range p.docs {
			if v, ok := d.values["document_number"]; ok {
				number = v
				break
			}
		}
		call := &profilesvc.MCPToolCall{
			ToolName: "document_registry.lookup", EngineCode: "REGISTRY_SIM", EngineName: "Simulated document registry",
			Params: profilesvc.Object{"documentNumber": number}, ExecutionTimeMs: stepDuration(act.ActionName, 0) / 3,
			SelectionReason: "The policy asks for a registry check of the document number.",
		}
		o := outcome{reasoning: "Called the registry tool with the extracted document number.", tool: call}
		if number == "" {
			call.Success = false
			call.FallbackToRAG = true
			call.RawContent = profilesvc.Object{"status": "skipped", "reason": "no document number"}
			o.result = profilesvc.FindingWarning
			o.answer = "No document number to look up; fell back to reading the documents."
			o.details = o.answer
			o.citations = p.cite([]string{"full_name"})
			o.recommendation = "Verify the applicant's identity document with the issuing authority by hand."
			return o
		}
		call.Success = true
		call.RawContent = profilesvc.Object{"status": "found", "documentNumber": number, "registry": "simulated"}
		o.result = profilesvc.FindingPassed
		o.answer = fmt.Sprintf("Document %s is on record with the (simulated) registry.", number)
		o.details = o.answer
		return o

	case profilesvc.CategoryDocumentProcessing:
		return outcome{result: profilesvc.FindingPassed, reasoning: "Gathered the findings of the earlier steps.",
			answer:  fmt.Sprintf("Reviewed %d documents.", len(p.docs)),
			details: fmt.Sprintf("Reviewed %d documents and compiled the decision.", len(p.docs))}
	}
	return outcome{result: profilesvc.FindingPassed, reasoning: "Ran the action over the documents.",
		answer: "Done.", details: fmt.Sprintf("%s ran over %d documents.", act.ActionName, len(p.docs))}
}

// requiredMissing lists the required fields of the recognised documents
// that no document shows.
func (p *policyRun) requiredMissing() []string {
	need := map[string]bool{}
	for _, d := range p.docs {
		for _, f := range requiredFields[d.kind] {
			if contains(p.fields, f) {
				need[f] = true
			}
		}
	}
	var out []string
	for _, f := range sortedKeys(need) {
		got := false
		for _, d := range p.docs {
			if _, ok := d.values[f]; ok {
				got = true
			}
		}
		if !got {
			out = append(out, f)
		}
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// hasIdentityDocument reports whether a readable identity document is among
// the documents.
func (p *policyRun) hasIdentityDocument() bool {
	for _, d := range p.docs {
		if d.item.Readable && contains(identityKinds, d.kind) {
			return true
		}
	}
	return false
}
