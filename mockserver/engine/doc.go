// Package engine is the analysis engine of the mock Profile Document
// Analysis Service (package mockserver): a deterministic simulation of an
// AI document review, not AI. The same workflow and the same documents
// give the same result, byte for byte.
//
// An analysis runs over an Input: the workflow (its output schema and its
// policy), the profile, and the target items as Documents whose text the
// caller has already read. Default, the simulated engine, goes through it
// step by step:
//
//  1. Read. It recognises each document's type (passport, driver's
//     licence, national ID, bank statement, utility bill, payslip) and
//     reads its key/value pairs: the fields of JSON at any depth, the
//     header and first row of CSV, "Key: value" lines of text. Keys match
//     the schema's fields regardless of case and separators ("Date of
//     Birth" is date_of_birth), and a few synonyms (DOB, passport number,
//     valid until...).
//  2. Compare. Each field across documents: pass when the documents that
//     show it agree (dates compared as dates), fail when they differ,
//     needs_review when one shows it, unverifiable when none does.
//  3. Validate. A document is valid when it is readable, of a recognised
//     type, shows the fields its type requires (of those the schema asks
//     for) and has not expired as of the analysis's start.
//  4. Run the policy. Each action of the workflow's policy yields a
//     finding (passed, warning or failed) by its category, and leaves an
//     audit log entry, a history entry and a raw result.
//  5. Grade. Risk score = 40 per failed finding + 10 per warning, at most
//     100; risk level low below 25, medium below 60, high from 60.
//  6. Decide. Low approves, medium asks for manual review, high rejects;
//     policy flags name mismatches, expired, unreadable and incomplete
//     documents.
//  7. Fill the schema. Each top-level property of the output schema gets
//     its value, in the extracted data and in the filled schema.
//
// Values in a document script outcomes for tests (see ParseScript):
// Default applies mock:risk=; the mock server applies mock:fail=,
// mock:duration=, mock:stuck and mock:report-delay=.
//
// An Analyzer given to mockserver.WithAnalyzer replaces the engine. It can
// call Default and adjust its result, as the example of Default shows.
package engine
