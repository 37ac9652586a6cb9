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
//
// factWords holds what the report says of each key the engine writes,
// in both languages side by side.

// say returns text in the report's language: from the engine's facts of
// it when it has them, else as given.
func (r *reportWriter) say(text string) string {
	facts, ok := r.d.Facts.Sentences[text]
	if !ok || len(facts) == 0 {
		return text
	}
	parts := make([]string, len(facts))
	for i, f := range facts {
		words, ok := factWords[f.Key]
		if !ok {
			return text
		}
		parts[i] = words.in(r.l)(f)
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

// sayFact says a fact in one language.
type sayFact func(engine.Fact) string

// factWords say the engine's facts, by key: each entry in English, then
// in Korean, written positionally, so that an entry without either
// language does not compile. Korean lists follow a colon, so that no
// particle has to agree with a name the report does not control.
var factWords = map[engine.FactKey]both[sayFact]{
	engine.FactClassified: {
		func(f engine.Fact) string {
			n := at(f.Numbers, 0)
			if n == 0 {
				return "No document to classify."
			}
			docs := pairs(len(f.Documents), func(i int) string { return f.Documents[i] + " (" + english.kindName(at(f.Kinds, i)) + ")" })
			return fmt.Sprintf("Classified %s: %s.", englishCount(n, "document", "documents"), english.list(docs))
		},
		func(f engine.Fact) string {
			n := at(f.Numbers, 0)
			if n == 0 {
				return "분류할 문서가 없습니다."
			}
			docs := pairs(len(f.Documents), func(i int) string { return f.Documents[i] + "(" + korean.kindName(at(f.Kinds, i)) + ")" })
			return fmt.Sprintf("문서 %d건을 분류했습니다: %s.", n, korean.list(docs))
		},
	},
	engine.FactUnclassified: {
		func(f engine.Fact) string {
			return "Not recognised or not readable: " + english.list(f.Documents) + "."
		},
		func(f engine.Fact) string {
			return "인식하거나 읽을 수 없는 문서: " + korean.list(f.Documents) + "."
		},
	},
	engine.FactNoIdentity: {
		func(engine.Fact) string {
			return "No identity document (passport, driver's licence or national ID card) was provided."
		},
		func(engine.Fact) string {
			return "신원 확인 문서(여권, 운전면허증 또는 신분증)가 제출되지 않았습니다."
		},
	},
	engine.FactExtracted: {
		func(f engine.Fact) string {
			found, total := at(f.Numbers, 0), at(f.Numbers, 1)
			s := fmt.Sprintf("Extracted %d of %s", found, englishCount(total, "field", "fields"))
			if len(f.Fields) == 0 {
				return s + "."
			}
			return s + ": " + english.fieldNames(f.Fields) + "."
		},
		func(f engine.Fact) string {
			s := fmt.Sprintf("%d개 항목 중 %d개를 추출했습니다", at(f.Numbers, 1), at(f.Numbers, 0))
			if len(f.Fields) == 0 {
				return s + "."
			}
			return s + ": " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactExtractedNone: {
		func(engine.Fact) string {
			return "No field of the schema could be read from the documents."
		},
		func(engine.Fact) string {
			return "문서에서 스키마 항목을 하나도 읽지 못했습니다."
		},
	},
	engine.FactMissing: {
		func(f engine.Fact) string {
			return plural(len(f.Fields), "Missing required field: ", "Missing required fields: ") + english.fieldNames(f.Fields) + "."
		},
		func(f engine.Fact) string {
			return "누락된 필수 항목: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactFormatsOK: {
		func(engine.Fact) string { return "Every date and document number is well formed." },
		func(engine.Fact) string {
			return "모든 날짜와 문서 번호의 형식이 올바릅니다."
		},
	},
	engine.FactMalformed: {
		func(f engine.Fact) string {
			return plural(len(f.Values), "Malformed value: ", "Malformed values: ") + englishMalformed(f) + "."
		},
		func(f engine.Fact) string {
			return "형식이 잘못된 값: " + koreanMalformed(f) + "."
		},
	},
	engine.FactNoneExpired: {
		func(f engine.Fact) string {
			return "No document has expired as of " + english.isoDate(f.Date) + "."
		},
		func(f engine.Fact) string {
			return korean.isoDate(f.Date) + " 기준으로 만료된 문서가 없습니다."
		},
	},
	engine.FactExpired: {
		func(f engine.Fact) string {
			return plural(len(f.Documents), "Expired document: ", "Expired documents: ") + english.list(f.Documents) + "."
		},
		func(f engine.Fact) string {
			return "만료된 문서: " + korean.list(f.Documents) + "."
		},
	},
	engine.FactAgreeShared: {
		func(engine.Fact) string { return "The documents agree on every value they share." },
		func(engine.Fact) string {
			return "여러 문서에 함께 나타난 값은 모두 일치합니다."
		},
	},
	engine.FactDisagree: {
		func(f engine.Fact) string {
			return "The documents disagree on " + english.fieldNames(f.Fields) + "."
		},
		func(f engine.Fact) string {
			return "문서 간에 값이 다른 항목: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactSingle: {
		func(f engine.Fact) string {
			return "Shown by one document only: " + english.fieldNames(f.Fields) + "."
		},
		func(f engine.Fact) string {
			return "한 문서에만 나타난 항목: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactAllAgree: {
		func(engine.Fact) string {
			return "Every value shown by more than one document agrees."
		},
		func(engine.Fact) string {
			return "둘 이상의 문서에 나타난 값은 모두 일치합니다."
		},
	},
	engine.FactUnconfirmed: {
		func(f engine.Fact) string {
			return plural(len(f.Fields), "This value could not be confirmed by a second document: ",
				"These values could not be confirmed by a second document: ") + english.fieldNames(f.Fields) + "."
		},
		func(f engine.Fact) string {
			return "두 번째 문서로 확인하지 못한 항목: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactFieldNone: {
		func(f engine.Fact) string {
			return "No document shows the " + english.fieldName(at(f.Fields, 0)) + "."
		},
		func(f engine.Fact) string {
			return "어느 문서에도 " + korean.fieldName(at(f.Fields, 0)) + " 항목이 없습니다."
		},
	},
	engine.FactFieldOne: {
		func(f engine.Fact) string {
			return fmt.Sprintf("Only %s shows the %s; there is nothing to compare it with.", at(f.Documents, 0), english.fieldName(at(f.Fields, 0)))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("%s 항목은 %s에만 있어 비교할 대상이 없습니다.", korean.fieldName(at(f.Fields, 0)), at(f.Documents, 0))
		},
	},
	engine.FactFieldAgree: {
		func(f engine.Fact) string {
			return fmt.Sprintf("%s agree on the %s.", capital(englishCount(at(f.Numbers, 0), "document", "documents")), english.fieldName(at(f.Fields, 0)))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("문서 %d건의 %s 값이 일치합니다.", at(f.Numbers, 0), korean.fieldName(at(f.Fields, 0)))
		},
	},
	engine.FactFieldDiffer: {
		func(f engine.Fact) string {
			vals := pairs(len(f.Documents), func(i int) string { return quoted(at(f.Values, i)) + " in " + f.Documents[i] })
			return fmt.Sprintf("The documents disagree on the %s: %s.", english.fieldName(at(f.Fields, 0)), english.list(vals))
		},
		func(f engine.Fact) string {
			vals := pairs(len(f.Documents), func(i int) string { return f.Documents[i] + " " + quoted(at(f.Values, i)) })
			return fmt.Sprintf("문서 간 %s 값이 다릅니다: %s.", korean.fieldName(at(f.Fields, 0)), korean.list(vals))
		},
	},
	engine.FactRegistryNone: {
		func(engine.Fact) string {
			return "There was no document number to look up, so the documents were read instead."
		},
		func(engine.Fact) string {
			return "조회할 문서 번호가 없어 문서 내용을 대신 확인했습니다."
		},
	},
	engine.FactRegistryFound: {
		func(f engine.Fact) string {
			return "Document " + at(f.Values, 0) + " is on record with the (simulated) registry."
		},
		func(f engine.Fact) string {
			return "(모의) 등록부에서 문서 번호 " + at(f.Values, 0) + "의 기록을 확인했습니다."
		},
	},
	engine.FactReviewed: {
		func(f engine.Fact) string {
			return "Reviewed " + englishCount(at(f.Numbers, 0), "document", "documents") + " and compiled the decision."
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("문서 %d건을 검토하고 결정을 정리했습니다.", at(f.Numbers, 0))
		},
	},
	engine.FactRanOver: {
		func(f engine.Fact) string {
			return fmt.Sprintf("%s ran over %s.", english.actionName(at(f.Actions, 0)), englishCount(at(f.Numbers, 0), "document", "documents"))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("문서 %d건에 대해 ‘%s’ 작업을 실행했습니다.", at(f.Numbers, 0), korean.actionName(at(f.Actions, 0)))
		},
	},
	engine.FactDocUnreadable: {
		func(f engine.Fact) string {
			return fmt.Sprintf("%s could not be read (%s); a person needs to check it.", at(f.Documents, 0), at(f.Values, 0))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("%s 문서를 읽을 수 없습니다(%s). 담당자가 직접 확인해야 합니다.", at(f.Documents, 0), at(f.Values, 0))
		},
	},
	engine.FactDocUnrecognised: {
		func(f engine.Fact) string {
			return at(f.Documents, 0) + " is not a document type the service recognises."
		},
		func(f engine.Fact) string {
			return at(f.Documents, 0) + " 문서의 유형을 인식하지 못했습니다."
		},
	},
	engine.FactDocIncomplete: {
		func(f engine.Fact) string {
			return fmt.Sprintf("%s (%s) lacks the %s.", at(f.Documents, 0), english.kindName(at(f.Kinds, 0)), english.fieldNames(f.Fields))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("%s(%s)에 없는 필수 항목: %s.", at(f.Documents, 0), korean.kindName(at(f.Kinds, 0)), korean.fieldNames(f.Fields))
		},
	},
	engine.FactDocExpired: {
		func(f engine.Fact) string {
			return fmt.Sprintf("%s (%s) expired on %s.", at(f.Documents, 0), english.kindName(at(f.Kinds, 0)), english.isoDate(f.Date))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("%s(%s)의 유효기간이 %s에 만료되었습니다.", at(f.Documents, 0), korean.kindName(at(f.Kinds, 0)), korean.isoDate(f.Date))
		},
	},
	engine.FactDocValid: {
		func(f engine.Fact) string {
			s := fmt.Sprintf("%s (%s) shows every required field", at(f.Documents, 0), english.kindName(at(f.Kinds, 0)))
			if f.Date != "" {
				return s + " and is valid until " + english.isoDate(f.Date) + "."
			}
			return s + "."
		},
		func(f engine.Fact) string {
			s := fmt.Sprintf("%s(%s)에 필수 항목이 모두 있", at(f.Documents, 0), korean.kindName(at(f.Kinds, 0)))
			if f.Date != "" {
				return s + "으며 " + korean.isoDate(f.Date) + "까지 유효합니다."
			}
			return s + "습니다."
		},
	},
	engine.FactRiskFailed: {
		func(f engine.Fact) string {
			return english.actionName(at(f.Actions, 0)) + " failed."
		},
		func(f engine.Fact) string {
			return korean.actionName(at(f.Actions, 0)) + " 검사에 실패했습니다."
		},
	},
	engine.FactRiskWarning: {
		func(f engine.Fact) string {
			return english.actionName(at(f.Actions, 0)) + " raised a warning."
		},
		func(f engine.Fact) string {
			return korean.actionName(at(f.Actions, 0)) + " 검사에서 주의 사항이 나왔습니다."
		},
	},
	engine.FactRiskScripted: {
		func(f engine.Fact) string {
			return "A test script set the risk (mock:risk=" + at(f.Values, 0) + ")."
		},
		func(f engine.Fact) string {
			return "테스트 스크립트가 위험 수준을 지정했습니다(mock:risk=" + at(f.Values, 0) + ")."
		},
	},
	engine.FactRiskBasis: {
		func(f engine.Fact) string {
			score, failed, warned := at(f.Numbers, 0), at(f.Numbers, 1), at(f.Numbers, 2)
			if failed == 0 && warned == 0 {
				return fmt.Sprintf("Risk score %d of 100: no check failed or raised a warning.", score)
			}
			var parts []string
			if failed > 0 {
				parts = append(parts, englishCount(failed, "failed check", "failed checks"))
			}
			if warned > 0 {
				parts = append(parts, englishCount(warned, "warning", "warnings"))
			}
			return fmt.Sprintf("Risk score %d of 100, from %s.", score, english.list(parts))
		},
		func(f engine.Fact) string {
			return fmt.Sprintf("위험 점수 %d점(100점 만점): 실패한 검사 %d건, 주의 %d건.", at(f.Numbers, 0), at(f.Numbers, 1), at(f.Numbers, 2))
		},
	},
	engine.FactDecideApprove: {
		func(engine.Fact) string {
			return "Every check passed or raised only minor warnings."
		},
		func(engine.Fact) string {
			return "모든 검사를 통과했거나 경미한 주의 사항만 있습니다."
		},
	},
	engine.FactDecideReview: {
		func(f engine.Fact) string {
			return plural(len(f.Actions), "A check needs a person's review: ", "Some checks need a person's review: ") + english.actionList(f.Actions) + "."
		},
		func(f engine.Fact) string {
			return "담당자 검토가 필요한 검사: " + korean.actionList(f.Actions) + "."
		},
	},
	engine.FactDecideReject: {
		func(f engine.Fact) string {
			return plural(len(f.Actions), "A check failed: ", "Several checks failed: ") + english.actionList(f.Actions) + "."
		},
		func(f engine.Fact) string {
			return "실패한 검사: " + korean.actionList(f.Actions) + "."
		},
	},
	engine.FactDecideScript: {
		func(engine.Fact) string { return "A test script set the risk high." },
		func(engine.Fact) string {
			return "테스트 스크립트가 위험 수준을 높음으로 지정했습니다."
		},
	},
	engine.FactRecUnclassified: {
		func(f engine.Fact) string {
			return plural(len(f.Documents), "Check by hand the document that could not be classified: ",
				"Check by hand the documents that could not be classified: ") + english.list(f.Documents) + "."
		},
		func(f engine.Fact) string {
			return "분류하지 못한 문서를 직접 확인하십시오: " + korean.list(f.Documents) + "."
		},
	},
	engine.FactRecNoIdentity: {
		func(engine.Fact) string {
			return "Ask the applicant for an identity document: a passport, a driver's licence or a national ID card."
		},
		func(engine.Fact) string {
			return "신청인에게 신원 확인 문서(여권, 운전면허증 또는 신분증)를 요청하십시오."
		},
	},
	engine.FactRecIllegible: {
		func(engine.Fact) string {
			return "Ask for legible identity documents: none of the expected fields could be read."
		},
		func(engine.Fact) string {
			return "판독 가능한 신원 확인 문서를 요청하십시오. 예상한 항목을 하나도 읽지 못했습니다."
		},
	},
	engine.FactRecMissing: {
		func(f engine.Fact) string {
			return "Ask the applicant for a document that shows the " + english.fieldNames(f.Fields) + "."
		},
		func(f engine.Fact) string {
			return "다음 항목이 나온 문서를 신청인에게 요청하십시오: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactRecMalformed: {
		func(f engine.Fact) string {
			return plural(len(f.Values), "Correct or re-submit the malformed value: ", "Correct or re-submit the malformed values: ") +
				englishMalformed(f) + "."
		},
		func(f engine.Fact) string {
			return "형식이 잘못된 값을 바로잡거나 다시 제출받으십시오: " + koreanMalformed(f) + "."
		},
	},
	engine.FactRecExpired: {
		func(f engine.Fact) string {
			return plural(len(f.Documents), "Ask for a current replacement of the expired document: ",
				"Ask for current replacements of the expired documents: ") + english.list(f.Documents) + "."
		},
		func(f engine.Fact) string {
			return "만료된 문서를 대신할 유효한 문서를 요청하십시오: " + korean.list(f.Documents) + "."
		},
	},
	engine.FactRecDisagree: {
		func(f engine.Fact) string {
			return "Resolve the mismatch in the " + english.fieldNames(f.Fields) + " with the applicant before going further."
		},
		func(f engine.Fact) string {
			return "진행하기 전에 신청인과 함께 값이 다른 항목을 해소하십시오: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactRecSingle: {
		func(f engine.Fact) string {
			return "Confirm the " + english.fieldNames(f.Fields) + " with a second document."
		},
		func(f engine.Fact) string {
			return "다음 항목을 두 번째 문서로 확인하십시오: " + korean.fieldNames(f.Fields) + "."
		},
	},
	engine.FactRecRegistry: {
		func(engine.Fact) string {
			return "Verify the applicant's identity document with the issuing authority by hand."
		},
		func(engine.Fact) string {
			return "신청인의 신원 확인 문서를 발급 기관에 직접 조회하십시오."
		},
	},
	engine.FactRecNoIssue: {
		func(engine.Fact) string { return "No issue found: the profile can be approved." },
		func(engine.Fact) string {
			return "문제가 발견되지 않았습니다. 프로필을 승인할 수 있습니다."
		},
	},
}

// plural picks one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// englishCount writes n of a noun, with its singular and plural: "1
// document", "2 documents".
func englishCount(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// englishMalformed lists malformed values: "the date of birth in
// passport.txt (“31/31/1990”)".
func englishMalformed(f engine.Fact) string {
	return english.list(pairs(len(f.Values), func(i int) string {
		return fmt.Sprintf("the %s in %s (%s)", english.fieldName(at(f.Fields, i)), at(f.Documents, i), quoted(f.Values[i]))
	}))
}

// koreanMalformed lists malformed values: "passport.txt의 생년월일
// (“31/31/1990”)".
func koreanMalformed(f engine.Fact) string {
	return korean.list(pairs(len(f.Values), func(i int) string {
		return fmt.Sprintf("%s의 %s(%s)", at(f.Documents, i), korean.fieldName(at(f.Fields, i)), quoted(f.Values[i]))
	}))
}
