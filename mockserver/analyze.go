package mockserver

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/profilesvc/profilesvc-go"
)

// The default engine: a deterministic simulation of a document review.
//
//  1. It reads key/value pairs from each target item: the fields of JSON
//     (at any depth), "Key: value" lines of text, and the header and first
//     row of CSV. Keys match the schema's field names regardless of case
//     and separators ("Date of Birth" is date_of_birth), and a few common
//     synonyms (DOB, passport number, valid until...).
//  2. It compares each field across documents: pass when the documents
//     that have it agree, fail when they differ, needs_review when only one
//     has it, unverifiable when none does.
//  3. It recognises each document's type (passport, driver's licence,
//     national ID, bank statement, utility bill, payslip) and checks its
//     required fields and expiry date against the analysis's start. When
//     the schema asks for a document number, the profile needs an identity
//     document (passport, driver's licence or national ID) among them.
//  4. Each action of the workflow's policy yields a finding: passed,
//     warning or failed. Risk score = 40 per failed + 10 per warning, at
//     most 100; risk level low below 25, medium below 60, high from 60.
//     Low approves, medium asks for manual review, high rejects.

// Risk thresholds of the default engine.
const (
	riskPerFailure = 40
	riskPerWarning = 10
	mediumRiskFrom = 25
	highRiskFrom   = 60
)

// riskLevel grades a score.
func riskLevel(score float64) profilesvc.RiskLevel {
	switch {
	case score >= highRiskFrom:
		return profilesvc.RiskHigh
	case score >= mediumRiskFrom:
		return profilesvc.RiskMedium
	}
	return profilesvc.RiskLow
}

// doc is one target item as the engine sees it.
type doc struct {
	item   InputItem
	key    string            // its name in document_validations
	kind   string            // recognised type, or "document"
	values map[string]string // schema field -> value
	chunks []chunk
}

// chunk is a passage of a document's text, for citations.
type chunk struct {
	index, start, end int
	text              string
}

var synonyms = map[string]string{
	"name": "full_name", "fullname": "full_name", "holdername": "full_name", "accountholder": "full_name",
	"customername": "full_name", "employeename": "full_name",
	"dob": "date_of_birth", "birthdate": "date_of_birth", "dateofbirth": "date_of_birth",
	"passportnumber": "document_number", "passportno": "document_number", "documentno": "document_number",
	"idnumber": "document_number", "licencenumber": "document_number", "licensenumber": "document_number",
	"expiry": "expiry_date", "expires": "expiry_date", "expirationdate": "expiry_date", "dateofexpiry": "expiry_date",
	"validuntil": "expiry_date", "expirydate": "expiry_date",
	"residentialaddress": "address", "homeaddress": "address",
	"netpay": "monthly_income", "monthlysalary": "monthly_income",
}

// normKey folds a key to letters and digits in lower case.
func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var kvLine = regexp.MustCompile(`^\s*([\p{L}][\p{L}\p{N} _\-/'.()]{0,48}?)\s*[:=]\s*(\S.*?)\s*$`)

// pairs reads the key/value pairs of a document, in order of appearance.
func pairs(it InputItem) [][2]string {
	var out [][2]string
	text := strings.TrimSpace(it.Text)
	if text == "" {
		return nil
	}
	if it.Type == profilesvc.ItemJSON || it.ContentType == "application/json" || strings.HasPrefix(text, "{") {
		var v any
		if json.Unmarshal([]byte(text), &v) == nil {
			flatten("", v, &out)
			return out
		}
	}
	if it.ContentType == "text/csv" {
		r := csv.NewReader(strings.NewReader(text))
		r.FieldsPerRecord = -1
		if rows, err := r.ReadAll(); err == nil && len(rows) >= 2 {
			for i, h := range rows[0] {
				if i < len(rows[1]) {
					out = append(out, [2]string{h, rows[1][i]})
				}
			}
			return out
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if m := kvLine.FindStringSubmatch(line); m != nil {
			out = append(out, [2]string{m[1], m[2]})
		}
	}
	return out
}

func flatten(prefix string, v any, out *[][2]string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(k, x[k], out)
		}
	case []any:
		for _, e := range x {
			flatten(prefix, e, out)
		}
	case nil:
	default:
		if prefix != "" {
			*out = append(*out, [2]string{prefix, strings.TrimSpace(fmt.Sprint(x))})
		}
	}
}

// dateLayouts are the date forms the engine reads.
var dateLayouts = []string{"2006-01-02", "02/01/2006", "2006/01/02", "02.01.2006", "2 January 2006", "January 2, 2006", "02 Jan 2006", "2 Jan 2006", "Jan 2, 2006", time.RFC3339}

func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// normValue folds a value for comparison: dates to ISO form, text to lower
// case with single spaces.
func normValue(field, v string) string {
	if strings.Contains(field, "date") || field == "date_of_birth" {
		if t, ok := parseDate(v); ok {
			return t.Format("2006-01-02")
		}
	}
	return strings.Join(strings.Fields(strings.ToLower(v)), " ")
}

// recognise tells a document's type from its name and text.
func recognise(it InputItem) string {
	hay := strings.ToLower(it.Name + " " + it.Text)
	for _, k := range []struct{ kind, words string }{
		{"passport", "passport"},
		{"drivers_licence", "driver's licen|driving licen|drivers licen|driver licen|driver_licen"},
		{"national_id", "national id|identity card|id card|national_id"},
		{"bank_statement", "bank statement|account statement|bank_statement|iban|sort code"},
		{"utility_bill", "utility bill|electricity|water bill|gas bill|utility_bill"},
		{"payslip", "payslip|pay slip|salary statement|net pay"},
	} {
		for _, w := range strings.Split(k.words, "|") {
			if strings.Contains(hay, w) {
				return k.kind
			}
		}
	}
	return "document"
}

// requiredFields lists what each recognised type must show.
var requiredFields = map[string][]string{
	"passport":        {"full_name", "date_of_birth", "document_number", "expiry_date"},
	"drivers_licence": {"full_name", "date_of_birth", "document_number", "expiry_date"},
	"national_id":     {"full_name", "date_of_birth", "document_number"},
	"bank_statement":  {"full_name", "address"},
	"utility_bill":    {"full_name", "address"},
	"payslip":         {"full_name"},
}

// chunkText splits text into passages of about 240 bytes on line breaks.
func chunkText(text string) []chunk {
	var out []chunk
	start := 0
	for start < len(text) {
		end := min(start+240, len(text))
		if end < len(text) {
			if nl := strings.LastIndexByte(text[start:end], '\n'); nl > 0 {
				end = start + nl + 1
			}
		}
		out = append(out, chunk{index: len(out), start: start, end: end, text: text[start:end]})
		start = end
	}
	return out
}

// analyze is the default engine.
func analyze(in AnalysisInput) (AnalysisResult, error) {
	props, topKeys := schemaProperties(in.Workflow.OutputSchema)
	fields := extractedFieldNames(props)
	fieldByNorm := map[string]string{}
	for _, f := range fields {
		fieldByNorm[normKey(f)] = f
	}

	// Read the documents.
	docs := make([]*doc, len(in.Items))
	kindCount := map[string]int{}
	for i, it := range in.Items {
		d := &doc{item: it, kind: recognise(it), values: map[string]string{}, chunks: chunkText(it.Text)}
		kindCount[d.kind]++
		d.key = d.kind
		if kindCount[d.kind] > 1 {
			d.key = fmt.Sprintf("%s_%d", d.kind, kindCount[d.kind])
		}
		for _, kv := range pairs(it) {
			nk := normKey(kv[0])
			f, ok := fieldByNorm[nk]
			if !ok {
				if syn, ok2 := synonyms[nk]; ok2 && contains(fields, syn) {
					f, ok = syn, true
				}
			}
			if ok && kv[1] != "" {
				if _, seen := d.values[f]; !seen {
					d.values[f] = kv[1]
				}
			}
		}
		docs[i] = d
	}

	// Compare each field across documents.
	extracted := map[string]any{}
	judgements := map[string]any{}
	var fails, reviews []string
	for _, f := range fields {
		var holders []*doc
		for _, d := range docs {
			if _, ok := d.values[f]; ok {
				holders = append(holders, d)
			}
		}
		res, reason := profilesvc.CheckUnverifiable, fmt.Sprintf("No document shows %s.", label(f))
		switch len(holders) {
		case 0:
			extracted[f] = nil
		case 1:
			extracted[f] = holders[0].values[f]
			res, reason = profilesvc.CheckNeedsReview, fmt.Sprintf("Only %s shows %s; nothing to compare it with.", holders[0].item.Name, label(f))
		default:
			extracted[f] = holders[0].values[f]
			first := normValue(f, holders[0].values[f])
			agree := true
			var diff []string
			for _, d := range holders {
				diff = append(diff, fmt.Sprintf("%s: %q", d.item.Name, d.values[f]))
				if normValue(f, d.values[f]) != first {
					agree = false
				}
			}
			if agree {
				res, reason = profilesvc.CheckPass, fmt.Sprintf("%d documents agree on %s.", len(holders), label(f))
			} else {
				res, reason = profilesvc.CheckFail, fmt.Sprintf("The documents disagree on %s (%s).", label(f), strings.Join(diff, "; "))
				fails = append(fails, f)
			}
		}
		if res == profilesvc.CheckNeedsReview || res == profilesvc.CheckUnverifiable {
			reviews = append(reviews, f)
		}
		judgements[f+"_check_result"] = res
		judgements[f+"_check_reason"] = reason
	}
	overall, overallReason := profilesvc.CheckPass, "Every value shown by more than one document agrees."
	switch {
	case len(fails) > 0:
		overall, overallReason = profilesvc.CheckFail, "The documents disagree on "+labels(fails)+"."
	case len(reviews) > 0:
		overall, overallReason = profilesvc.CheckNeedsReview, "These values could not be confirmed by a second document: "+labels(reviews)+"."
	}
	judgements["overall_consistency_result"] = overall
	judgements["overall_consistency_reason"] = overallReason

	// Validate each document.
	validations := map[string]any{}
	var expired, invalid, unreadable []string
	for _, d := range docs {
		valid, reason := true, ""
		var missing []string
		for _, f := range requiredFields[d.kind] {
			// Only what the schema asks for can be required.
			if _, ok := d.values[f]; !ok && contains(fields, f) {
				missing = append(missing, f)
			}
		}
		exp, hasExp := d.values["expiry_date"]
		expT, expOK := parseDate(exp)
		switch {
		case !d.item.Readable:
			valid, reason = false, fmt.Sprintf("%s could not be read (%s); it needs a person to check it.", d.item.Name, d.item.ContentType)
			unreadable = append(unreadable, d.item.Name)
		case d.kind == "document":
			valid, reason = false, fmt.Sprintf("%s is not a recognised document type.", d.item.Name)
		case len(missing) > 0:
			valid, reason = false, fmt.Sprintf("%s (%s) lacks %s.", d.item.Name, label(d.kind), labels(missing))
		case hasExp && expOK && expT.Before(in.RequestedAt):
			valid, reason = false, fmt.Sprintf("%s (%s) expired on %s.", d.item.Name, label(d.kind), expT.Format("2006-01-02"))
			expired = append(expired, d.item.Name)
		default:
			reason = fmt.Sprintf("%s is a %s with every required field", d.item.Name, label(d.kind))
			if hasExp && expOK {
				reason += ", valid until " + expT.Format("2006-01-02")
			}
			reason += "."
		}
		if !valid && d.item.Readable && d.kind != "document" && !(hasExp && expOK && expT.Before(in.RequestedAt)) {
			invalid = append(invalid, d.item.Name)
		}
		validations[d.key+"_is_valid"] = valid
		validations[d.key+"_is_valid_reason"] = reason
	}

	// Run the policy.
	st := &policyRun{in: in, docs: docs, fields: fields, fails: fails, reviews: reviews,
		expired: expired, invalid: invalid, unreadable: unreadable}
	res := AnalysisResult{
		RawActionResults: map[string]profilesvc.RawActionResult{},
		ExtractionStatus: map[string]profilesvc.ExtractionStatus{},
	}
	var failed, warned []string
	targetIDs := make([]string, len(docs))
	for i, d := range docs {
		targetIDs[i] = d.item.ID
	}
	for i, act := range in.Workflow.Policy {
		out := st.run(act)
		workID := i + 1
		dur := stepDuration(act.ActionName, len(docs))
		verification := map[profilesvc.FindingResult]profilesvc.StepStatus{
			profilesvc.FindingPassed: profilesvc.StepPassed, profilesvc.FindingWarning: profilesvc.StepNeedsReview,
			profilesvc.FindingFailed: profilesvc.StepFailed,
		}[out.result]
		entry := profilesvc.AuditLogEntry{
			WorkID: workID, ActionName: act.ActionName, Category: act.Category, Query: act.Query,
			Reasoning: out.reasoning, Success: true, Iteration: 1, DurationMs: dur,
			VerificationStatus: verification, TargetItemIDs: targetIDs,
		}
		if out.citations != nil {
			entry.RAGResponse = &profilesvc.RAGResponse{
				Answer: out.answer, Citations: out.citations, ChunksSearched: st.chunkCount(),
				ProcessingTimeMs: dur / 2,
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
		res.ProcessingTimeMs += dur
		switch out.result {
		case profilesvc.FindingFailed:
			failed = append(failed, act.ActionName)
		case profilesvc.FindingWarning:
			warned = append(warned, act.ActionName)
		}
		if out.recommendation != "" {
			prio := 2
			if out.result == profilesvc.FindingFailed {
				prio = 1
			}
			res.Recommendations = append(res.Recommendations, profilesvc.Recommendation{Content: out.recommendation, Priority: prio})
		}
	}
	res.SystemMetadata.TotalIterations = 1
	if res.SystemMetadata.CompletedWorkIDs == nil {
		res.SystemMetadata.CompletedWorkIDs = []int{}
	}

	// Grade the risk.
	score := float64(min(100, riskPerFailure*len(failed)+riskPerWarning*len(warned)))
	var factors []string
	for _, f := range failed {
		factors = append(factors, "failed: "+f)
	}
	for _, w := range warned {
		factors = append(factors, "warning: "+w)
	}
	if v, ok := magic(in, "risk"); ok {
		switch profilesvc.RiskLevel(v) {
		case profilesvc.RiskLow:
			score = 10
		case profilesvc.RiskMedium:
			score = 45
		case profilesvc.RiskHigh:
			score = 85
		}
		factors = append(factors, "scripted outcome: mock:risk="+v)
	}
	if factors == nil {
		factors = []string{}
	}
	level := riskLevel(score)
	res.RiskAssessment = profilesvc.RiskAssessment{RiskLevel: level, RiskScore: score, RiskFactors: factors}
	if len(res.Recommendations) == 0 {
		res.Recommendations = append(res.Recommendations, profilesvc.Recommendation{
			Content: "No issue found: the profile can be approved.", Priority: 3})
	}
	sort.SliceStable(res.Recommendations, func(i, j int) bool { return res.Recommendations[i].Priority < res.Recommendations[j].Priority })
	for i := range res.Recommendations {
		res.Recommendations[i].SortOrder = i + 1
	}

	action, actionReason := profilesvc.ActionApprove, "Every check passed or raised only minor warnings."
	switch level {
	case profilesvc.RiskMedium:
		action, actionReason = profilesvc.ActionManualReview, "Some checks need a person's review: "+strings.Join(append(append([]string{}, failed...), warned...), ", ")+"."
	case profilesvc.RiskHigh:
		action, actionReason = profilesvc.ActionReject, "Several checks failed: "+strings.Join(failed, ", ")+"."
	}
	if len(failed) == 0 && level == profilesvc.RiskHigh {
		actionReason = "The risk was scripted as high."
	}
	flags := []string{}
	for _, f := range fails {
		flags = append(flags, "data_mismatch:"+f)
	}
	for _, n := range expired {
		flags = append(flags, "expired_document:"+n)
	}
	for _, n := range unreadable {
		flags = append(flags, "unreadable_document:"+n)
	}
	for _, n := range invalid {
		flags = append(flags, "incomplete_document:"+n)
	}
	if contains(fields, "document_number") && !st.hasIdentityDocument() {
		flags = append(flags, "missing_identity_document")
	}
	steps := []string{}
	for _, r := range res.Recommendations {
		steps = append(steps, r.Content)
	}

	// Fill the schema's fields.
	data := map[string]any{}
	for _, k := range topKeys {
		switch k {
		case "request_id":
			data[k] = in.Profile.ID
		case "review_result":
			data[k] = map[string]any{
				"final_action": action, "final_risk_level": level, "final_action_reason": actionReason,
				"final_risk_level_reason": fmt.Sprintf("Risk score %.0f of 100 from %d failed and %d warning checks.", score, len(failed), len(warned)),
			}
		case "extracted_values":
			data[k] = extracted
		case "category_judgements":
			data[k] = judgements
		case "document_validations":
			data[k] = validations
		case "policy_flags":
			data[k] = flags
		case "recommended_next_steps":
			data[k] = steps
		default:
			data[k] = firstValue(docs, k)
		}
	}
	for _, k := range topKeys {
		res.ExtractionStatus[k] = profilesvc.Extracted
		if isEmpty(data[k]) || (k == "extracted_values" && allNil(extracted)) {
			res.ExtractionStatus[k] = profilesvc.ExtractionMissing
		}
	}
	var err error
	if res.ExtractedData, err = json.Marshal(data); err != nil {
		return AnalysisResult{}, fmt.Errorf("encoding extracted data: %w", err)
	}
	res.OutputSchema = fillSchema(in.Workflow.OutputSchema, data)
	return res, nil
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

func firstValue(docs []*doc, field string) any {
	nk := normKey(field)
	for _, d := range docs {
		for _, kv := range pairs(d.item) {
			if normKey(kv[0]) == nk {
				return kv[1]
			}
		}
	}
	return nil
}

// fillSchema returns the schema with each top-level property's value set.
func fillSchema(schema json.RawMessage, data map[string]any) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil || s == nil {
		s = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	props, _ := s["properties"].(map[string]any)
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

func allNil(m map[string]any) bool {
	for _, v := range m {
		if v != nil {
			return false
		}
	}
	return true
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// label turns a field name into words.
func label(f string) string { return strings.ReplaceAll(f, "_", " ") }

func labels(fs []string) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = label(f)
	}
	return strings.Join(out, ", ")
}

// stepDuration is a deterministic duration for an action.
func stepDuration(action string, docs int) int64 {
	h := fnv.New32a()
	h.Write([]byte(action))
	return int64(180+h.Sum32()%420) + int64(60*docs)
}

// identityKinds are the document types that prove identity.
var identityKinds = []string{"passport", "drivers_licence", "national_id"}
