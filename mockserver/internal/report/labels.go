package report

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// lang is the language a report is written in.
type lang int

const (
	english lang = iota
	korean
)

// langOf is the language of a locale: Korean for "ko", English
// otherwise.
func langOf(locale string) lang {
	if locale == "ko" {
		return korean
	}
	return english
}

// both is something a report says, in each of its languages. Tables of
// them are written positionally, English then Korean, so that an entry
// without either language does not compile.
type both[T any] struct{ en, ko T }

// in is b in language l.
func (b both[T]) in(l lang) T {
	if l == korean {
		return b.ko
	}
	return b.en
}

// text is a word, a sentence or a format in both languages.
type text = both[string]

// reportLabels are a report's words, each in English and in Korean:
// headings, column titles, notes, the words of each enumeration, the
// names of the fields, document types, actions and categories the mock
// knows, and how dates and page numbers are written. How the report says
// the engine's facts is in factWords (facts.go).
type reportLabels struct {
	title, subtitle                                           text
	profile, analysisID, workflow, requested, completed       text
	status, verification                                      text
	subject, subjectNote, identityValue, agreedValue          text
	riskAssessment, riskLevel, riskScore, riskFactors         text
	noFactors                                                 text
	reviewResult, finalAction, actionReason, riskReason       text
	findings, check, result, details                          text
	evidence, evidenceNote, noEvidence, toolCall              text
	recommendations, priority, recommendation                 text
	documentsReviewed, document, detectedAs, uploaded, size   text
	fingerprint, readable, valid, notValid, reason, yes, no   text
	extractedValues, field, judgement, valuesNote             text
	overall, checkLegend                                      text
	documentValidations                                       text
	auditTrail, step, category, started, duration             text
	signOff, reviewer, date, decision, signature, requestDocs text
	appendix, appendixNote, rawExtracted, rawActions          text
	footer, none, notYet, notShown, unknown                   text
	onlyIn                                                    text // a format: the one document that shows a value
	codeCut                                                   text // a format: the lines an appendix block cut short leaves out

	// dateTime, dateTimeShort (for a narrow column) and dateOnly are
	// layouts of time.Time.Format; pageOf is a format of a page's number
	// and the number of pages.
	dateTime, dateTimeShort, dateOnly, pageOf text

	levels, results, steps, actions, statuses, verifications, checkResults map[string]text
	itemTypes, priorities, toolStatuses                                    map[string]text
	// fields, kinds, actionNames and categories name what the mock knows,
	// as written in a sentence; a table's cell capitalises it.
	fields, kinds, actionNames, categories map[string]text
	// workflows name the mock's own workflows, by ID and name.
	workflows map[[2]string]text
}

// labels are the words of every report.
var labels = reportLabels{
	title:        text{"Document Analysis Report", "문서 분석 보고서"},
	subtitle:     text{"Profile Document Analysis Service", "프로필 문서 분석 서비스"},
	profile:      text{"Profile", "프로필"},
	analysisID:   text{"Analysis ID", "분석 ID"},
	workflow:     text{"Workflow", "워크플로"},
	requested:    text{"Requested", "요청 일시"},
	completed:    text{"Completed", "완료 일시"},
	status:       text{"Status", "상태"},
	verification: text{"Verification", "검증 상태"},
	subject:      text{"Subject", "대상자"},
	subjectNote: text{
		"The identity the documents show, field by field, and whether they agree on it.",
		"문서에 나타난 신원 정보와 문서 간 일치 여부입니다.",
	},
	identityValue:  text{"Identity value", "신원 항목"},
	agreedValue:    text{"Value", "값"},
	riskAssessment: text{"Risk assessment", "위험 평가"},
	riskLevel:      text{"Risk level", "위험 수준"},
	riskScore:      text{"Risk score", "위험 점수"},
	riskFactors:    text{"Risk factors", "위험 요인"},
	noFactors:      text{"No risk factors.", "위험 요인이 없습니다."},
	reviewResult:   text{"Review result", "검토 결과"},
	finalAction:    text{"Decision", "결정"},
	actionReason:   text{"Why", "사유"},
	riskReason:     text{"Risk basis", "위험 근거"},
	findings:       text{"Findings", "검사 결과"},
	check:          text{"Check", "검사"},
	result:         text{"Result", "결과"},
	details:        text{"Details", "세부 내용"},
	evidence:       text{"Evidence", "근거"},
	evidenceNote: text{
		"The passages each check read, quoted from the documents, and the tools it called.",
		"각 검사가 읽은 문서 구절과 호출한 도구입니다.",
	},
	noEvidence:        text{"No check quoted a document.", "문서를 인용한 검사가 없습니다."},
	toolCall:          text{"Tool", "도구"},
	recommendations:   text{"Recommendations", "권고 사항"},
	priority:          text{"Priority", "우선순위"},
	recommendation:    text{"Recommendation", "권고"},
	documentsReviewed: text{"Documents reviewed", "검토한 문서"},
	document:          text{"Document", "문서"},
	detectedAs:        text{"Detected as", "인식된 유형"},
	uploaded:          text{"Uploaded", "업로드"},
	size:              text{"Size", "크기"},
	fingerprint:       text{"SHA-256", "SHA-256"},
	readable:          text{"Readable", "판독"},
	valid:             text{"Valid", "유효"},
	notValid:          text{"Not valid", "유효하지 않음"},
	reason:            text{"Reason", "사유"},
	yes:               text{"Yes", "예"},
	no:                text{"No", "아니요"},
	extractedValues:   text{"Extracted values", "추출된 값"},
	field:             text{"Field", "항목"},
	judgement:         text{"Judgement", "판정"},
	valuesNote: text{
		"Each document's value of each field; a marked cell disagrees with the other documents.",
		"문서별로 읽은 항목 값입니다. 표시된 칸은 다른 문서와 값이 다릅니다.",
	},
	overall: text{"Overall", "종합"},
	checkLegend: text{
		"Consistent: the documents that show the value agree. Inconsistent: they differ. " +
			"Unconfirmed: one document shows it. Not found: no document shows it.",
		"일치: 값을 보여 준 문서들이 서로 같습니다. 불일치: 문서 간 값이 다릅니다. " +
			"미확인: 한 문서에만 있습니다. 없음: 어느 문서에도 없습니다.",
	},
	documentValidations: text{"Document validations", "문서 유효성"},
	auditTrail:          text{"Audit trail", "감사 기록"},
	step:                text{"Step", "단계"},
	category:            text{"Category", "분류"},
	started:             text{"Started (UTC)", "시작 (UTC)"},
	duration:            text{"Duration", "소요 시간"},
	signOff:             text{"Reviewer sign-off", "검토자 확인"},
	reviewer:            text{"Reviewer", "검토자"},
	date:                text{"Date", "일자"},
	decision:            text{"Decision", "결정"},
	signature:           text{"Signature", "서명"},
	requestDocs:         text{"Request documents", "추가 서류 요청"},
	appendix:            text{"Appendix: raw data", "부록: 원시 데이터"},
	appendixNote: text{
		"The analysis's extracted data and raw action results, as the service returns them (in English). " +
			"A line too long for the page continues on the next, after →.",
		"서비스가 반환하는 그대로의 추출 데이터와 작업별 원시 결과입니다(영문). " +
			"한 줄에 들어가지 않는 내용은 다음 줄의 → 뒤에 이어집니다.",
	},
	rawExtracted: text{"Extracted data", "추출 데이터"},
	rawActions:   text{"Raw action results", "작업별 원시 결과"},
	footer:       text{"Confidential, prepared for compliance review", "대외비, 컴플라이언스 검토용"},
	none:         text{"None.", "없음."},
	notYet:       text{"not yet", "미완료"},
	notShown:     text{"—", "—"},
	unknown:      text{"—", "—"},
	onlyIn:       text{"only in %s", "%s에만 있음"},
	codeCut:      text{"… %d more lines left out", "… 이하 %d줄 생략"},
	levels: map[string]text{
		"high":   {"High", "높음"},
		"low":    {"Low", "낮음"},
		"medium": {"Medium", "보통"},
	},
	results: map[string]text{
		"failed":  {"Failed", "실패"},
		"passed":  {"Passed", "통과"},
		"warning": {"Warning", "주의"},
	},
	steps: map[string]text{
		"failed":       {"Failed", "실패"},
		"needs_review": {"Warning", "주의"},
		"passed":       {"Passed", "통과"},
	},
	actions: map[string]text{
		"approve":       {"Approve", "승인"},
		"manual_review": {"Manual review", "수동 검토"},
		"reject":        {"Reject", "거절"},
	},
	statuses: map[string]text{
		"completed":  {"Completed", "완료"},
		"failed":     {"Failed", "실패"},
		"pending":    {"Pending", "대기"},
		"processing": {"Processing", "처리 중"},
	},
	verifications: map[string]text{
		"approved":       {"Approved", "승인됨"},
		"pending_review": {"Pending review", "검토 대기"},
		"rejected":       {"Rejected", "거절됨"},
	},
	checkResults: map[string]text{
		"fail":         {"Inconsistent", "불일치"},
		"needs_review": {"Unconfirmed", "미확인"},
		"pass":         {"Consistent", "일치"},
		"unverifiable": {"Not found", "없음"},
	},
	itemTypes: map[string]text{
		"file": {"File", "파일"},
		"json": {"JSON", "JSON"},
		"text": {"Text", "텍스트"},
	},
	priorities: map[string]text{
		"1": {"High", "높음"},
		"2": {"Medium", "보통"},
		"3": {"Low", "낮음"},
	},
	toolStatuses: map[string]text{
		"found":     {"found", "등록 확인"},
		"not_found": {"not found", "등록 없음"},
		"skipped":   {"skipped", "건너뜀"},
	},
	fields: map[string]text{
		"account_number":  {"account number", "계좌 번호"},
		"address":         {"address", "주소"},
		"date_of_birth":   {"date of birth", "생년월일"},
		"documentNumber":  {"document number", "문서 번호"},
		"document_number": {"document number", "문서 번호"},
		"employer_name":   {"employer name", "고용주"},
		"expiry_date":     {"expiry date", "만료일"},
		"full_name":       {"full name", "성명"},
		"monthly_income":  {"monthly income", "월 소득"},
		"nationality":     {"nationality", "국적"},
	},
	kinds: map[string]text{
		"bank_statement":  {"bank statement", "은행 거래내역서"},
		"document":        {"unrecognised document", "미확인 문서"},
		"drivers_licence": {"driver's licence", "운전면허증"},
		"national_id":     {"national ID card", "신분증"},
		"passport":        {"passport", "여권"},
		"payslip":         {"payslip", "급여 명세서"},
		"utility_bill":    {"utility bill", "공과금 고지서"},
	},
	actionNames: map[string]text{
		"check_document_expiry":    {"Check document expiry", "유효기간 확인"},
		"classify_documents":       {"Classify documents", "문서 분류"},
		"compile_review":           {"Compile review", "검토 종합"},
		"cross_check_identity":     {"Cross-check identity", "신원 교차 확인"},
		"extract_identity_fields":  {"Extract identity fields", "신원 항목 추출"},
		"validate_field_formats":   {"Validate field formats", "형식 검증"},
		"verify_document_registry": {"Verify document registry", "발급 기관 등록 조회"},
	},
	categories: map[string]text{
		"Data Consistency":        {"Data consistency", "데이터 일관성"},
		"Data Extraction":         {"Data extraction", "데이터 추출"},
		"Document Classification": {"Document classification", "문서 분류"},
		"Document Processing":     {"Document processing", "문서 처리"},
		"Format Validation":       {"Format validation", "형식 검증"},
		"Status Validation":       {"Status validation", "상태 검증"},
		"mcp":                     {"External tool (MCP)", "외부 도구(MCP)"},
	},
	dateTime:      text{"2 January 2006, 15:04 UTC", "2006년 1월 2일 15:04 UTC"},
	dateTimeShort: text{"2006-01-02 15:04", "2006-01-02 15:04"},
	dateOnly:      text{"2 January 2006", "2006년 1월 2일"},
	pageOf:        text{"Page %d of %d", "%d / %d 페이지"},
	workflows: map[[2]string]text{
		{engine.DefaultWorkflowID, engine.DefaultWorkflow().Name}: {engine.DefaultWorkflow().Name, "신원 및 금융 문서 검토"},
	},
}

// word is an enumeration value in language l, or the value as it is.
func (l lang) word(m map[string]text, v string) string {
	if w, ok := m[v]; ok {
		return w.in(l)
	}
	return v
}

// formatTime writes a date and time.
func (l lang) formatTime(t time.Time) string { return t.UTC().Format(labels.dateTime.in(l)) }

// formatShort writes a date and time in a narrow column.
func (l lang) formatShort(t time.Time) string { return t.UTC().Format(labels.dateTimeShort.in(l)) }

// formatDate writes a date.
func (l lang) formatDate(t time.Time) string { return t.UTC().Format(labels.dateOnly.in(l)) }

// pageOf writes the number of page i of n.
func (l lang) pageOf(i, n int) string { return fmt.Sprintf(labels.pageOf.in(l), i, n) }

// list joins items as the language does: "a, b and c" in English, "a,
// b, c" in Korean.
func (l lang) list(items []string) string {
	if l == korean {
		return strings.Join(items, ", ")
	}
	return englishList(items)
}

// englishList joins items as English does: "a", "a and b", "a, b and c".
func englishList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// humanize writes an identifier as words: "check_income" is "check
// income".
func humanize(id string) string {
	return strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(id))
}

// capital puts a text's first letter in upper case.
func capital(s string) string {
	c, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(c) {
		return s
	}
	return string(unicode.ToUpper(c)) + s[n:]
}

// fieldName is a schema field as a sentence writes it.
func (l lang) fieldName(f string) string {
	if w, ok := labels.fields[f]; ok {
		return w.in(l)
	}
	return humanize(f)
}

// fieldNames are schema fields as a sentence lists them.
func (l lang) fieldNames(fs []string) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = l.fieldName(f)
	}
	return l.list(out)
}

// kindName is a document type as a sentence writes it.
func (l lang) kindName(k string) string {
	if w, ok := labels.kinds[k]; ok {
		return w.in(l)
	}
	return humanize(k)
}

// actionName is a policy action's label: the mock's own actions by
// name, others as their name in words.
func (l lang) actionName(a string) string {
	if w, ok := labels.actionNames[a]; ok {
		return w.in(l)
	}
	return capital(humanize(a))
}

// actionList lists policy actions as a sentence does.
func (l lang) actionList(as []string) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = l.actionName(a)
	}
	return l.list(out)
}

// categoryName is an audit category's label.
func (l lang) categoryName(c string) string { return l.word(labels.categories, c) }

// validationName is a key of document_validations as a table shows it:
// the engine's keys by their document type, with the number it gives from
// the second document of a type ("passport_2"); others as words.
func (l lang) validationName(key string) string {
	if _, ok := labels.kinds[key]; ok {
		return capital(l.kindName(key))
	}
	if i := strings.LastIndexByte(key, '_'); i > 0 {
		n := key[i+1:]
		if _, ok := labels.kinds[key[:i]]; ok && n != "" && n[0] != '0' && n != "1" && strings.Trim(n, "0123456789") == "" {
			return capital(l.kindName(key[:i])) + " " + n
		}
	}
	return capital(humanize(key))
}

// workflowName is a workflow's name in the report's language: the mock's
// own by its label, others as named.
func (l lang) workflowName(id, name string) string {
	if w, ok := labels.workflows[[2]string{id, name}]; ok {
		return w.in(l)
	}
	return name
}

// isoDate writes a date given as 2006-01-02, or returns it as given.
func (l lang) isoDate(s string) string {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return l.formatDate(t)
}
