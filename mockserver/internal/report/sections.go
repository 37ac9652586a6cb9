package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/signintech/gopdf"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// extracted are the parts of the analysis's extracted data a report
// shows, read once; a part that is missing or malformed is nil.
type extracted struct {
	values      map[string]any
	judgements  *profilesvc.CategoryJudgements
	validations profilesvc.DocumentValidations
	review      *profilesvc.ReviewResult
}

// readExtracted reads the parts of extracted data a report shows.
func readExtracted(ed profilesvc.ExtractedData) extracted {
	var out extracted
	out.values, _ = ed.ExtractedValues()
	out.judgements, _ = ed.CategoryJudgements()
	out.validations, _ = ed.DocumentValidations()
	out.review, _ = ed.ReviewResult()
	return out
}

// docRow is an analysed document with all the report knows of it.
type docRow struct {
	itemID, name string
	typ          profilesvc.ItemType
	contentType  string
	uploaded     time.Time // zero when unknown
	size         int64     // -1 when unknown
	sha256       string
	facts        *engine.DocumentFacts // nil when the engine's facts are missing
}

// documents joins the analysed documents with the engine's facts of
// them: Data.Documents, or else the analysis's target items.
func (r *reportWriter) documents() []docRow {
	facts := map[string]*engine.DocumentFacts{}
	for i := range r.d.Facts.Documents {
		facts[r.d.Facts.Documents[i].ItemID] = &r.d.Facts.Documents[i]
	}
	var out []docRow
	if len(r.d.Documents) > 0 {
		for _, d := range r.d.Documents {
			out = append(out, docRow{itemID: d.ItemID, name: d.Name, typ: d.Type, contentType: d.ContentType,
				uploaded: d.UploadedAt, size: d.Size, sha256: d.SHA256, facts: facts[d.ItemID]})
		}
		return out
	}
	for _, t := range r.d.Analysis.TargetItems {
		out = append(out, docRow{itemID: t.ItemID, name: t.Name, typ: t.Type, size: -1, facts: facts[t.ItemID]})
	}
	return out
}

// docName is the name of the document of an item ID, or the ID.
func (r *reportWriter) docName(itemID string) string {
	for _, d := range r.docs {
		if d.itemID == itemID {
			return d.name
		}
	}
	return itemID
}

// haveDocFacts reports whether the engine's facts cover every document.
func (r *reportWriter) haveDocFacts() bool {
	for _, d := range r.docs {
		if d.facts == nil {
			return false
		}
	}
	return len(r.docs) > 0
}

func (r *reportWriter) titleBlock() {
	a := &r.d.Analysis
	r.rect(0, 0, pageW, 96, colBand)
	r.text(marginX, 28, labels.title.in(r.l), textStyle{size: 20, bold: true, color: colWhite})
	r.text(marginX, 58, labels.subtitle.in(r.l), textStyle{size: 10, color: colBandText})
	r.y = 112

	completed := labels.notYet.in(r.l)
	if a.CompletedAt != nil {
		completed = r.l.formatTime(*a.CompletedAt)
	}
	wf := r.d.WorkflowID
	if r.d.WorkflowName != "" {
		wf = fmt.Sprintf("%s (%s)", r.l.workflowName(r.d.WorkflowID, r.d.WorkflowName), r.d.WorkflowID)
	}
	r.keyValues([][2]string{
		{labels.profile.in(r.l), fmt.Sprintf("%s (%s)", r.d.ProfileName, a.ProfileID)},
		{labels.analysisID.in(r.l), a.ID},
		{labels.workflow.in(r.l), wf},
		{labels.requested.in(r.l), r.l.formatTime(a.RequestedAt)},
		{labels.completed.in(r.l), completed},
		{labels.status.in(r.l), r.l.word(labels.statuses, string(a.Status))},
		{labels.verification.in(r.l), r.l.word(labels.verifications, string(a.VerificationStatus))},
	}, 110)
}

// identityFields are the fields of the subject's summary.
var identityFields = []string{"full_name", "date_of_birth", "nationality", "document_number"}

// subjectSection names the profile and shows the identity values the
// documents show, with whether they agree on each.
func (r *reportWriter) subjectSection() {
	r.heading(labels.subject.in(r.l))
	r.paragraph(r.d.ProfileName, marginX, textStyle{size: 13, bold: true, color: colInk})
	r.y += 3
	values, cj := r.ed.values, r.ed.judgements
	var rows []row
	for _, f := range identityFields {
		v, shown := values[f]
		var check profilesvc.FieldCheck
		if cj != nil {
			check = cj.Checks[f]
		}
		if !shown && check.Result == "" {
			continue
		}
		value := cell{text: labels.notShown.in(r.l)}
		if v != nil {
			value.text = fmt.Sprint(v)
		}
		if held := r.holders(f); len(held) > 0 {
			switch check.Result {
			case profilesvc.CheckFail:
				value = cell{text: strings.Join(distinctValues(f, held), " / "), mark: true}
			case profilesvc.CheckNeedsReview:
				value.sub = fmt.Sprintf(labels.onlyIn.in(r.l), held[0][0])
			}
		}
		rows = append(rows, row{cells: []cell{{text: capital(r.l.fieldName(f))}, value,
			{text: r.l.word(labels.checkResults, string(check.Result)), chip: string(check.Result)}}})
	}
	if len(rows) == 0 {
		return
	}
	r.paragraph(labels.subjectNote.in(r.l), marginX, muted)
	r.y += 3
	r.table([]column{{labels.identityValue.in(r.l), 0.26}, {labels.agreedValue.in(r.l), 0.54}, {labels.judgement.in(r.l), 0.20}}, rows)
}

// holders are the documents that show field f, each a name and the
// value it shows, when the engine's facts say so.
func (r *reportWriter) holders(f string) [][2]string {
	var out [][2]string
	for _, d := range r.docs {
		if d.facts == nil {
			continue
		}
		if v, ok := d.facts.Values[f]; ok {
			out = append(out, [2]string{d.name, v})
		}
	}
	return out
}

// distinctValues lists each value of field f once, as the first document
// that shows it writes it, with every document that shows the same (as
// the engine counts values the same).
func distinctValues(f string, held [][2]string) []string {
	var firsts, keys []string // by first showing
	docs := map[string][]string{}
	for _, h := range held {
		key := engine.ValueKey(f, h[1])
		if _, ok := docs[key]; !ok {
			firsts, keys = append(firsts, h[1]), append(keys, key)
		}
		docs[key] = append(docs[key], h[0])
	}
	out := make([]string, len(firsts))
	for i, v := range firsts {
		out[i] = fmt.Sprintf("%s (%s)", v, strings.Join(docs[keys[i]], ", "))
	}
	return out
}

func (r *reportWriter) riskSection() {
	ra := r.d.Analysis.RiskAssessment
	r.heading(labels.riskAssessment.in(r.l))
	if ra == nil {
		r.paragraph(labels.none.in(r.l), marginX, muted)
		return
	}
	r.ensure(90)
	// Badge.
	fg, bg, _ := resultColours(string(ra.RiskLevel))
	r.rect(marginX, r.y, 150, 44, bg)
	r.text(marginX+10, r.y+7, labels.riskLevel.in(r.l), textStyle{size: 8.5, color: fg})
	r.text(marginX+10, r.y+19, r.l.word(labels.levels, string(ra.RiskLevel)), textStyle{size: 17, bold: true, color: fg})
	r.text(marginX+170, r.y+4, fmt.Sprintf("%s: %.0f / 100", labels.riskScore.in(r.l), ra.RiskScore), textStyle{size: 8.5, color: colMuted})
	// Gauge: low, medium and high bands, with a marker at the score.
	gx, gy, gw, gh := marginX+170, r.y+22, contentW-170, 12.0
	medium, high := r.d.MediumRiskFrom, r.d.HighRiskFrom
	for _, b := range []struct {
		from, to float64
		c        rgb
	}{{0, medium, colPassBg}, {medium, high, colWarnBg}, {high, 100, colFailBg}} {
		r.rect(gx+gw*b.from/100, gy, gw*(b.to-b.from)/100, gh, b.c)
	}
	score := max(0, min(100, ra.RiskScore))
	mx := gx + gw*score/100
	r.rect(gx, gy+gh/2-1.5, max(mx-gx, 0.5), 3, fg)
	r.pdf.Polygon([]gopdf.Point{{X: mx - 5, Y: gy - 6}, {X: mx + 5, Y: gy - 6}, {X: mx, Y: gy + 1}}, "F")
	tick := textStyle{size: 7, color: colMuted}
	r.text(gx, gy+gh+3, "0", tick)
	r.text(gx+gw*medium/100-4, gy+gh+3, fmt.Sprint(medium), tick)
	r.text(gx+gw*high/100-4, gy+gh+3, fmt.Sprint(high), tick)
	r.text(gx+gw-12, gy+gh+3, "100", tick)
	r.y += 56
	r.ensure(16)
	r.text(marginX, r.y, labels.riskFactors.in(r.l), textStyle{size: bodySize, bold: true, color: colInk})
	r.y += bodySize * 1.6
	if len(ra.RiskFactors) == 0 {
		r.paragraph(labels.noFactors.in(r.l), marginX, muted)
	}
	for _, f := range ra.RiskFactors {
		r.bullet("•", r.say(f), body)
	}
}

func (r *reportWriter) reviewSection() {
	rr := r.ed.review
	if rr == nil {
		return
	}
	r.heading(labels.reviewResult.in(r.l))
	r.ensure(30)
	fg, bg, _ := resultColours(string(rr.FinalAction))
	r.rect(marginX, r.y, contentW, 24, bg)
	r.text(marginX+10, r.y+6, fmt.Sprintf("%s: %s   ·   %s: %s", labels.finalAction.in(r.l), r.l.word(labels.actions, string(rr.FinalAction)),
		labels.riskLevel.in(r.l), r.l.word(labels.levels, string(rr.FinalRiskLevel))), textStyle{size: 11, bold: true, color: fg})
	r.y += 32
	r.keyValues([][2]string{
		{labels.actionReason.in(r.l), r.say(rr.FinalActionReason)},
		{labels.riskReason.in(r.l), r.say(rr.FinalRiskLevelReason)},
	}, 110)
}

// sortedFindings are the analysis's findings in display order.
func (r *reportWriter) sortedFindings() []profilesvc.Finding {
	fs := append([]profilesvc.Finding(nil), r.d.Analysis.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].SortOrder < fs[j].SortOrder })
	return fs
}

func (r *reportWriter) findingsSection() {
	fs := r.sortedFindings()
	r.heading(labels.findings.in(r.l))
	if len(fs) == 0 {
		r.paragraph(labels.none.in(r.l), marginX, muted)
		return
	}
	rows := make([]row, len(fs))
	for i, f := range fs {
		rows[i] = row{cells: []cell{{text: r.l.actionName(f.Category)},
			{text: r.l.word(labels.results, string(f.Result)), chip: string(f.Result)}, {text: r.say(f.Details)}}}
	}
	r.table([]column{{labels.check.in(r.l), 0.26}, {labels.result.in(r.l), 0.13}, {labels.details.in(r.l), 0.61}}, rows)
}

func (r *reportWriter) recommendationsSection() {
	recs := append([]profilesvc.Recommendation(nil), r.d.Analysis.Recommendations...)
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Priority != recs[j].Priority {
			return recs[i].Priority < recs[j].Priority
		}
		return recs[i].SortOrder < recs[j].SortOrder
	})
	r.heading(labels.recommendations.in(r.l))
	if len(recs) == 0 {
		r.paragraph(labels.none.in(r.l), marginX, muted)
		return
	}
	rows := make([]row, len(recs))
	for i, rec := range recs {
		p := strconv.Itoa(rec.Priority)
		rows[i] = row{cells: []cell{{text: strconv.Itoa(i + 1)},
			{text: p + " · " + r.l.word(labels.priorities, p), chip: "priority_" + p}, {text: r.say(rec.Content)}}}
	}
	r.table([]column{{"#", 0.06}, {labels.priority.in(r.l), 0.16}, {labels.recommendation.in(r.l), 0.78}}, rows)
}

// documentsSection lists every document reviewed: its name and type,
// the type the engine recognised, its upload time, size and fingerprint,
// and whether it could be read and is valid, with the reason when not.
func (r *reportWriter) documentsSection() {
	r.heading(labels.documentsReviewed.in(r.l))
	if len(r.docs) == 0 {
		r.paragraph(labels.none.in(r.l), marginX, muted)
		return
	}
	dv := r.ed.validations
	var rows []row
	for _, d := range r.docs {
		sub := r.l.word(labels.itemTypes, string(d.typ))
		if d.contentType != "" {
			sub += " · " + d.contentType
		}
		unknown := labels.unknown.in(r.l)
		uploaded, size, sha := unknown, unknown, unknown
		if !d.uploaded.IsZero() {
			uploaded = r.l.formatShort(d.uploaded)
		}
		if d.size >= 0 {
			size = byteSize(d.size)
		}
		if len(d.sha256) >= 12 {
			sha = d.sha256[:12]
		}
		detected, readable, valid := cell{text: unknown}, cell{text: unknown}, cell{text: unknown}
		var note string
		if d.facts != nil {
			detected.text = capital(r.l.kindName(d.facts.Kind))
			readable = yesNo(r.l, d.facts.Readable)
			if v, ok := dv[d.facts.ValidationKey]; ok {
				valid = yesNo(r.l, v.IsValid)
				if !v.IsValid {
					note = labels.notValid.in(r.l) + ": " + r.say(v.Reason)
				}
			}
		}
		rows = append(rows, row{cells: []cell{{text: d.name, sub: sub}, detected, {text: uploaded}, {text: size},
			{text: sha, mono: true}, readable, valid}, note: note})
	}
	r.table([]column{{labels.document.in(r.l), 0.24}, {labels.detectedAs.in(r.l), 0.15}, {labels.uploaded.in(r.l), 0.18},
		{labels.size.in(r.l), 0.08}, {labels.fingerprint.in(r.l), 0.15}, {labels.readable.in(r.l), 0.10},
		{labels.valid.in(r.l), 0.10}}, rows)
	if !r.factsNameValidations(dv) {
		r.validationsTable(dv)
	}
}

// factsNameValidations reports whether the engine's facts name the
// document of every entry of document_validations, so that the documents'
// table shows them all.
func (r *reportWriter) factsNameValidations(dv profilesvc.DocumentValidations) bool {
	if !r.haveDocFacts() {
		return len(dv) == 0
	}
	for k := range dv {
		named := false
		for _, d := range r.docs {
			named = named || d.facts.ValidationKey == k
		}
		if !named {
			return false
		}
	}
	return true
}

// factsShowValues reports whether the engine's facts of the documents
// hold every value the analysis extracted, so that they can stand side by
// side for it.
func (r *reportWriter) factsShowValues() bool {
	if !r.haveDocFacts() {
		return false
	}
	for f, v := range r.ed.values {
		if v == nil {
			continue
		}
		if len(r.holders(f)) == 0 {
			return false
		}
	}
	return true
}

// validationsTable shows document_validations as the analysis has them,
// for an analysis whose documents the engine's facts do not name.
func (r *reportWriter) validationsTable(dv profilesvc.DocumentValidations) {
	r.ensure(40)
	r.text(marginX, r.y, labels.documentValidations.in(r.l), textStyle{size: bodySize, bold: true, color: colInk})
	r.y += bodySize * 1.8
	var rows []row
	for _, k := range sortedKeys(dv) {
		v := dv[k]
		rows = append(rows, row{cells: []cell{{text: r.l.validationName(k)}, yesNo(r.l, v.IsValid), {text: r.say(v.Reason)}}})
	}
	r.table([]column{{labels.document.in(r.l), 0.24}, {labels.valid.in(r.l), 0.12}, {labels.reason.in(r.l), 0.64}}, rows)
}

// yesNo is a cell that says yes or no, coloured.
func yesNo(l lang, v bool) cell {
	if v {
		return cell{text: labels.yes.in(l), chip: "true"}
	}
	return cell{text: labels.no.in(l), chip: "false"}
}

// byteSize writes a size in bytes for a person.
func byteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// maxValueColumns is how many documents a table of values shows side by
// side; more documents make more tables.
const maxValueColumns = 4

// valuesSection shows each field's value in each document, side by
// side, the values that disagree marked, with the judgement of each
// field; without the engine's facts, the analysis's one value of each.
func (r *reportWriter) valuesSection() {
	values, cj := r.ed.values, r.ed.judgements
	if len(values) == 0 {
		return
	}
	r.heading(labels.extractedValues.in(r.l))
	check := func(f string) cell {
		if cj == nil {
			return cell{}
		}
		c, ok := cj.Checks[f]
		if !ok {
			return cell{}
		}
		return cell{text: r.l.word(labels.checkResults, string(c.Result)), chip: string(c.Result)}
	}
	fields := sortedKeys(values)
	if !r.factsShowValues() {
		var rows []row
		for _, f := range fields {
			v := labels.notShown.in(r.l)
			if values[f] != nil {
				v = fmt.Sprint(values[f])
			}
			rows = append(rows, row{cells: []cell{{text: capital(r.l.fieldName(f))}, {text: v}, check(f)}})
		}
		r.table([]column{{labels.field.in(r.l), 0.28}, {labels.agreedValue.in(r.l), 0.50}, {labels.judgement.in(r.l), 0.22}}, rows)
	} else {
		r.paragraph(labels.valuesNote.in(r.l), marginX, muted)
		r.y += 3
		for start := 0; start < len(r.docs); start += maxValueColumns {
			docs := r.docs[start:min(len(r.docs), start+maxValueColumns)]
			r.valuesTable(fields, docs, check)
		}
	}
	if cj != nil && cj.OverallConsistencyReason != "" {
		r.ensure(30)
		r.y += 3
		r.chip(marginX, r.y, labels.overall.in(r.l)+": "+r.l.word(labels.checkResults, string(cj.OverallConsistencyResult)),
			string(cj.OverallConsistencyResult), smallSize)
		r.y += smallSize*1.55 + 2
		r.paragraph(r.say(cj.OverallConsistencyReason), marginX, small)
	}
	r.y += 2
	r.paragraph(labels.checkLegend.in(r.l), marginX, muted)
}

// valuesTable shows the values of fields in some documents.
func (r *reportWriter) valuesTable(fields []string, docs []docRow, check func(string) cell) {
	fieldW, judgeW := 0.20, 0.16
	cols := []column{{labels.field.in(r.l), fieldW}}
	for _, d := range docs {
		cols = append(cols, column{d.name, (1 - fieldW - judgeW) / float64(len(docs))})
	}
	cols = append(cols, column{labels.judgement.in(r.l), judgeW})
	var rows []row
	for _, f := range fields {
		cells := []cell{{text: capital(r.l.fieldName(f))}}
		shown := make([]string, len(docs))
		has := make([]bool, len(docs))
		for i, d := range docs {
			shown[i], has[i] = d.facts.Values[f]
		}
		odd := r.disagreeing(f, shown, has)
		for i := range docs {
			c := cell{text: labels.notShown.in(r.l)}
			if has[i] {
				c = cell{text: shown[i], mark: odd[i]}
			}
			cells = append(cells, c)
		}
		rows = append(rows, row{cells: append(cells, check(f))})
	}
	r.table(cols, rows)
}

// disagreeing marks the values of field f, among those shown, that
// disagree with the others, when the analysis judged the field failed:
// those outside the largest group of values the engine counts as the
// same, or all of them when no group is the largest. The judgement counts
// every document, beyond those of one table.
func (r *reportWriter) disagreeing(f string, shown []string, has []bool) []bool {
	odd := make([]bool, len(shown))
	cj := r.ed.judgements
	if cj == nil || cj.Checks[f].Result != profilesvc.CheckFail {
		return odd
	}
	groups := r.valueGroups(f)
	best, atBest := 0, 0
	for _, n := range groups {
		switch {
		case n > best:
			best, atBest = n, n
		case n == best:
			atBest += n
		}
	}
	// One group is the largest when exactly its values are at its size.
	majority := atBest == best
	for i, v := range shown {
		if has[i] {
			odd[i] = !majority || groups[engine.ValueKey(f, v)] < best
		}
	}
	return odd
}

// valueGroups counts the values of field f among every document, by the
// key the engine compares them by: counted once a field, whatever the
// number of tables that show it.
func (r *reportWriter) valueGroups(f string) map[string]int {
	if g, ok := r.groups[f]; ok {
		return g
	}
	g := map[string]int{}
	for _, d := range r.docs {
		if d.facts == nil {
			continue
		}
		if v, ok := d.facts.Values[f]; ok {
			g[engine.ValueKey(f, v)]++
		}
	}
	if r.groups == nil {
		r.groups = map[string]map[string]int{}
	}
	r.groups[f] = g
	return g
}

// evidenceSection quotes, for each check that read the documents, the
// passages it read, with the document each comes from, and the tools it
// called.
func (r *reportWriter) evidenceSection() {
	log := append([]profilesvc.AuditLogEntry(nil), r.d.Analysis.AgentAuditLog...)
	sort.SliceStable(log, func(i, j int) bool { return log[i].WorkID < log[j].WorkID })
	r.heading(labels.evidence.in(r.l))
	any := false
	for _, e := range log {
		var cites []profilesvc.Object
		if e.RAGResponse != nil {
			cites = e.RAGResponse.Citations
		}
		if len(cites) == 0 && len(e.MCPToolCalls) == 0 {
			continue
		}
		if !any {
			r.paragraph(labels.evidenceNote.in(r.l), marginX, muted)
			r.y += 2
		}
		any = true
		r.ensure(3 * bodySize * lineGap)
		x := r.text(marginX, r.y, r.l.actionName(e.ActionName), textStyle{size: bodySize, bold: true, color: colInk})
		r.chip(x+8, r.y, r.l.word(labels.steps, string(e.VerificationStatus)), string(e.VerificationStatus), bodySize)
		r.y += bodySize * 1.6
		for _, c := range cites {
			r.bullet("•", r.quote(c), small)
		}
		for _, call := range e.MCPToolCalls {
			r.bullet("›", r.toolCall(call), small)
		}
		r.y += 4
	}
	if !any {
		r.paragraph(labels.noEvidence.in(r.l), marginX, muted)
	}
}

// quote is a citation, briefly: the line of the passage that holds the
// value read, the document and the field.
func (r *reportWriter) quote(c profilesvc.Object) string {
	itemID, _ := c["itemId"].(string)
	field, _ := c["field"].(string)
	text, _ := c["text"].(string)
	value := ""
	for _, d := range r.docs {
		if d.itemID == itemID && d.facts != nil {
			value = d.facts.Values[field]
		}
	}
	if value == "" {
		if v := r.ed.values[field]; v != nil {
			value = fmt.Sprint(v)
		}
	}
	passage := ""
	for ln := range strings.SplitSeq(text, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			continue
		}
		if passage == "" {
			passage = ln
		}
		if value != "" && strings.Contains(ln, value) {
			passage = ln
			break
		}
	}
	s := quoted(excerpt(passage, value, 90)) + " — " + r.docName(itemID)
	if field != "" {
		s += " · " + capital(r.l.fieldName(field))
	}
	return s
}

// toolCall is a tool call: its name, what it was asked and what it
// answered.
func (r *reportWriter) toolCall(call profilesvc.MCPToolCall) string {
	var b strings.Builder
	b.WriteString(labels.toolCall.in(r.l) + " " + call.ToolName)
	if r.l == english && call.EngineName != "" {
		b.WriteString(" (" + call.EngineName + ")")
	}
	var params []string
	for _, k := range sortedKeys(call.Params) {
		params = append(params, capital(r.l.fieldName(k))+" "+fmt.Sprint(call.Params[k]))
	}
	if len(params) > 0 {
		b.WriteString(": " + strings.Join(params, ", "))
	}
	if status, ok := call.RawContent["status"].(string); ok {
		b.WriteString(" — " + r.l.word(labels.toolStatuses, status))
	}
	return b.String()
}

func (r *reportWriter) auditSection() {
	log := r.d.Analysis.AgentAuditLog
	if len(log) == 0 {
		return
	}
	r.heading(labels.auditTrail.in(r.l))
	rows := make([]row, len(log))
	for i, e := range log {
		started := labels.unknown.in(r.l)
		if !e.ExecutedAt.IsZero() {
			started = e.ExecutedAt.UTC().Format("15:04:05")
		}
		rows[i] = row{cells: []cell{{text: strconv.Itoa(e.WorkID)}, {text: r.l.actionName(e.ActionName)},
			{text: r.l.categoryName(e.Category)},
			{text: r.l.word(labels.steps, string(e.VerificationStatus)), chip: string(e.VerificationStatus)},
			{text: started}, {text: strconv.FormatFloat(e.DurationMs, 'f', -1, 64) + " ms"}}}
	}
	r.table([]column{{"#", 0.06}, {labels.step.in(r.l), 0.30}, {labels.category.in(r.l), 0.22}, {labels.result.in(r.l), 0.13},
		{labels.started.in(r.l), 0.15}, {labels.duration.in(r.l), 0.14}}, rows)
}

// signOffSection is the reviewer's block: the verification status as it
// stands, and lines for the reviewer, the date, the decision and a
// signature.
func (r *reportWriter) signOffSection() {
	const boxH = 128.0
	r.ensure(boxH + 50)
	r.heading(labels.signOff.in(r.l))
	top := r.y
	r.stroke(colRule)
	r.pdf.SetLineWidth(0.8)
	r.pdf.RectFromUpperLeftWithStyle(marginX, top, contentW, boxH, "D")
	label := textStyle{size: bodySize, bold: true, color: colMuted}
	x0 := marginX + 14
	y := top + 14
	vs := string(r.d.Analysis.VerificationStatus)
	r.text(x0, y, labels.verification.in(r.l), label)
	r.chip(x0+96, y, r.l.word(labels.verifications, vs), vs, bodySize)
	y += 30
	blank := func(x, y, w float64, name string) {
		r.text(x, y, name, label)
		r.rule(x+70, x+w, y+bodySize+2, 0.6, colInk)
	}
	blank(x0, y, 270, labels.reviewer.in(r.l))
	blank(x0+300, y, contentW-28-300, labels.date.in(r.l))
	y += 30
	r.text(x0, y, labels.decision.in(r.l), label)
	x := x0 + 70
	for _, d := range []string{r.l.word(labels.actions, "approve"), r.l.word(labels.actions, "reject"), labels.requestDocs.in(r.l)} {
		r.stroke(colInk)
		r.pdf.SetLineWidth(0.7)
		r.pdf.RectFromUpperLeftWithStyle(x, y+0.5, 9, 9, "D")
		x = r.text(x+14, y, d, body) + 22
	}
	y += 30
	blank(x0, y, 270, labels.signature.in(r.l))
	r.y = top + boxH + 8
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
