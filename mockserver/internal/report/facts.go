package report

import (
	"fmt"
	"strings"

	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// How a report says a sentence of the analysis: the engine keeps, beside
// each sentence it writes, the facts the sentence says (engine.Facts),
// and the report says those facts in its own language, English or
// Korean, with labels for the fields, document types and actions. A
// sentence without facts (the analysis's engine was another, or it
// changed the sentence), or with a fact of a key the report does not
// know, is shown as given.

// say returns text in the report's language: from the engine's facts of
// it when it has them, else as given.
func (r *reportWriter) say(text string) string {
	facts, ok := r.d.Facts.Sentences[text]
	if !ok || len(facts) == 0 {
		return text
	}
	parts := make([]string, len(facts))
	for i, f := range facts {
		fn, ok := r.l.facts[f.Key]
		if !ok {
			return text
		}
		parts[i] = fn(r.l, f)
	}
	return strings.Join(parts, " ")
}

// at returns s[i], or the zero value when s is shorter.
func at[T any](s []T, i int) T {
	var zero T
	if i < 0 || i >= len(s) {
		return zero
	}
	return s[i]
}

// quoted puts a value in typographic quotes.
func quoted(v string) string { return "“" + v + "”" }

// pairs writes the i-th of two parallel lists with how.
func pairs(n int, how func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = how(i)
	}
	return out
}

// englishFacts say the engine's facts in English.
var englishFacts = map[string]func(*reportLabels, engine.Fact) string{
	"classified": func(l *reportLabels, f engine.Fact) string {
		n := at(f.Numbers, 0)
		if n == 0 {
			return "No document to classify."
		}
		docs := pairs(len(f.Documents), func(i int) string { return f.Documents[i] + " (" + l.kindName(at(f.Kinds, i)) + ")" })
		return fmt.Sprintf("Classified %s: %s.", l.count(n, "document", "documents"), l.list(docs))
	},
	"unclassified": func(l *reportLabels, f engine.Fact) string {
		return "Not recognised or not readable: " + l.list(f.Documents) + "."
	},
	"no_identity": func(*reportLabels, engine.Fact) string {
		return "No identity document (passport, driver's licence or national ID card) was provided."
	},
	"extracted": func(l *reportLabels, f engine.Fact) string {
		found, total := at(f.Numbers, 0), at(f.Numbers, 1)
		s := fmt.Sprintf("Extracted %d of %s", found, l.count(total, "field", "fields"))
		if len(f.Fields) == 0 {
			return s + "."
		}
		return s + ": " + l.fieldNames(f.Fields) + "."
	},
	"extracted_none": func(*reportLabels, engine.Fact) string {
		return "No field of the schema could be read from the documents."
	},
	"missing": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Fields), "Missing required field: ", "Missing required fields: ") + l.fieldNames(f.Fields) + "."
	},
	"formats_ok": func(*reportLabels, engine.Fact) string { return "Every date and document number is well formed." },
	"malformed": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Values), "Malformed value: ", "Malformed values: ") + englishMalformed(l, f) + "."
	},
	"none_expired": func(l *reportLabels, f engine.Fact) string {
		return "No document has expired as of " + l.isoDate(f.Date) + "."
	},
	"expired": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Documents), "Expired document: ", "Expired documents: ") + l.list(f.Documents) + "."
	},
	"agree_shared": func(*reportLabels, engine.Fact) string { return "The documents agree on every value they share." },
	"disagree": func(l *reportLabels, f engine.Fact) string {
		return "The documents disagree on " + l.fieldNames(f.Fields) + "."
	},
	"single": func(l *reportLabels, f engine.Fact) string {
		return "Shown by one document only: " + l.fieldNames(f.Fields) + "."
	},
	"all_agree": func(*reportLabels, engine.Fact) string {
		return "Every value shown by more than one document agrees."
	},
	"unconfirmed": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Fields), "This value could not be confirmed by a second document: ",
			"These values could not be confirmed by a second document: ") + l.fieldNames(f.Fields) + "."
	},
	"field_none": func(l *reportLabels, f engine.Fact) string {
		return "No document shows the " + l.fieldName(at(f.Fields, 0)) + "."
	},
	"field_one": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("Only %s shows the %s; there is nothing to compare it with.", at(f.Documents, 0), l.fieldName(at(f.Fields, 0)))
	},
	"field_agree": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s agree on the %s.", capital(l.count(at(f.Numbers, 0), "document", "documents")), l.fieldName(at(f.Fields, 0)))
	},
	"field_differ": func(l *reportLabels, f engine.Fact) string {
		vals := pairs(len(f.Documents), func(i int) string { return quoted(at(f.Values, i)) + " in " + f.Documents[i] })
		return fmt.Sprintf("The documents disagree on the %s: %s.", l.fieldName(at(f.Fields, 0)), l.list(vals))
	},
	"registry_none": func(*reportLabels, engine.Fact) string {
		return "There was no document number to look up, so the documents were read instead."
	},
	"registry_found": func(l *reportLabels, f engine.Fact) string {
		return "Document " + at(f.Values, 0) + " is on record with the (simulated) registry."
	},
	"reviewed": func(l *reportLabels, f engine.Fact) string {
		return "Reviewed " + l.count(at(f.Numbers, 0), "document", "documents") + " and compiled the decision."
	},
	"ran_over": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s ran over %s.", l.actionName(at(f.Actions, 0)), l.count(at(f.Numbers, 0), "document", "documents"))
	},
	"doc_unreadable": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s could not be read (%s); a person needs to check it.", at(f.Documents, 0), at(f.Values, 0))
	},
	"doc_unrecognised": func(l *reportLabels, f engine.Fact) string {
		return at(f.Documents, 0) + " is not a document type the service recognises."
	},
	"doc_incomplete": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s (%s) lacks the %s.", at(f.Documents, 0), l.kindName(at(f.Kinds, 0)), l.fieldNames(f.Fields))
	},
	"doc_expired": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s (%s) expired on %s.", at(f.Documents, 0), l.kindName(at(f.Kinds, 0)), l.isoDate(f.Date))
	},
	"doc_valid": func(l *reportLabels, f engine.Fact) string {
		s := fmt.Sprintf("%s (%s) shows every required field", at(f.Documents, 0), l.kindName(at(f.Kinds, 0)))
		if f.Date != "" {
			return s + " and is valid until " + l.isoDate(f.Date) + "."
		}
		return s + "."
	},
	"risk_failed": func(l *reportLabels, f engine.Fact) string {
		return l.actionName(at(f.Actions, 0)) + " failed."
	},
	"risk_warning": func(l *reportLabels, f engine.Fact) string {
		return l.actionName(at(f.Actions, 0)) + " raised a warning."
	},
	"risk_scripted": func(l *reportLabels, f engine.Fact) string {
		return "A test script set the risk (mock:risk=" + at(f.Values, 0) + ")."
	},
	"risk_basis": func(l *reportLabels, f engine.Fact) string {
		score, failed, warned := at(f.Numbers, 0), at(f.Numbers, 1), at(f.Numbers, 2)
		if failed == 0 && warned == 0 {
			return fmt.Sprintf("Risk score %d of 100: no check failed or raised a warning.", score)
		}
		var parts []string
		if failed > 0 {
			parts = append(parts, l.count(failed, "failed check", "failed checks"))
		}
		if warned > 0 {
			parts = append(parts, l.count(warned, "warning", "warnings"))
		}
		return fmt.Sprintf("Risk score %d of 100, from %s.", score, l.list(parts))
	},
	"decide_approve": func(*reportLabels, engine.Fact) string {
		return "Every check passed or raised only minor warnings."
	},
	"decide_review": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Actions), "A check needs a person's review: ", "Some checks need a person's review: ") + l.actionList(f.Actions) + "."
	},
	"decide_reject": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Actions), "A check failed: ", "Several checks failed: ") + l.actionList(f.Actions) + "."
	},
	"decide_script": func(*reportLabels, engine.Fact) string { return "A test script set the risk high." },
	"rec_unclassified": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Documents), "Check by hand the document that could not be classified: ",
			"Check by hand the documents that could not be classified: ") + l.list(f.Documents) + "."
	},
	"rec_no_identity": func(*reportLabels, engine.Fact) string {
		return "Ask the applicant for an identity document: a passport, a driver's licence or a national ID card."
	},
	"rec_illegible": func(*reportLabels, engine.Fact) string {
		return "Ask for legible identity documents: none of the expected fields could be read."
	},
	"rec_missing": func(l *reportLabels, f engine.Fact) string {
		return "Ask the applicant for a document that shows the " + l.fieldNames(f.Fields) + "."
	},
	"rec_malformed": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Values), "Correct or re-submit the malformed value: ", "Correct or re-submit the malformed values: ") +
			englishMalformed(l, f) + "."
	},
	"rec_expired": func(l *reportLabels, f engine.Fact) string {
		return plural(len(f.Documents), "Ask for a current replacement of the expired document: ",
			"Ask for current replacements of the expired documents: ") + l.list(f.Documents) + "."
	},
	"rec_disagree": func(l *reportLabels, f engine.Fact) string {
		return "Resolve the mismatch in the " + l.fieldNames(f.Fields) + " with the applicant before going further."
	},
	"rec_single": func(l *reportLabels, f engine.Fact) string {
		return "Confirm the " + l.fieldNames(f.Fields) + " with a second document."
	},
	"rec_registry": func(*reportLabels, engine.Fact) string {
		return "Verify the applicant's identity document with the issuing authority by hand."
	},
	"rec_no_issue": func(*reportLabels, engine.Fact) string { return "No issue found: the profile can be approved." },
}

// plural picks one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// englishMalformed lists malformed values: "the date of birth in
// passport.txt (“31/31/1990”)".
func englishMalformed(l *reportLabels, f engine.Fact) string {
	return l.list(pairs(len(f.Values), func(i int) string {
		return fmt.Sprintf("the %s in %s (%s)", l.fieldName(at(f.Fields, i)), at(f.Documents, i), quoted(f.Values[i]))
	}))
}

// koreanFacts say the engine's facts in Korean. Lists follow a colon, so
// that no particle has to agree with a name the report does not control.
var koreanFacts = map[string]func(*reportLabels, engine.Fact) string{
	"classified": func(l *reportLabels, f engine.Fact) string {
		n := at(f.Numbers, 0)
		if n == 0 {
			return "분류할 문서가 없습니다."
		}
		docs := pairs(len(f.Documents), func(i int) string { return f.Documents[i] + "(" + l.kindName(at(f.Kinds, i)) + ")" })
		return fmt.Sprintf("문서 %d건을 분류했습니다: %s.", n, l.list(docs))
	},
	"unclassified": func(l *reportLabels, f engine.Fact) string {
		return "인식하거나 읽을 수 없는 문서: " + l.list(f.Documents) + "."
	},
	"no_identity": func(*reportLabels, engine.Fact) string {
		return "신원 확인 문서(여권, 운전면허증 또는 신분증)가 제출되지 않았습니다."
	},
	"extracted": func(l *reportLabels, f engine.Fact) string {
		s := fmt.Sprintf("%d개 항목 중 %d개를 추출했습니다", at(f.Numbers, 1), at(f.Numbers, 0))
		if len(f.Fields) == 0 {
			return s + "."
		}
		return s + ": " + l.fieldNames(f.Fields) + "."
	},
	"extracted_none": func(*reportLabels, engine.Fact) string {
		return "문서에서 스키마 항목을 하나도 읽지 못했습니다."
	},
	"missing": func(l *reportLabels, f engine.Fact) string {
		return "누락된 필수 항목: " + l.fieldNames(f.Fields) + "."
	},
	"formats_ok": func(*reportLabels, engine.Fact) string {
		return "모든 날짜와 문서 번호의 형식이 올바릅니다."
	},
	"malformed": func(l *reportLabels, f engine.Fact) string {
		return "형식이 잘못된 값: " + koreanMalformed(l, f) + "."
	},
	"none_expired": func(l *reportLabels, f engine.Fact) string {
		return l.isoDate(f.Date) + " 기준으로 만료된 문서가 없습니다."
	},
	"expired": func(l *reportLabels, f engine.Fact) string {
		return "만료된 문서: " + l.list(f.Documents) + "."
	},
	"agree_shared": func(*reportLabels, engine.Fact) string {
		return "여러 문서에 함께 나타난 값은 모두 일치합니다."
	},
	"disagree": func(l *reportLabels, f engine.Fact) string {
		return "문서 간에 값이 다른 항목: " + l.fieldNames(f.Fields) + "."
	},
	"single": func(l *reportLabels, f engine.Fact) string {
		return "한 문서에만 나타난 항목: " + l.fieldNames(f.Fields) + "."
	},
	"all_agree": func(*reportLabels, engine.Fact) string {
		return "둘 이상의 문서에 나타난 값은 모두 일치합니다."
	},
	"unconfirmed": func(l *reportLabels, f engine.Fact) string {
		return "두 번째 문서로 확인하지 못한 항목: " + l.fieldNames(f.Fields) + "."
	},
	"field_none": func(l *reportLabels, f engine.Fact) string {
		return "어느 문서에도 " + l.fieldName(at(f.Fields, 0)) + " 항목이 없습니다."
	},
	"field_one": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s 항목은 %s에만 있어 비교할 대상이 없습니다.", l.fieldName(at(f.Fields, 0)), at(f.Documents, 0))
	},
	"field_agree": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("문서 %d건의 %s 값이 일치합니다.", at(f.Numbers, 0), l.fieldName(at(f.Fields, 0)))
	},
	"field_differ": func(l *reportLabels, f engine.Fact) string {
		vals := pairs(len(f.Documents), func(i int) string { return f.Documents[i] + " " + quoted(at(f.Values, i)) })
		return fmt.Sprintf("문서 간 %s 값이 다릅니다: %s.", l.fieldName(at(f.Fields, 0)), l.list(vals))
	},
	"registry_none": func(*reportLabels, engine.Fact) string {
		return "조회할 문서 번호가 없어 문서 내용을 대신 확인했습니다."
	},
	"registry_found": func(l *reportLabels, f engine.Fact) string {
		return "(모의) 등록부에서 문서 번호 " + at(f.Values, 0) + "의 기록을 확인했습니다."
	},
	"reviewed": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("문서 %d건을 검토하고 결정을 정리했습니다.", at(f.Numbers, 0))
	},
	"ran_over": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("문서 %d건에 대해 ‘%s’ 작업을 실행했습니다.", at(f.Numbers, 0), l.actionName(at(f.Actions, 0)))
	},
	"doc_unreadable": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s 문서를 읽을 수 없습니다(%s). 담당자가 직접 확인해야 합니다.", at(f.Documents, 0), at(f.Values, 0))
	},
	"doc_unrecognised": func(l *reportLabels, f engine.Fact) string {
		return at(f.Documents, 0) + " 문서의 유형을 인식하지 못했습니다."
	},
	"doc_incomplete": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s(%s)에 없는 필수 항목: %s.", at(f.Documents, 0), l.kindName(at(f.Kinds, 0)), l.fieldNames(f.Fields))
	},
	"doc_expired": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("%s(%s)의 유효기간이 %s에 만료되었습니다.", at(f.Documents, 0), l.kindName(at(f.Kinds, 0)), l.isoDate(f.Date))
	},
	"doc_valid": func(l *reportLabels, f engine.Fact) string {
		s := fmt.Sprintf("%s(%s)에 필수 항목이 모두 있", at(f.Documents, 0), l.kindName(at(f.Kinds, 0)))
		if f.Date != "" {
			return s + "으며 " + l.isoDate(f.Date) + "까지 유효합니다."
		}
		return s + "습니다."
	},
	"risk_failed": func(l *reportLabels, f engine.Fact) string {
		return l.actionName(at(f.Actions, 0)) + " 검사에 실패했습니다."
	},
	"risk_warning": func(l *reportLabels, f engine.Fact) string {
		return l.actionName(at(f.Actions, 0)) + " 검사에서 주의 사항이 나왔습니다."
	},
	"risk_scripted": func(l *reportLabels, f engine.Fact) string {
		return "테스트 스크립트가 위험 수준을 지정했습니다(mock:risk=" + at(f.Values, 0) + ")."
	},
	"risk_basis": func(l *reportLabels, f engine.Fact) string {
		return fmt.Sprintf("위험 점수 %d점(100점 만점): 실패한 검사 %d건, 주의 %d건.", at(f.Numbers, 0), at(f.Numbers, 1), at(f.Numbers, 2))
	},
	"decide_approve": func(*reportLabels, engine.Fact) string {
		return "모든 검사를 통과했거나 경미한 주의 사항만 있습니다."
	},
	"decide_review": func(l *reportLabels, f engine.Fact) string {
		return "담당자 검토가 필요한 검사: " + l.actionList(f.Actions) + "."
	},
	"decide_reject": func(l *reportLabels, f engine.Fact) string {
		return "실패한 검사: " + l.actionList(f.Actions) + "."
	},
	"decide_script": func(*reportLabels, engine.Fact) string {
		return "테스트 스크립트가 위험 수준을 높음으로 지정했습니다."
	},
	"rec_unclassified": func(l *reportLabels, f engine.Fact) string {
		return "분류하지 못한 문서를 직접 확인하십시오: " + l.list(f.Documents) + "."
	},
	"rec_no_identity": func(*reportLabels, engine.Fact) string {
		return "신청인에게 신원 확인 문서(여권, 운전면허증 또는 신분증)를 요청하십시오."
	},
	"rec_illegible": func(*reportLabels, engine.Fact) string {
		return "판독 가능한 신원 확인 문서를 요청하십시오. 예상한 항목을 하나도 읽지 못했습니다."
	},
	"rec_missing": func(l *reportLabels, f engine.Fact) string {
		return "다음 항목이 나온 문서를 신청인에게 요청하십시오: " + l.fieldNames(f.Fields) + "."
	},
	"rec_malformed": func(l *reportLabels, f engine.Fact) string {
		return "형식이 잘못된 값을 바로잡거나 다시 제출받으십시오: " + koreanMalformed(l, f) + "."
	},
	"rec_expired": func(l *reportLabels, f engine.Fact) string {
		return "만료된 문서를 대신할 유효한 문서를 요청하십시오: " + l.list(f.Documents) + "."
	},
	"rec_disagree": func(l *reportLabels, f engine.Fact) string {
		return "진행하기 전에 신청인과 함께 값이 다른 항목을 해소하십시오: " + l.fieldNames(f.Fields) + "."
	},
	"rec_single": func(l *reportLabels, f engine.Fact) string {
		return "다음 항목을 두 번째 문서로 확인하십시오: " + l.fieldNames(f.Fields) + "."
	},
	"rec_registry": func(*reportLabels, engine.Fact) string {
		return "신청인의 신원 확인 문서를 발급 기관에 직접 조회하십시오."
	},
	"rec_no_issue": func(*reportLabels, engine.Fact) string {
		return "문제가 발견되지 않았습니다. 프로필을 승인할 수 있습니다."
	},
}

// koreanMalformed lists malformed values: "passport.txt의 생년월일
// (“31/31/1990”)".
func koreanMalformed(l *reportLabels, f engine.Fact) string {
	return l.list(pairs(len(f.Values), func(i int) string {
		return fmt.Sprintf("%s의 %s(%s)", at(f.Documents, i), l.fieldName(at(f.Fields, i)), quoted(f.Values[i]))
	}))
}
