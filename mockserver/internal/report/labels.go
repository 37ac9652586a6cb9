package report

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// reportLabels are a report's words in one language: headings, column
// titles, the words of each enumeration, the names of the fields,
// document types, actions and categories the mock knows, how to write
// dates, lists and counts, and how to say the engine's facts (facts.go).
type reportLabels struct {
	lang string

	title, subtitle                                           string
	profile, analysisID, workflow, requested, completed       string
	status, verification                                      string
	subject, subjectNote, identityValue, agreedValue          string
	riskAssessment, riskLevel, riskScore, riskFactors         string
	noFactors                                                 string
	reviewResult, finalAction, actionReason, riskReason       string
	findings, check, result, details                          string
	evidence, evidenceNote, noEvidence, toolCall              string
	recommendations, priority, recommendation                 string
	documentsReviewed, document, detectedAs, uploaded, size   string
	fingerprint, readable, valid, notValid, reason, yes, no   string
	extractedValues, field, judgement, valuesNote             string
	overall, checkLegend                                      string
	documentValidations                                       string
	auditTrail, step, category, started, duration             string
	signOff, reviewer, date, decision, signature, requestDocs string
	appendix, appendixNote, rawExtracted, rawActions          string
	footer, none, notYet, notShown, unknown                   string
	onlyIn                                                    string // a format: the one document that shows a value
	codeCut                                                   string // a format: the lines an appendix block cut short leaves out

	levels, results, steps, actions, statuses, verifications, checkResults map[string]string
	itemTypes, priorities, toolStatuses                                    map[string]string
	// fields, kinds, actionNames and categories name what the mock knows,
	// as written in a sentence; a table's cell capitalises it.
	fields, kinds, actionNames, categories map[string]string
	// workflows name the mock's own workflows, by ID and name.
	workflows map[[2]string]string

	formatTime  func(time.Time) string // a date and time
	formatShort func(time.Time) string // a date and time in a narrow column
	formatDate  func(time.Time) string // a date
	pageOf      func(i, n int) string  // a page's number
	// list joins items; count writes n of a noun with its singular and
	// plural (Korean counts need no plural).
	list  func(items []string) string
	count func(n int, one, many string) string
	// facts say the engine's facts, by key.
	facts map[string]func(*reportLabels, engine.Fact) string
}

var englishLabels = reportLabels{
	lang:  "en",
	title: "Document Analysis Report", subtitle: "Profile Document Analysis Service",
	profile: "Profile", analysisID: "Analysis ID", workflow: "Workflow", requested: "Requested",
	completed: "Completed", status: "Status", verification: "Verification",
	subject:       "Subject",
	subjectNote:   "The identity the documents show, field by field, and whether they agree on it.",
	identityValue: "Identity value", agreedValue: "Value",
	riskAssessment: "Risk assessment", riskLevel: "Risk level", riskScore: "Risk score",
	riskFactors: "Risk factors", noFactors: "No risk factors.",
	reviewResult: "Review result", finalAction: "Decision", actionReason: "Why", riskReason: "Risk basis",
	findings: "Findings", check: "Check", result: "Result", details: "Details",
	evidence:     "Evidence",
	evidenceNote: "The passages each check read, quoted from the documents, and the tools it called.",
	noEvidence:   "No check quoted a document.", toolCall: "Tool",
	recommendations: "Recommendations", priority: "Priority", recommendation: "Recommendation",
	documentsReviewed: "Documents reviewed", document: "Document", detectedAs: "Detected as",
	uploaded: "Uploaded", size: "Size", fingerprint: "SHA-256", readable: "Readable", valid: "Valid",
	notValid: "Not valid", reason: "Reason", yes: "Yes", no: "No",
	extractedValues: "Extracted values", field: "Field", judgement: "Judgement",
	valuesNote: "Each document's value of each field; a marked cell disagrees with the other documents.",
	overall:    "Overall",
	checkLegend: "Consistent: the documents that show the value agree. Inconsistent: they differ. " +
		"Unconfirmed: one document shows it. Not found: no document shows it.",
	documentValidations: "Document validations",
	auditTrail:          "Audit trail", step: "Step", category: "Category", started: "Started (UTC)", duration: "Duration",
	signOff: "Reviewer sign-off", reviewer: "Reviewer", date: "Date", decision: "Decision", signature: "Signature",
	requestDocs: "Request documents",
	appendix:    "Appendix: raw data",
	appendixNote: "The analysis's extracted data and raw action results, as the service returns them (in English). " +
		"A line too long for the page continues on the next, after →.",
	rawExtracted: "Extracted data", rawActions: "Raw action results",
	codeCut: "… %d more lines left out",
	footer:  "Confidential, prepared for compliance review", none: "None.", notYet: "not yet",
	notShown: "—", unknown: "—", onlyIn: "only in %s",
	levels:        map[string]string{"low": "Low", "medium": "Medium", "high": "High"},
	results:       map[string]string{"passed": "Passed", "warning": "Warning", "failed": "Failed"},
	steps:         map[string]string{"passed": "Passed", "needs_review": "Warning", "failed": "Failed"},
	actions:       map[string]string{"approve": "Approve", "manual_review": "Manual review", "reject": "Reject"},
	statuses:      map[string]string{"pending": "Pending", "processing": "Processing", "completed": "Completed", "failed": "Failed"},
	verifications: map[string]string{"pending_review": "Pending review", "approved": "Approved", "rejected": "Rejected"},
	checkResults:  map[string]string{"pass": "Consistent", "fail": "Inconsistent", "unverifiable": "Not found", "needs_review": "Unconfirmed"},
	itemTypes:     map[string]string{"file": "File", "text": "Text", "json": "JSON"},
	priorities:    map[string]string{"1": "High", "2": "Medium", "3": "Low"},
	toolStatuses:  map[string]string{"found": "found", "skipped": "skipped", "not_found": "not found"},
	fields: map[string]string{
		"full_name": "full name", "date_of_birth": "date of birth", "document_number": "document number",
		"expiry_date": "expiry date", "address": "address", "nationality": "nationality",
		"account_number": "account number", "monthly_income": "monthly income", "employer_name": "employer name",
		"documentNumber": "document number",
	},
	kinds: map[string]string{
		"passport": "passport", "drivers_licence": "driver's licence", "national_id": "national ID card",
		"bank_statement": "bank statement", "utility_bill": "utility bill", "payslip": "payslip",
		"document": "unrecognised document",
	},
	actionNames: map[string]string{
		"classify_documents": "Classify documents", "extract_identity_fields": "Extract identity fields",
		"validate_field_formats": "Validate field formats", "check_document_expiry": "Check document expiry",
		"cross_check_identity": "Cross-check identity", "verify_document_registry": "Verify document registry",
		"compile_review": "Compile review",
	},
	categories: map[string]string{
		"Document Classification": "Document classification", "Data Extraction": "Data extraction",
		"Format Validation": "Format validation", "Status Validation": "Status validation",
		"Data Consistency": "Data consistency", "Document Processing": "Document processing",
		"mcp": "External tool (MCP)",
	},
	workflows: map[[2]string]string{},
	formatTime: func(t time.Time) string {
		return t.UTC().Format("2 January 2006, 15:04 UTC")
	},
	formatShort: func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
	formatDate:  func(t time.Time) string { return t.UTC().Format("2 January 2006") },
	pageOf:      func(i, n int) string { return fmt.Sprintf("Page %d of %d", i, n) },
	list:        englishList,
	count: func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	},
	facts: englishFacts,
}

var koreanLabels = reportLabels{
	lang:  "ko",
	title: "문서 분석 보고서", subtitle: "프로필 문서 분석 서비스",
	profile: "프로필", analysisID: "분석 ID", workflow: "워크플로", requested: "요청 일시",
	completed: "완료 일시", status: "상태", verification: "검증 상태",
	subject:       "대상자",
	subjectNote:   "문서에 나타난 신원 정보와 문서 간 일치 여부입니다.",
	identityValue: "신원 항목", agreedValue: "값",
	riskAssessment: "위험 평가", riskLevel: "위험 수준", riskScore: "위험 점수",
	riskFactors: "위험 요인", noFactors: "위험 요인이 없습니다.",
	reviewResult: "검토 결과", finalAction: "결정", actionReason: "사유", riskReason: "위험 근거",
	findings: "검사 결과", check: "검사", result: "결과", details: "세부 내용",
	evidence:     "근거",
	evidenceNote: "각 검사가 읽은 문서 구절과 호출한 도구입니다.",
	noEvidence:   "문서를 인용한 검사가 없습니다.", toolCall: "도구",
	recommendations: "권고 사항", priority: "우선순위", recommendation: "권고",
	documentsReviewed: "검토한 문서", document: "문서", detectedAs: "인식된 유형",
	uploaded: "업로드", size: "크기", fingerprint: "SHA-256", readable: "판독", valid: "유효",
	notValid: "유효하지 않음", reason: "사유", yes: "예", no: "아니요",
	extractedValues: "추출된 값", field: "항목", judgement: "판정",
	valuesNote:          "문서별로 읽은 항목 값입니다. 표시된 칸은 다른 문서와 값이 다릅니다.",
	overall:             "종합",
	checkLegend:         "일치: 값을 보여 준 문서들이 서로 같습니다. 불일치: 문서 간 값이 다릅니다. 미확인: 한 문서에만 있습니다. 없음: 어느 문서에도 없습니다.",
	documentValidations: "문서 유효성",
	auditTrail:          "감사 기록", step: "단계", category: "분류", started: "시작 (UTC)", duration: "소요 시간",
	signOff: "검토자 확인", reviewer: "검토자", date: "일자", decision: "결정", signature: "서명",
	requestDocs:  "추가 서류 요청",
	appendix:     "부록: 원시 데이터",
	appendixNote: "서비스가 반환하는 그대로의 추출 데이터와 작업별 원시 결과입니다(영문). 한 줄에 들어가지 않는 내용은 다음 줄의 → 뒤에 이어집니다.",
	rawExtracted: "추출 데이터", rawActions: "작업별 원시 결과",
	codeCut: "… 이하 %d줄 생략",
	footer:  "대외비, 컴플라이언스 검토용", none: "없음.", notYet: "미완료",
	notShown: "—", unknown: "—", onlyIn: "%s에만 있음",
	levels:        map[string]string{"low": "낮음", "medium": "보통", "high": "높음"},
	results:       map[string]string{"passed": "통과", "warning": "주의", "failed": "실패"},
	steps:         map[string]string{"passed": "통과", "needs_review": "주의", "failed": "실패"},
	actions:       map[string]string{"approve": "승인", "manual_review": "수동 검토", "reject": "거절"},
	statuses:      map[string]string{"pending": "대기", "processing": "처리 중", "completed": "완료", "failed": "실패"},
	verifications: map[string]string{"pending_review": "검토 대기", "approved": "승인됨", "rejected": "거절됨"},
	checkResults:  map[string]string{"pass": "일치", "fail": "불일치", "unverifiable": "없음", "needs_review": "미확인"},
	itemTypes:     map[string]string{"file": "파일", "text": "텍스트", "json": "JSON"},
	priorities:    map[string]string{"1": "높음", "2": "보통", "3": "낮음"},
	toolStatuses:  map[string]string{"found": "등록 확인", "skipped": "건너뜀", "not_found": "등록 없음"},
	fields: map[string]string{
		"full_name": "성명", "date_of_birth": "생년월일", "document_number": "문서 번호",
		"expiry_date": "만료일", "address": "주소", "nationality": "국적",
		"account_number": "계좌 번호", "monthly_income": "월 소득", "employer_name": "고용주",
		"documentNumber": "문서 번호",
	},
	kinds: map[string]string{
		"passport": "여권", "drivers_licence": "운전면허증", "national_id": "신분증",
		"bank_statement": "은행 거래내역서", "utility_bill": "공과금 고지서", "payslip": "급여 명세서",
		"document": "미확인 문서",
	},
	actionNames: map[string]string{
		"classify_documents": "문서 분류", "extract_identity_fields": "신원 항목 추출",
		"validate_field_formats": "형식 검증", "check_document_expiry": "유효기간 확인",
		"cross_check_identity": "신원 교차 확인", "verify_document_registry": "발급 기관 등록 조회",
		"compile_review": "검토 종합",
	},
	categories: map[string]string{
		"Document Classification": "문서 분류", "Data Extraction": "데이터 추출",
		"Format Validation": "형식 검증", "Status Validation": "상태 검증",
		"Data Consistency": "데이터 일관성", "Document Processing": "문서 처리",
		"mcp": "외부 도구(MCP)",
	},
	workflows: map[[2]string]string{
		{engine.DefaultWorkflowID, engine.DefaultWorkflow().Name}: "신원 및 금융 문서 검토",
	},
	formatTime: func(t time.Time) string {
		t = t.UTC()
		return fmt.Sprintf("%d년 %d월 %d일 %02d:%02d UTC", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute())
	},
	formatShort: func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
	formatDate: func(t time.Time) string {
		t = t.UTC()
		return fmt.Sprintf("%d년 %d월 %d일", t.Year(), int(t.Month()), t.Day())
	},
	pageOf: func(i, n int) string { return fmt.Sprintf("%d / %d 페이지", i, n) },
	list:   func(items []string) string { return strings.Join(items, ", ") },
	count:  func(n int, one, many string) string { return fmt.Sprintf("%d%s", n, one) },
	facts:  koreanFacts,
}

// labelsFor returns the labels of a locale: Korean for "ko", English
// otherwise.
func labelsFor(locale string) *reportLabels {
	if locale == "ko" {
		return &koreanLabels
	}
	return &englishLabels
}

// word translates an enumeration value, or returns it as it is.
func word(m map[string]string, v string) string {
	if w, ok := m[v]; ok {
		return w
	}
	return v
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
func (l *reportLabels) fieldName(f string) string {
	if w, ok := l.fields[f]; ok {
		return w
	}
	return humanize(f)
}

// fieldNames are schema fields as a sentence lists them.
func (l *reportLabels) fieldNames(fs []string) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = l.fieldName(f)
	}
	return l.list(out)
}

// kindName is a document type as a sentence writes it.
func (l *reportLabels) kindName(k string) string {
	if w, ok := l.kinds[k]; ok {
		return w
	}
	return humanize(k)
}

// actionName is a policy action's label: the mock's own actions by
// name, others as their name in words.
func (l *reportLabels) actionName(a string) string {
	if w, ok := l.actionNames[a]; ok {
		return w
	}
	return capital(humanize(a))
}

// actionList lists policy actions as a sentence does.
func (l *reportLabels) actionList(as []string) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = l.actionName(a)
	}
	return l.list(out)
}

// categoryName is an audit category's label.
func (l *reportLabels) categoryName(c string) string { return word(l.categories, c) }

// validationName is a key of document_validations as a table shows it:
// the engine's keys by their document type, with the number it gives from
// the second document of a type ("passport_2"); others as words.
func (l *reportLabels) validationName(key string) string {
	if _, ok := l.kinds[key]; ok {
		return capital(l.kindName(key))
	}
	if i := strings.LastIndexByte(key, '_'); i > 0 {
		n := key[i+1:]
		if _, ok := l.kinds[key[:i]]; ok && n != "" && n[0] != '0' && n != "1" && strings.Trim(n, "0123456789") == "" {
			return capital(l.kindName(key[:i])) + " " + n
		}
	}
	return capital(humanize(key))
}

// workflowName is a workflow's name in the report's language: the mock's
// own by its label, others as named.
func (l *reportLabels) workflowName(id, name string) string {
	if w, ok := l.workflows[[2]string{id, name}]; ok {
		return w
	}
	return name
}

// isoDate writes a date given as 2006-01-02, or returns it as given.
func (l *reportLabels) isoDate(s string) string {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return l.formatDate(t)
}
