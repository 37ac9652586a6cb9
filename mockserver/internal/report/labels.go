package report

import (
	"fmt"
	"time"
)

// reportLabels are a report's words in one language.
type reportLabels struct {
	title, subtitle                                                 string
	profile, analysisID, workflow, requested, completed             string
	status, verification                                            string
	riskAssessment, riskLevel, riskScore, riskFactors, noFactors    string
	reviewResult, finalAction, actionReason, riskReason             string
	findings, check, result, details                                string
	recommendations, priority                                       string
	extractedValues, field, value, crossCheck                       string
	documentValidations, document, valid, reason, yes, no           string
	auditTrail, action, category, duration                          string
	appendix, appendixNote, rawExtracted, rawActions                string
	page, of, footer, generated, continued, none, notYet            string
	levels, results, actions, statuses, verifications, checkResults map[string]string
	formatTime                                                      func(time.Time) string
}

var englishLabels = reportLabels{
	title: "Document Analysis Report", subtitle: "Profile Document Analysis Service",
	profile: "Profile", analysisID: "Analysis ID", workflow: "Workflow", requested: "Requested",
	completed: "Completed", status: "Status", verification: "Verification",
	riskAssessment: "Risk assessment", riskLevel: "Risk level", riskScore: "Risk score",
	riskFactors: "Risk factors", noFactors: "No risk factors.",
	reviewResult: "Review result", finalAction: "Decision", actionReason: "Why", riskReason: "Risk basis",
	findings: "Findings", check: "Check", result: "Result", details: "Details",
	recommendations: "Recommendations", priority: "Priority",
	extractedValues: "Extracted values", field: "Field", value: "Value", crossCheck: "Cross-check",
	documentValidations: "Document validations", document: "Document", valid: "Valid", reason: "Reason",
	yes: "Yes", no: "No",
	auditTrail: "Audit trail", action: "Action", category: "Category", duration: "Duration",
	appendix: "Appendix: raw data", appendixNote: "The analysis's extracted data and raw action results as the service returns them.",
	rawExtracted: "Extracted data", rawActions: "Raw action results",
	page: "Page", of: "of", footer: "Confidential: prepared for compliance review.", generated: "Generated",
	continued: "(continued)", none: "None.", notYet: "not yet",
	levels:        map[string]string{"low": "Low", "medium": "Medium", "high": "High"},
	results:       map[string]string{"passed": "Passed", "warning": "Warning", "failed": "Failed"},
	actions:       map[string]string{"approve": "Approve", "manual_review": "Manual review", "reject": "Reject"},
	statuses:      map[string]string{"pending": "Pending", "processing": "Processing", "completed": "Completed", "failed": "Failed"},
	verifications: map[string]string{"pending_review": "Pending review", "approved": "Approved", "rejected": "Rejected"},
	checkResults:  map[string]string{"pass": "Pass", "fail": "Fail", "unverifiable": "Unverifiable", "needs_review": "Needs review"},
	formatTime: func(t time.Time) string {
		return t.UTC().Format("2 January 2006, 15:04 UTC")
	},
}

var koreanLabels = reportLabels{
	title: "문서 분석 보고서", subtitle: "프로필 문서 분석 서비스",
	profile: "프로필", analysisID: "분석 ID", workflow: "워크플로", requested: "요청 일시",
	completed: "완료 일시", status: "상태", verification: "검증 상태",
	riskAssessment: "위험 평가", riskLevel: "위험 수준", riskScore: "위험 점수",
	riskFactors: "위험 요인", noFactors: "위험 요인이 없습니다.",
	reviewResult: "검토 결과", finalAction: "결정", actionReason: "사유", riskReason: "위험 근거",
	findings: "검사 결과", check: "검사", result: "결과", details: "세부 내용",
	recommendations: "권고 사항", priority: "우선순위",
	extractedValues: "추출된 값", field: "항목", value: "값", crossCheck: "교차 검증",
	documentValidations: "문서 유효성", document: "문서", valid: "유효", reason: "사유",
	yes: "예", no: "아니요",
	auditTrail: "감사 기록", action: "작업", category: "분류", duration: "소요 시간",
	appendix: "부록: 원시 데이터", appendixNote: "서비스가 반환한 분석의 추출 데이터와 작업별 원시 결과입니다.",
	rawExtracted: "추출 데이터", rawActions: "작업별 원시 결과",
	page: "페이지", of: "/", footer: "대외비: 컴플라이언스 검토용으로 작성되었습니다.", generated: "생성",
	continued: "(계속)", none: "없음.", notYet: "미완료",
	levels:        map[string]string{"low": "낮음", "medium": "보통", "high": "높음"},
	results:       map[string]string{"passed": "통과", "warning": "주의", "failed": "실패"},
	actions:       map[string]string{"approve": "승인", "manual_review": "수동 검토", "reject": "거절"},
	statuses:      map[string]string{"pending": "대기", "processing": "처리 중", "completed": "완료", "failed": "실패"},
	verifications: map[string]string{"pending_review": "검토 대기", "approved": "승인됨", "rejected": "거절됨"},
	checkResults:  map[string]string{"pass": "일치", "fail": "불일치", "unverifiable": "확인 불가", "needs_review": "검토 필요"},
	formatTime: func(t time.Time) string {
		t = t.UTC()
		return fmt.Sprintf("%d년 %d월 %d일 %02d:%02d UTC", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute())
	},
}

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
