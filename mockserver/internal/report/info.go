package report

import (
	"bytes"
	"fmt"
)

// infoAsObject moves the document information dictionary, which gopdf
// writes inside the trailer, into an object of its own that the trailer
// refers to, as the PDF standard requires (ISO 32000-1, 7.5.5): readers
// that follow the standard to the letter find the title and dates only
// there. It rewrites the end of the file: the new object, then the
// cross-reference table with one more entry, then the trailer.
func infoAsObject(pdf []byte) ([]byte, error) {
	bad := func(what string) ([]byte, error) {
		return nil, fmt.Errorf("rewriting the report's trailer: %s", what)
	}
	sx := bytes.LastIndex(pdf, []byte("startxref\n"))
	if sx < 0 {
		return bad("no startxref")
	}
	var xrefAt int
	if _, err := fmt.Sscanf(string(pdf[sx+len("startxref\n"):]), "%d", &xrefAt); err != nil || xrefAt <= 0 || xrefAt >= sx {
		return bad("a bad startxref")
	}
	xref := pdf[xrefAt:sx]
	var first, count int
	if _, err := fmt.Sscanf(string(xref), "xref\n%d %d\n", &first, &count); err != nil || first != 0 || count < 2 {
		return bad("an unexpected cross-reference table")
	}
	entriesAt := bytes.IndexByte(xref[len("xref\n"):], '\n') + len("xref\n") + 1
	const entryLen = 20
	entries := xref[entriesAt : entriesAt+count*entryLen]
	trailer := xref[entriesAt+count*entryLen:]
	infoAt := bytes.Index(trailer, []byte("/Info <<"))
	if infoAt < 0 {
		return pdf, nil // no information dictionary: nothing to move
	}
	infoEnd := bytes.Index(trailer[infoAt:], []byte(" >>\n"))
	if infoEnd < 0 {
		return bad("an unterminated information dictionary")
	}
	info := trailer[infoAt+len("/Info ") : infoAt+infoEnd+len(" >>")]

	var out bytes.Buffer
	out.Grow(len(pdf) + 64)
	out.Write(pdf[:xrefAt])
	infoObj := out.Len()
	fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", count, info)
	newXref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n", count+1)
	out.Write(entries)
	fmt.Fprintf(&out, "%010d 00000 n \n", infoObj)
	fmt.Fprintf(&out, "trailer\n<<\n/Size %d\n/Root 1 0 R\n/Info %d 0 R\n>>\nstartxref\n%d\n%%%%EOF\n", count+1, count, newXref)
	return out.Bytes(), nil
}
