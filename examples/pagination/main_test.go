package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestPagination(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"All folders, newest first:\n  Payslips             default=false\n  invoices (scanned)   default=false\n  Bank statements      default=false\n" +
			"  IDs                  default=false\n  Contracts            default=false\n  Invoices 2025        default=false\n" +
			"  Invoices 2024        default=false\n  default              default=true\n",
		"Folders matching \"invoices\", by name:\n  invoices (scanned)\n  Invoices 2024\n  Invoices 2025\n",
		`page 1 (4): ["Bank statements" "Contracts" "default" "IDs"]`,
		`page 2 (4): ["invoices (scanned)" "Invoices 2024" "Invoices 2025" "Payslips"]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "page 3") {
		t.Errorf("a third page of 8 folders, 4 a page:\n%s", got)
	}
}
