package layering

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// raceList is the list of packages CI runs under the race detector.
const raceList = ".ci/race-packages"

// TestRacePackagesListed holds .ci/race-packages to every package whose
// code starts goroutines, so that a package that starts one and is left out
// of the race detector's runs fails CI; and every package listed exists.
func TestRacePackagesListed(t *testing.T) {
	root := filepath.Join("..", "..")
	listed, err := racePackages(filepath.Join(root, raceList))
	if err != nil {
		t.Fatal(err)
	}
	starters, err := goroutineStarters(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(starters, "manifests") {
		t.Fatalf("manifests starts goroutines, yet the check did not find them: it looks in the wrong place (found %v)", starters)
	}
	for _, pkg := range starters {
		if !slices.Contains(listed, pkg) {
			t.Errorf("%s starts goroutines but is not in %s: add ./%s there, so that CI runs its tests under -race", pkg, raceList, pkg)
		}
	}
	for _, pkg := range listed {
		if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
			t.Errorf("%s lists %s, which does not exist", raceList, pkg)
		}
	}
}

// racePackages reads the list: one "./package" a line, '#' starting a
// comment.
func racePackages(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pkgs []string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line, _, _ := strings.Cut(lines.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			pkgs = append(pkgs, filepath.ToSlash(filepath.Clean(line)))
		}
	}
	return pkgs, lines.Err()
}

// goroutineStarters returns, sorted, the folders under root whose non-test
// Go files start goroutines: a go statement, a call of a method named Go
// (sync.WaitGroup.Go, errgroup.Group.Go), or an import of errgroup.
func goroutineStarters(root string) ([]string, error) {
	var pkgs []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || nestedModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if startsGoroutines(file) {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if pkg := filepath.ToSlash(rel); !slices.Contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
		}
		return nil
	})
	slices.Sort(pkgs)
	return pkgs, err
}

func startsGoroutines(file *ast.File) bool {
	for _, imp := range file.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "golang.org/x/sync/errgroup" {
			return true
		}
	}
	found := false
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			found = true
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
				found = true
			}
		}
		return !found
	})
	return found
}
