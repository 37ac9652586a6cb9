// Package codeshape holds a test of the shape of the project's code: no
// type with too many methods, no function too long or too branchy, and
// the mock's state changed in one place. It reads the source; it has no
// code of its own.
package codeshape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Limits of the SDK's and the mock's code (examples aside).
const (
	maxMethods    = 40
	maxLines      = 80
	maxComplexity = 25
)

// tables are functions that are mostly a table, and so may be longer.
var tables = map[string]string{
	"mockserver.routes": "the route table",
	"apiroutes.All":     "the list of the service's routes",
}

// sourceFile is a parsed non-test Go file of the project.
type sourceFile struct {
	path string // relative to the repository's root
	pkg  string
	file *ast.File
}

// repoRoot is the repository's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// sources parses every non-test Go file of the SDK and the mock: the
// root package, internal/, mockserver/ and cmd/. Examples are left out.
func sources(t *testing.T) (*token.FileSet, []sourceFile) {
	t.Helper()
	root := repoRoot(t)
	fset := token.NewFileSet()
	var out []sourceFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "examples" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		out = append(out, sourceFile{path: filepath.ToSlash(rel), pkg: f.Name.Name, file: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("found only %d source files under %s", len(out), root)
	}
	return fset, out
}

// funcName is "pkg.Func" or "pkg.Type.Method".
func funcName(pkg string, fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return pkg + "." + fn.Name.Name
	}
	return pkg + "." + recvType(fn.Recv.List[0].Type) + "." + fn.Name.Name
}

// recvType is the name of a receiver's type, without pointer or type
// parameters.
func recvType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvType(x.X)
	case *ast.IndexExpr:
		return recvType(x.X)
	case *ast.IndexListExpr:
		return recvType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return fmt.Sprintf("%T", e)
}

// complexity is a function's cyclomatic complexity, counted as gocyclo
// does: one, plus one for each if, for, range, non-default case and
// communication clause, && and ||.
func complexity(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

func TestFunctionsAreShortAndSimple(t *testing.T) {
	fset, files := sources(t)
	var problems []string
	for _, sf := range files {
		for _, d := range sf.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := funcName(sf.pkg, fn)
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if _, table := tables[name]; lines > maxLines && !table {
				problems = append(problems, fmt.Sprintf("%s (%s): %d lines, more than %d", name, sf.path, lines, maxLines))
			}
			if c := complexity(fn); c > maxComplexity {
				problems = append(problems, fmt.Sprintf("%s (%s): cyclomatic complexity %d, more than %d", name, sf.path, c, maxComplexity))
			}
		}
	}
	report(t, problems)
}

func TestTypesHaveFewMethods(t *testing.T) {
	_, files := sources(t)
	methods := map[string]int{}
	for _, sf := range files {
		for _, d := range sf.file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) > 0 {
				methods[filepath.Dir(sf.path)+"."+recvType(fn.Recv.List[0].Type)]++
			}
		}
	}
	var problems []string
	for typ, n := range methods {
		if n > maxMethods {
			problems = append(problems, fmt.Sprintf("%s: %d methods, more than %d", typ, n, maxMethods))
		}
	}
	report(t, problems)
}

// report fails t with the problems, sorted.
func report(t *testing.T, problems []string) {
	t.Helper()
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestTenantLockOnlyInTheStore checks that the mock's state is changed in
// one place: the tenant's lock, the store's tenantMu, is taken in the
// store's files (mockserver/store*.go) and nowhere else.
func TestTenantLockOnlyInTheStore(t *testing.T) {
	_, files := sources(t)
	var problems []string
	uses := 0
	for _, sf := range files {
		if filepath.Dir(sf.path) != "mockserver" {
			continue
		}
		inStore := strings.HasPrefix(filepath.Base(sf.path), "store")
		ast.Inspect(sf.file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "tenantMu" {
				return true
			}
			uses++
			if !inStore {
				problems = append(problems, fmt.Sprintf("%s: the tenant's lock is used outside the store", sf.path))
			}
			return true
		})
	}
	if uses == 0 {
		t.Fatal("found no use of the store's tenantMu: the check no longer sees the lock")
	}
	report(t, problems)
}
