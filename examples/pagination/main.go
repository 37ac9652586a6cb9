// Command pagination lists a profile's folders three ways: all of them
// with the iterator, a search sorted by name, and page by page with
// cursors. It runs against the embedded mock server.
//
//	go run ./examples/pagination
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pagination:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	srv := mockserver.New()
	defer srv.Close()
	client := srv.Client()

	profile, err := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Paging demo"})
	if err != nil {
		return err
	}
	for _, name := range []string{"Invoices 2024", "Invoices 2025", "Contracts", "IDs", "Bank statements", "invoices (scanned)", "Payslips"} {
		if _, err := client.CreateFolder(ctx, profile.ID, name); err != nil {
			return err
		}
	}

	// 1. Every folder, newest first: the iterator follows nextCursor across
	// pages of 3 by itself.
	fmt.Fprintln(out, "All folders, newest first:")
	for folder, err := range client.ListFolders(ctx, profile.ID, &profilesvc.ListFoldersParams{Limit: 3}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %-20s default=%v\n", folder.Name, folder.IsDefault)
	}

	// 2. A case-insensitive search, sorted by name.
	fmt.Fprintln(out, "\nFolders matching \"invoices\", by name:")
	params := &profilesvc.ListFoldersParams{Search: "invoices", Sort: profilesvc.SortByName, Order: profilesvc.Ascending}
	for folder, err := range client.ListFolders(ctx, profile.ID, params) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s\n", folder.Name)
	}

	// 3. Page by page: pass each page's NextCursor to get the next one.
	fmt.Fprintln(out, "\nPage by page, 4 at a time, by name:")
	page := &profilesvc.ListFoldersParams{Sort: profilesvc.SortByName, Order: profilesvc.Ascending, Limit: 4}
	for n := 1; ; n++ {
		p, err := client.ListFoldersPage(ctx, profile.ID, page)
		if err != nil {
			return err
		}
		names := make([]string, len(p.Items))
		for i, f := range p.Items {
			names[i] = f.Name
		}
		fmt.Fprintf(out, "  page %d (%d): %q\n", n, p.Count, names)
		if p.NextCursor == "" {
			break
		}
		page.Cursor = p.NextCursor
	}
	return nil
}
